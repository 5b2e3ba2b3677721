//! `mcpcheck init`: the first CI run one commit away. Looks at the project in a folder (a
//! `package.json`, a `pyproject.toml`, a `Cargo.toml`), works out how its MCP server starts, and
//! writes an `mcpcheck.toml` and a GitHub workflow that builds the project and runs mcpcheck
//! once per change, adds the reports' folder to `.gitignore`, and prints the next steps as
//! commands to paste (install, build, `mcpcheck run`). Nothing is overwritten unless asked; when
//! nothing can be detected the user is asked (on a terminal) or told which flag to give.

use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where the GitHub Action lives, for the workflow `init` writes (`--action` names another: a
/// fork, or a pinned commit).
pub const DEFAULT_ACTION: &str = "mcpcheck/mcpcheck@v1";

/// How the server is reached, as `mcpcheck.toml` says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A command spoken to over stdio.
    Stdio(String),
    /// A URL of a running server (Streamable HTTP).
    Url(String),
}

/// What `init` found out about the project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// What kind of project, in words ("a Node project (package.json \"bin\")").
    pub found: String,
    /// How the server is reached.
    pub target: Target,
    /// The workflow's steps before mcpcheck runs (set up the toolchain, install, build), as
    /// YAML step blocks.
    pub setup: Vec<String>,
    /// What to run on this machine before `mcpcheck run` can start the server (install the
    /// project, build it), each with why; printed as the next steps.
    pub prepare: Vec<Prepare>,
}

/// A command the user runs before `mcpcheck run`, and why it is needed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prepare {
    /// The shell command.
    pub command: String,
    /// Why, in a few words.
    pub why: String,
}

impl Prepare {
    fn new(command: impl Into<String>, why: impl Into<String>) -> Prepare {
        Prepare {
            command: command.into(),
            why: why.into(),
        }
    }
}

/// The folder the written configuration puts its reports in, which `init` adds to `.gitignore`.
pub const REPORT_FOLDER: &str = "mcpcheck/";

/// The files `init` writes, relative to the project folder.
pub const CONFIG_FILE: &str = "mcpcheck.toml";
/// The workflow file.
pub const WORKFLOW_FILE: &str = ".github/workflows/mcpcheck.yml";

/// Why `init` wrote nothing (a usage error, exit 2).
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// `--dir` is not a folder.
    #[error("{} is not a folder", .0.display())]
    NotAFolder(PathBuf),
    /// A project file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A project file is not in its format.
    #[error("{}: not {format}: {message}", path.display())]
    Unparsable {
        /// The file.
        path: PathBuf,
        /// `JSON` or `TOML`.
        format: &'static str,
        /// The parser's words.
        message: String,
    },
    /// The server command is not words a shell would split.
    #[error("the server command `{command}` cannot be split into words: {message}")]
    Unsplittable {
        /// The command.
        command: String,
        /// The splitter's words.
        message: String,
    },
    /// A file to write is there and `--force` was not given.
    #[error("{} already there; nothing was written (--force overwrites)", .0.join(" and "))]
    AlreadyThere(Vec<String>),
    /// Nothing in the folder says how the server starts, and no one was there to ask.
    #[error("no package.json, pyproject.toml or Cargo.toml here says how the server starts; give --stdio \"COMMAND\" or --url URL")]
    NothingDetected,
    /// The answer at the prompt could not be read.
    #[error("cannot read the answer: {0}")]
    Answer(std::io::Error),
    /// A folder or file could not be written.
    #[error("cannot {what} {}: {source}", path.display())]
    Write {
        /// `create` (a folder) or `write` (a file).
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Works out how the project in `dir` starts its server: a Node, Python or Rust project, in that
/// order. `None` when none of them says.
pub fn detect(dir: &Path) -> Result<Option<Plan>, InitError> {
    if let Some(plan) = node(dir)? {
        return Ok(Some(plan));
    }
    if let Some(plan) = python(dir)? {
        return Ok(Some(plan));
    }
    rust(dir)
}

fn read(dir: &Path, name: &str) -> Result<Option<String>, InitError> {
    let path = dir.join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InitError::Read { path, source }),
    }
}

/// A project file that is not in its format.
fn unparsable(
    dir: &Path,
    name: &str,
    format: &'static str,
    e: impl std::fmt::Display,
) -> InitError {
    InitError::Unparsable {
        path: dir.join(name),
        format,
        message: e.to_string(),
    }
}

/// Whether a command line can be given to mcpcheck as it is: no shell syntax (mcpcheck splits
/// a command into words, it does not run a shell).
fn plain_command(command: &str) -> bool {
    !command.is_empty()
        && !command.contains(['&', '|', ';', '$', '>', '<', '`', '(', ')'])
        && shell_words::split(command).is_ok()
}

fn node(dir: &Path) -> Result<Option<Plan>, InitError> {
    let Some(text) = read(dir, "package.json")? else {
        return Ok(None);
    };
    let package: Value =
        serde_json::from_str(&text).map_err(|e| unparsable(dir, "package.json", "JSON", e))?;
    let name = package["name"].as_str().unwrap_or_default();
    let bin = match &package["bin"] {
        Value::String(path) => Some((name.to_string(), path.clone())),
        Value::Object(bins) => bins
            .get(name)
            .or_else(|| bins.values().next())
            .and_then(Value::as_str)
            .map(|path| {
                let key = bins
                    .iter()
                    .find(|(_, v)| v.as_str() == Some(path))
                    .map(|(k, _)| k.clone())
                    .unwrap_or_default();
                (key, path.to_string())
            }),
        _ => None,
    };
    let scripts = &package["scripts"];
    let start = scripts["start"].as_str();
    let (command, how) = if let Some((key, path)) = &bin {
        (
            format!("node {}", shell_words::quote(path.trim_start_matches("./"))),
            format!("package.json \"bin\" {key}"),
        )
    } else if let Some(start) = start {
        if plain_command(start) {
            (start.to_string(), "package.json start script".to_string())
        } else {
            (
                "npm start --silent".to_string(),
                "package.json start script, through npm".to_string(),
            )
        }
    } else if let Some(main) = package["main"].as_str() {
        (
            format!("node {}", shell_words::quote(main.trim_start_matches("./"))),
            "package.json \"main\"".to_string(),
        )
    } else {
        return Ok(None);
    };
    let install = if dir.join("pnpm-lock.yaml").exists() {
        "corepack enable && pnpm install --frozen-lockfile"
    } else if dir.join("yarn.lock").exists() {
        "corepack enable && yarn install --frozen-lockfile"
    } else if dir.join("package-lock.json").exists() {
        "npm ci"
    } else {
        "npm install"
    };
    let mut setup = vec![
        "      - uses: actions/setup-node@v4\n        with:\n          node-version: 22"
            .to_string(),
        format!("      - run: {install}"),
    ];
    let mut prepare = vec![Prepare::new(install, "the project's dependencies")];
    if scripts["build"].is_string() {
        setup.push("      - run: npm run build".to_string());
        prepare.push(Prepare::new(
            "npm run build",
            "what the server runs is built",
        ));
    }
    Ok(Some(Plan {
        found: format!("a Node project ({how})"),
        target: Target::Stdio(command),
        setup,
        prepare,
    }))
}

fn python(dir: &Path) -> Result<Option<Plan>, InitError> {
    let Some(text) = read(dir, "pyproject.toml")? else {
        return Ok(None);
    };
    let project: toml::Table =
        toml::from_str(&text).map_err(|e| unparsable(dir, "pyproject.toml", "TOML", e))?;
    let table = |path: &[&str]| -> Option<&toml::Table> {
        let mut at = &project;
        for key in path {
            at = at.get(*key)?.as_table()?;
        }
        Some(at)
    };
    let name = table(&["project"])
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .unwrap_or_default()
        .to_string();
    let scripts = table(&["project", "scripts"]).or_else(|| table(&["tool", "poetry", "scripts"]));
    let script = scripts.and_then(|s| {
        s.keys()
            .find(|k| **k == name)
            .or_else(|| s.keys().next())
            .cloned()
    });
    let uv = dir.join("uv.lock").exists();
    // `uv run` installs the project itself; pip's projects are installed first (a script exists
    // only once its project is, and a module needs its dependencies).
    let prepare = |what: String| {
        if uv {
            Vec::new()
        } else {
            vec![Prepare::new(
                "pip install -e .",
                format!("{what}, in the Python environment you work in (a virtual environment)"),
            )]
        }
    };
    let (command, how, prepare) = if let Some(script) = script {
        let command = if uv {
            format!("uv run {script}")
        } else {
            script.clone()
        };
        let why = format!("the script {script} exists once the project is installed");
        (
            command,
            format!("pyproject.toml script {script}"),
            prepare(why),
        )
    } else if let Some(module) = main_module(dir) {
        let command = if uv {
            format!("uv run python -m {module}")
        } else {
            format!("python -m {module}")
        };
        let why = "the server's dependencies".to_string();
        (command, format!("{module}/__main__.py"), prepare(why))
    } else {
        return Ok(None);
    };
    let mut setup = vec![
        "      - uses: actions/setup-python@v5\n        with:\n          python-version: \"3.12\""
            .to_string(),
    ];
    if uv {
        setup.push("      - uses: astral-sh/setup-uv@v6".to_string());
        setup.push("      - run: uv sync".to_string());
    } else {
        setup.push("      - run: pip install .".to_string());
    }
    Ok(Some(Plan {
        found: format!("a Python project ({how})"),
        target: Target::Stdio(command),
        setup,
        prepare,
    }))
}

/// A package with a `__main__.py`, at the top or under `src/`.
fn main_module(dir: &Path) -> Option<String> {
    let mut found: Vec<String> = [dir.to_path_buf(), dir.join("src")]
        .iter()
        .filter_map(|root| std::fs::read_dir(root).ok())
        .flatten()
        .flatten()
        .filter(|entry| entry.path().join("__main__.py").is_file())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    found.sort();
    found.into_iter().next()
}

fn rust(dir: &Path) -> Result<Option<Plan>, InitError> {
    let Some(text) = read(dir, "Cargo.toml")? else {
        return Ok(None);
    };
    let manifest: toml::Table =
        toml::from_str(&text).map_err(|e| unparsable(dir, "Cargo.toml", "TOML", e))?;
    let bins: Vec<String> = manifest
        .get("bin")
        .and_then(|b| b.as_array())
        .map(|bins| {
            bins.iter()
                .filter_map(|b| b.get("name")?.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let package = manifest
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str());
    let bin = match (bins.first(), package) {
        (Some(bin), _) => bin.clone(),
        (None, Some(name)) if dir.join("src/main.rs").is_file() => name.to_string(),
        _ => return Ok(None),
    };
    Ok(Some(Plan {
        found: format!("a Rust project (Cargo.toml binary {bin})"),
        target: Target::Stdio(format!("./target/release/{bin}")),
        setup: vec![format!("      - run: cargo build --release --bin {bin}")],
        prepare: vec![Prepare::new(
            format!("cargo build --release --bin {bin}"),
            "the binary mcpcheck starts",
        )],
    }))
}

/// The `mcpcheck.toml` for a plan.
pub fn config_text(plan: &Plan, profile: &str) -> String {
    let quoted = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut out = format!(
        "# mcpcheck.toml, written by `mcpcheck init` for {}.\n# `mcpcheck run` reads it; flags on the command line override it. docs/ci.md has every key.\n",
        plan.found
    );
    match &plan.target {
        Target::Stdio(command) => {
            let _ = writeln!(out, "stdio = {}", quoted(command));
            out.push_str("# env = { LOG_LEVEL = \"warning\" }   # the server's environment; `$NAME` is read from mcpcheck's\n");
        }
        Target::Url(url) => {
            let _ = writeln!(out, "url = {}", quoted(url));
            out.push_str("# serve = \"./my-server --port {port}\"   # or let mcpcheck start the server and wait for the port\n# headers = { Authorization = \"Bearer $MCP_TOKEN\" }   # redacted from every report\n");
        }
    }
    let _ = writeln!(
        out,
        "timeout = 5                    # seconds per request\ngrading-profile = {}   # the checks that count; a newer mcpcheck never re-grades until you move this\n# strict = true                 # warnings fail the run too\n# derived = \"warn\"              # JSON-RPC-derived checks (often inherited from an SDK) as warnings\n# baseline = \"mcpcheck-baseline.toml\"   # known failures: mcpcheck baseline mcpcheck/report.json > mcpcheck-baseline.toml\n\n[output]\njson = \"mcpcheck/report.json\"\nhtml = \"mcpcheck/report.html\"",
        quoted(profile)
    );
    out
}

/// The GitHub workflow for a plan.
pub fn workflow_text(plan: &Plan, action: &str, branch: &str) -> String {
    let mut out = format!(
        "# Written by `mcpcheck init`: checks the MCP server against the specification once per change:\n# on a push to {branch} and on every pull request. Failures and warnings show as annotations; the\n# report is in the job summary and the run's artifacts.\nname: MCP conformance\n\non:\n  push:\n    branches: [{branch}]\n  pull_request:\n\njobs:\n  mcpcheck:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n",
        branch = yaml_word(branch)
    );
    for step in &plan.setup {
        let _ = writeln!(out, "{step}");
    }
    if let Target::Url(_) = plan.target {
        out.push_str("      # Start the server here, in the background, before mcpcheck runs (or set `serve` in mcpcheck.toml).\n");
    }
    let _ = writeln!(
        out,
        "      - uses: {action}\n        with:\n          config: {CONFIG_FILE}"
    );
    out
}

/// A branch name as a YAML flow-sequence item: as it is when plain, else single-quoted.
fn yaml_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "''"))
    }
}

/// The branch a repository's changes land on: the remote's default branch when the clone knows
/// it, else the branch checked out, else `main`. Read from the `.git` folder (no git needed).
pub fn default_branch(dir: &Path) -> String {
    let git = dir.join(".git");
    let named = |file: &str, prefix: &str| -> Option<String> {
        let text = std::fs::read_to_string(git.join(file)).ok()?;
        let name = text.trim().strip_prefix("ref: ")?.strip_prefix(prefix)?;
        (!name.is_empty()).then(|| name.to_string())
    };
    named("refs/remotes/origin/HEAD", "refs/remotes/origin/")
        .or_else(|| named("HEAD", "refs/heads/"))
        .unwrap_or_else(|| "main".to_string())
}

/// Adds the reports' folder to the project's `.gitignore` (made if absent) unless a line
/// already names it; whether it was added.
fn ignore_reports(dir: &Path) -> Result<bool, InitError> {
    let path = dir.join(".gitignore");
    let text = read(dir, ".gitignore")?.unwrap_or_default();
    let folder = REPORT_FOLDER.trim_end_matches('/');
    let named = text.lines().map(str::trim).any(|line| {
        let line = line.trim_start_matches('/').trim_end_matches('/');
        line == folder || line == format!("{folder}/*") || line == format!("{folder}/**")
    });
    if named {
        return Ok(false);
    }
    let mut added = text;
    if !added.is_empty() && !added.ends_with('\n') {
        added.push('\n');
    }
    added.push_str(&format!(
        "# mcpcheck's reports (mcpcheck.toml [output])\n/{REPORT_FOLDER}\n"
    ));
    write(&path, &added)?;
    Ok(true)
}

/// The last of the next steps.
const MCPCHECK_RUN: &str = "mcpcheck run";

/// What `mcpcheck init` was asked.
pub struct Request<'a> {
    /// The project folder.
    pub dir: &'a Path,
    /// `--stdio`, instead of detecting.
    pub stdio: Option<&'a str>,
    /// `--url`, instead of detecting.
    pub url: Option<&'a str>,
    /// `--force`: overwrite files that are there.
    pub force: bool,
    /// `--action`.
    pub action: &'a str,
    /// The grading profile to pin.
    pub profile: &'a str,
}

/// Writes the files; returns what to tell the user, or a usage error.
pub fn init(request: &Request) -> Result<String, InitError> {
    if !request.dir.is_dir() {
        return Err(InitError::NotAFolder(request.dir.to_path_buf()));
    }
    let detected = detect(request.dir)?;
    let plan = match (request.stdio, request.url, detected) {
        (Some(command), _, detected) => Plan {
            found: detected
                .as_ref()
                .map_or("a server started with --stdio".into(), |p| p.found.clone()),
            target: Target::Stdio(command.to_string()),
            setup: detected
                .as_ref()
                .map(|p| p.setup.clone())
                .unwrap_or_default(),
            prepare: detected.map(|p| p.prepare).unwrap_or_default(),
        },
        (None, Some(url), detected) => Plan {
            found: detected
                .as_ref()
                .map_or("a server at --url".into(), |p| p.found.clone()),
            target: Target::Url(url.to_string()),
            setup: detected
                .as_ref()
                .map(|p| p.setup.clone())
                .unwrap_or_default(),
            prepare: detected.map(|p| p.prepare).unwrap_or_default(),
        },
        (None, None, Some(plan)) => plan,
        (None, None, None) => ask()?,
    };
    if let Target::Stdio(command) = &plan.target {
        shell_words::split(command).map_err(|e| InitError::Unsplittable {
            command: command.clone(),
            message: e.to_string(),
        })?;
    }
    let files: [(PathBuf, String); 2] = [
        (
            request.dir.join(CONFIG_FILE),
            config_text(&plan, request.profile),
        ),
        (
            request.dir.join(WORKFLOW_FILE),
            workflow_text(&plan, request.action, &default_branch(request.dir)),
        ),
    ];
    if !request.force {
        let there: Vec<String> = files
            .iter()
            .filter(|(path, _)| path.exists())
            .map(|(path, _)| path.display().to_string())
            .collect();
        if !there.is_empty() {
            return Err(InitError::AlreadyThere(there));
        }
    }
    for (path, text) in &files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| InitError::Write {
                what: "create",
                path: parent.to_path_buf(),
                source,
            })?;
        }
        write(path, text)?;
    }
    let ignored = ignore_reports(request.dir)?;
    let target = match &plan.target {
        Target::Stdio(command) => format!("stdio = {command}"),
        Target::Url(url) => format!("url = {url}"),
    };
    let mut out = format!(
        "found {}\nwrote {CONFIG_FILE} ({target})\nwrote {WORKFLOW_FILE} (on a push to {} and on pull requests: {}mcpcheck)\n",
        plan.found,
        default_branch(request.dir),
        if plan.setup.is_empty() {
            String::new()
        } else {
            "set up and build, then ".to_string()
        }
    );
    if ignored {
        let _ = writeln!(
            out,
            "added /{REPORT_FOLDER} to .gitignore (the reports' folder)"
        );
    }
    // The steps, one per line, as they can be pasted into a shell in the project folder.
    out.push_str("next, here:\n");
    let width = plan
        .prepare
        .iter()
        .map(|p| p.command.chars().count())
        .chain([MCPCHECK_RUN.len()])
        .max()
        .unwrap_or(0);
    for step in &plan.prepare {
        let _ = writeln!(out, "  {:width$}   # {}", step.command, step.why);
    }
    if let Target::Url(_) = plan.target {
        out.push_str("  # start the server at that URL (or set `serve` in mcpcheck.toml)\n");
    }
    let _ = writeln!(out, "  {MCPCHECK_RUN:width$}   # the verdict");
    let files = if ignored {
        format!("{CONFIG_FILE}, {WORKFLOW_FILE} and .gitignore")
    } else {
        format!("{CONFIG_FILE} and {WORKFLOW_FILE}")
    };
    let _ = writeln!(out, "then commit {files}");
    Ok(out)
}

/// Writes a file of the project.
fn write(path: &Path, text: &str) -> Result<(), InitError> {
    std::fs::write(path, text).map_err(|source| InitError::Write {
        what: "write",
        path: path.to_path_buf(),
        source,
    })
}

/// Asks on the terminal how the server starts; outside a terminal, says which flag to give.
fn ask() -> Result<Plan, InitError> {
    if !std::io::stdin().is_terminal() {
        return Err(InitError::NothingDetected);
    }
    eprint!("How does your MCP server start? A command (spoken to over stdio) or its URL: ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(InitError::Answer)?;
    let answer = line.trim();
    if answer.is_empty() {
        return Err(InitError::NothingDetected);
    }
    let target = if answer.starts_with("http://") || answer.starts_with("https://") {
        Target::Url(answer.to_string())
    } else {
        Target::Stdio(answer.to_string())
    };
    Ok(Plan {
        found: "a server named at the prompt".into(),
        target,
        setup: Vec::new(),
        prepare: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn a_start_script_with_shell_syntax_runs_through_npm_and_a_plain_one_as_it_is() {
        let dir = project(&[(
            "package.json",
            r#"{"name":"s","scripts":{"start":"tsc && node dist/index.js"}}"#,
        )]);
        let plan = detect(dir.path()).unwrap().unwrap();
        assert_eq!(plan.target, Target::Stdio("npm start --silent".into()));
        let dir = project(&[(
            "package.json",
            r#"{"name":"s","scripts":{"start":"node dist/index.js"}}"#,
        )]);
        let plan = detect(dir.path()).unwrap().unwrap();
        assert_eq!(plan.target, Target::Stdio("node dist/index.js".into()));
        assert!(plan.setup.iter().any(|s| s.contains("npm install")));
    }

    #[test]
    fn a_python_project_with_uv_runs_its_script_through_uv() {
        let dir = project(&[
            (
                "pyproject.toml",
                "[project]\nname = \"weather\"\n[project.scripts]\nweather = \"weather:main\"\n",
            ),
            ("uv.lock", ""),
        ]);
        let plan = detect(dir.path()).unwrap().unwrap();
        assert_eq!(plan.target, Target::Stdio("uv run weather".into()));
        assert!(plan.setup.iter().any(|s| s.contains("uv sync")));
        // `uv run` installs the project itself: nothing to do first.
        assert_eq!(plan.prepare, Vec::new());
    }

    #[test]
    fn a_rust_project_runs_its_release_binary() {
        let dir = project(&[
            ("Cargo.toml", "[package]\nname = \"my-server\"\n"),
            ("src/main.rs", "fn main() {}"),
        ]);
        let plan = detect(dir.path()).unwrap().unwrap();
        assert_eq!(
            plan.target,
            Target::Stdio("./target/release/my-server".into())
        );
        assert_eq!(
            plan.prepare[0].command,
            "cargo build --release --bin my-server"
        );
    }

    #[test]
    fn a_folder_without_a_project_detects_nothing() {
        let dir = project(&[("README.md", "hi")]);
        assert_eq!(detect(dir.path()).unwrap(), None);
    }

    #[test]
    fn a_command_with_quotes_is_written_as_a_valid_toml_string() {
        let plan = Plan {
            found: "x".into(),
            target: Target::Stdio(r#"node "my server.js""#.into()),
            setup: Vec::new(),
            prepare: Vec::new(),
        };
        let text = config_text(&plan, "2026.11");
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(parsed["stdio"].as_str(), Some(r#"node "my server.js""#));
    }

    #[test]
    fn the_default_branch_is_the_remote_s_then_the_checked_out_one_then_main() {
        let dir = project(&[("README.md", "hi")]);
        assert_eq!(default_branch(dir.path()), "main");
        let dir = project(&[(".git/HEAD", "ref: refs/heads/develop\n")]);
        assert_eq!(default_branch(dir.path()), "develop");
        let dir = project(&[
            (".git/HEAD", "ref: refs/heads/feature/x\n"),
            (
                ".git/refs/remotes/origin/HEAD",
                "ref: refs/remotes/origin/master\n",
            ),
        ]);
        assert_eq!(default_branch(dir.path()), "master");
        assert_eq!(yaml_word("feature/x"), "feature/x");
        assert_eq!(yaml_word("it's"), "'it''s'");
    }
}
