//! `mcpcheck init` on sample Node and Python projects (tests/init): it finds how the server
//! starts, writes an mcpcheck.toml and a GitHub workflow, and the config it wrote runs: `mcpcheck
//! run` in the project folder checks the sample's server with no flag at all.

use std::path::{Path, PathBuf};

use crate::support::{mcpcheck, reference_server};

/// A copy of a sample project in a folder of its own.
fn sample(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/init")
            .join(name),
        dir.path(),
    );
    dir
}

fn copy(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target: PathBuf = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

fn init(dir: &Path, args: &[&str]) -> std::process::Output {
    mcpcheck()
        .arg("init")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("mcpcheck runs")
}

/// `mcpcheck run` in the project with only what init wrote, against a few checks.
fn run_there(dir: &Path) -> std::process::Output {
    mcpcheck()
        .args(["run", "--check", "lifecycle-*", "--check", "tools-list-*"])
        .current_dir(dir)
        .env("MCPCHECK_SAMPLE_SERVER", reference_server())
        .output()
        .expect("mcpcheck runs")
}

#[test]
fn a_node_project_gets_its_bin_as_the_server_and_a_workflow_that_builds_it() {
    let project = sample("node");
    let out = init(project.path(), &[]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("found a Node project (package.json \"bin\" sample-node-server)"),
        "{said}"
    );
    let config = std::fs::read_to_string(project.path().join("mcpcheck.toml")).unwrap();
    assert!(
        config.contains("\nstdio = \"node server.js\"\n"),
        "{config}"
    );
    let workflow =
        std::fs::read_to_string(project.path().join(".github/workflows/mcpcheck.yml")).unwrap();
    snapshot("init-node-workflow", &workflow);
    let out = run_there(project.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("node server.js"), "{stdout}");
    assert!(
        project.path().join("mcpcheck/report.json").is_file(),
        "the [output] of the written config"
    );
}

#[test]
fn a_python_project_gets_python_m_and_a_workflow_that_installs_it() {
    let project = sample("python");
    let out = init(project.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = std::fs::read_to_string(project.path().join("mcpcheck.toml")).unwrap();
    assert!(
        config.contains("\nstdio = \"python -m sample_server\"\n"),
        "{config}"
    );
    let workflow =
        std::fs::read_to_string(project.path().join(".github/workflows/mcpcheck.yml")).unwrap();
    snapshot("init-python-workflow", &workflow);
    let out = run_there(project.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn nothing_is_overwritten_without_force() {
    let project = sample("node");
    std::fs::write(project.path().join("mcpcheck.toml"), "# mine\n").unwrap();
    let out = init(project.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("already there; nothing was written (--force overwrites)"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(project.path().join("mcpcheck.toml")).unwrap(),
        "# mine\n"
    );
    assert!(!project.path().join(".github").exists());
    assert_eq!(init(project.path(), &["--force"]).status.code(), Some(0));
    assert_ne!(
        std::fs::read_to_string(project.path().join("mcpcheck.toml")).unwrap(),
        "# mine\n"
    );
}

#[test]
fn a_folder_without_a_project_asks_for_the_server_or_takes_a_flag() {
    let empty = tempfile::tempdir().unwrap();
    let out = init(empty.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("give --stdio \"COMMAND\" or --url URL"),
        "{stderr}"
    );
    let out = init(empty.path(), &["--url", "http://127.0.0.1:3000/mcp"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = std::fs::read_to_string(empty.path().join("mcpcheck.toml")).unwrap();
    assert!(
        config.contains("\nurl = \"http://127.0.0.1:3000/mcp\"\n"),
        "{config}"
    );
}
