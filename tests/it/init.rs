//! `mcpcheck init` on sample Node, Python and Rust projects (tests/init), followed as a new
//! user follows it: it finds how the server starts, writes an mcpcheck.toml and a GitHub
//! workflow, and prints the next steps; each step is run as printed, in the project folder, and
//! the last, `mcpcheck run`, reaches a verdict with no flag at all.

use std::ffi::OsString;
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

/// Runs `mcpcheck init` in the project, then every step it printed under "next", as printed,
/// in a shell in the project folder, with `mcpcheck` (and `bin`, a virtual environment's, say)
/// on the PATH. Returns what init said and what the last step (`mcpcheck run`) printed.
fn init_and_follow(dir: &Path, bin: Option<&Path>) -> (String, String) {
    let out = init(dir, &[]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps: Vec<&str> = said
        .lines()
        .skip_while(|l| *l != "next, here:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split("   # ").next().unwrap().trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(steps.last(), Some(&"mcpcheck run"), "{said}");
    let mcpcheck_dir = PathBuf::from(env!("CARGO_BIN_EXE_mcpcheck"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut path: Vec<PathBuf> = bin.into_iter().map(Path::to_path_buf).collect();
    path.push(mcpcheck_dir);
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path: OsString = std::env::join_paths(path).unwrap();
    let mut last = String::new();
    for step in steps {
        let out = std::process::Command::new("sh")
            .args(["-c", step])
            .current_dir(dir)
            .env("PATH", &path)
            .env("MCPCHECK_SAMPLE_SERVER", reference_server())
            .env_remove("CARGO_TARGET_DIR")
            // The sample project builds as its author's would, without the lint wrapper that
            // mcpcheck's CI compiles mcpcheck with (.ci/run).
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("CLIPPY_ARGS")
            .env_remove("NO_COLOR")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .output()
            .expect("sh runs");
        last = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(
            out.status.code(),
            Some(0),
            "the printed step `{step}` failed:\n{last}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(
        last.contains("conforms to MCP"),
        "no verdict from `mcpcheck run`:\n{last}"
    );
    assert!(
        dir.join("mcpcheck/report.json").is_file(),
        "the [output] of the written config"
    );
    // The reports' folder is ignored, so that a run leaves nothing to commit by mistake.
    let ignore = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "/mcpcheck/"), "{ignore}");
    (said, last)
}

/// A virtual environment's bin folder, as an activated one puts on the PATH, with a guard that
/// keeps it to one test at a time. One is made per test process (one with a pip of its own costs
/// 6 s of CPU to make, and the projects installed into it have names of their own), in the
/// target's folder for test files, named by the process id; those of processes that have ended
/// are removed first.
fn virtual_environment() -> (std::sync::MutexGuard<'static, ()>, PathBuf) {
    static MADE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let bin = MADE.get_or_init(|| {
        let parent = Path::new(env!("CARGO_TARGET_TMPDIR"));
        for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let ended = name
                .to_str()
                .and_then(|n| n.strip_prefix("init-venv-"))
                .is_some_and(|pid| !Path::new("/proc").join(pid).exists());
            if ended {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        let dir = parent.join(format!("init-venv-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Where the Python that makes it has pip, the environment borrows it (its own `pip`
        // runs the system's pip module with the environment's Python, which installs into the
        // environment): 0.2 s of CPU instead of 6 s for pip's own install into it.
        let has_pip = std::process::Command::new("python3")
            .args(["-c", "import pip"])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let mut venv = std::process::Command::new("python3");
        venv.args(["-m", "venv"]);
        if has_pip {
            venv.args(["--without-pip", "--system-site-packages"]);
        }
        let status = venv.arg(&dir).status().expect("python3 runs");
        assert!(status.success());
        let bin = dir.join("bin");
        if has_pip {
            let pip = bin.join("pip");
            let script = format!(
                "#!{}\nimport sys\nfrom pip._internal.cli.main import main\nsys.exit(main())\n",
                bin.join("python").display()
            );
            std::fs::write(&pip, script).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&pip, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        bin
    });
    (turn, bin.clone())
}

#[test]
fn a_node_project_is_installed_built_and_run_by_its_bin() {
    let project = sample("node");
    let (said, verdict) = init_and_follow(project.path(), None);
    assert!(
        said.contains("found a Node project (package.json \"bin\" sample-node-server)"),
        "{said}"
    );
    assert!(said.contains("\n  npm ci "), "{said}");
    assert!(said.contains("\n  npm run build "), "{said}");
    let config = std::fs::read_to_string(project.path().join("mcpcheck.toml")).unwrap();
    assert!(
        config.contains("\nstdio = \"node server.js\"\n"),
        "{config}"
    );
    let workflow =
        std::fs::read_to_string(project.path().join(".github/workflows/mcpcheck.yml")).unwrap();
    snapshot("init-node-workflow", &workflow);
    assert!(verdict.contains("node server.js"), "{verdict}");
}

#[test]
fn a_python_module_is_installed_then_run_with_python_m() {
    let project = sample("python");
    let (_turn, bin) = virtual_environment();
    let (said, _) = init_and_follow(project.path(), Some(&bin));
    assert!(said.contains("\n  pip install -e . "), "{said}");
    let config = std::fs::read_to_string(project.path().join("mcpcheck.toml")).unwrap();
    assert!(
        config.contains("\nstdio = \"python -m sample_server\"\n"),
        "{config}"
    );
    let workflow =
        std::fs::read_to_string(project.path().join(".github/workflows/mcpcheck.yml")).unwrap();
    snapshot("init-python-workflow", &workflow);
}

#[test]
fn a_python_console_script_is_installed_before_it_is_run() {
    // The script exists only once the project is installed: init says so first.
    let project = sample("python-script");
    let (_turn, bin) = virtual_environment();
    let (said, _) = init_and_follow(project.path(), Some(&bin));
    assert!(
        said.contains("the script weather-mcp exists once the project is installed"),
        "{said}"
    );
    let config = std::fs::read_to_string(project.path().join("mcpcheck.toml")).unwrap();
    assert!(config.contains("\nstdio = \"weather-mcp\"\n"), "{config}");
}

#[test]
fn a_rust_project_is_built_then_its_binary_run() {
    let project = sample("rust");
    let (said, _) = init_and_follow(project.path(), None);
    assert!(
        said.contains("\n  cargo build --release --bin sample-rust-server "),
        "{said}"
    );
    let workflow =
        std::fs::read_to_string(project.path().join(".github/workflows/mcpcheck.yml")).unwrap();
    snapshot("init-rust-workflow", &workflow);
}

#[test]
fn the_workflow_runs_once_per_change_on_the_branch_the_clone_names() {
    let project = sample("node");
    std::fs::create_dir_all(project.path().join(".git")).unwrap();
    std::fs::write(project.path().join(".git/HEAD"), "ref: refs/heads/trunk\n").unwrap();
    std::fs::write(project.path().join(".gitignore"), "node_modules").unwrap();
    let out = init(project.path(), &[]);
    assert_eq!(out.status.code(), Some(0));
    let workflow =
        std::fs::read_to_string(project.path().join(".github/workflows/mcpcheck.yml")).unwrap();
    assert!(
        workflow.contains("on:\n  push:\n    branches: [trunk]\n  pull_request:\n"),
        "{workflow}"
    );
    // An existing .gitignore is added to, once.
    assert_eq!(
        std::fs::read_to_string(project.path().join(".gitignore")).unwrap(),
        "node_modules\n# mcpcheck's reports (mcpcheck.toml [output])\n/mcpcheck/\n"
    );
    assert_eq!(init(project.path(), &["--force"]).status.code(), Some(0));
    let ignore = std::fs::read_to_string(project.path().join(".gitignore")).unwrap();
    assert_eq!(ignore.matches("/mcpcheck/").count(), 1, "{ignore}");
}

#[test]
fn the_action_is_named_alike_by_init_the_readme_and_the_ci_guide() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let named = mcpcheck::cli::init::DEFAULT_ACTION;
    for doc in ["README.md", "docs/ci.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        let uses: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- uses: "))
            .map(|u| u.split_whitespace().next().unwrap())
            .filter(|u| u.contains("/mcpcheck@"))
            .collect();
        assert!(!uses.is_empty(), "{doc} shows no workflow using the Action");
        for used in uses {
            assert_eq!(used, named, "{doc} names the Action otherwise than init");
        }
    }
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
