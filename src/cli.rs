//! Command-line arguments (clap), the `mcpcheck.toml` config file, and their resolution into a
//! [`RunConfig`] plus what the binary does around the run (outputs, grading). Only the resolved
//! config reaches the engine; nothing below this module knows about flags.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use serde::Deserialize;

use crate::profile::{self, Profile};
use crate::protocol::version::KNOWN_VERSIONS;
use crate::report::grade::Baseline;
use crate::run::RunConfig;
use crate::scenario::load;
use crate::scenario::{LoadError, Scenario};
use crate::transport::serve::{free_port, ServeSpec, PORT_PLACEHOLDER};
use crate::transport::{HttpSpec, Limits, StdioSpec, Target};

/// mcpcheck: checks, requirement by requirement, whether an MCP server follows the spec.
#[derive(Debug, Parser)]
#[command(name = "mcpcheck", version, about, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the scenario library against a server.
    Run(Box<RunArgs>),
    /// List the checks.
    List(ListArgs),
    /// Say what a check sends, what it expects and why.
    Explain(ExplainArgs),
    /// Write a baseline (TOML, to stdout) listing every check that failed or warned in a JSON report.
    Baseline(BaselineArgs),
    /// Join the JSON reports of a sharded run into one report.
    Merge(Box<MergeArgs>),
    /// Run the suite against several servers and compare them in a servers × checks matrix.
    Compare(Box<CompareArgs>),
    /// The official MCP schema files, for `--official-schemas`.
    #[command(subcommand)]
    Schemas(SchemasCommand),
}

/// `mcpcheck schemas …`.
#[derive(Debug, Subcommand)]
pub enum SchemasCommand {
    /// Download every version's official schema.json from the specification repository at the
    /// pinned commit, check each against its pinned sha256, and write them as `<version>.json`
    /// into a folder for `--official-schemas`. Files already there with the right checksum are
    /// kept. Exit codes: 0 done, 1 a checksum did not match (nothing written for that file),
    /// 2 bad usage, 3 a download failed.
    Fetch(FetchArgs),
}

/// `mcpcheck schemas fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The folder to write to [default: $XDG_CACHE_HOME or ~/.cache, then
    /// mcpcheck/schemas/<commit>].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Only these protocol versions (repeatable) [default: all five].
    #[arg(long = "version", value_name = "VERSION", value_parser = parse_known_version)]
    pub versions: Vec<String>,
    /// Download from a mirror of the repository's raw files instead: the file of a version is
    /// `<URL>/<commit>/schema/<version>/schema.json`.
    #[arg(long, value_name = "URL", default_value = crate::check::official::DEFAULT_BASE)]
    pub from: String,
    /// Give up on a file after this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub timeout: u64,
}

fn parse_known_version(value: &str) -> Result<String, String> {
    if KNOWN_VERSIONS.contains(&value) {
        Ok(value.to_string())
    } else {
        Err(format!(
            "unknown protocol version `{value}`; known: {}",
            KNOWN_VERSIONS.join(", ")
        ))
    }
}

/// Which discovered tools mcpcheck may call (`--call-tools`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CallTools {
    /// Only tools annotated `readOnlyHint: true`.
    ReadOnly,
    /// Any listed tool.
    All,
}

/// Which scenarios to load.
#[derive(Debug, Default, Args)]
pub struct ScenarioArgs {
    /// Also load scenario files (*.toml, recursively) from DIR; repeatable.
    #[arg(long = "scenarios", value_name = "DIR")]
    pub scenarios: Vec<PathBuf>,
    /// Leave out the built-in scenario library (run only --scenarios).
    #[arg(long)]
    pub no_builtin: bool,
}

/// `mcpcheck run`.
#[derive(Debug, Default, Args)]
pub struct RunArgs {
    /// Start the server with this command and speak to it over stdio (shell-style quoting).
    #[arg(long, value_name = "COMMAND", conflicts_with = "url")]
    pub stdio: Option<String>,
    /// Speak Streamable HTTP to the server at this URL.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// With --url: the URL is the SSE endpoint of the deprecated 2024-11-05 HTTP+SSE transport
    /// (a GET stream whose `endpoint` event names where to POST), not Streamable HTTP.
    #[arg(long, requires = "url")]
    pub legacy_sse: bool,
    /// With --url: start this HTTP server command first (in its own process group), wait until
    /// the URL's port accepts connections, and stop it afterwards. `{port}` in the command and
    /// the URL becomes a free port.
    #[arg(long, value_name = "COMMAND", requires = "url")]
    pub serve: Option<String>,
    /// Seconds the --serve command may take to start listening [default: 30].
    #[arg(long, value_name = "SECS")]
    pub serve_timeout: Option<f64>,
    /// An environment variable for the stdio (or --serve) server; `K=$VAR` takes the value from mcpcheck's
    /// environment and redacts it from all output. Repeatable.
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    /// The working directory of the stdio (or --serve) server.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// An HTTP header sent with every request, e.g. "Authorization: Bearer $TOKEN" ($NAME is
    /// taken from the environment). Values are redacted from all output. Repeatable.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Seconds to wait for the answer to one request [default: 5].
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Seconds the whole run may take; unfinished checks are reported as errors [default: 300].
    #[arg(long, value_name = "SECS")]
    pub run_timeout: Option<f64>,
    /// Seconds a stdio server may take to answer its first request, while it starts (an
    /// interpreter, `npx`, …); later requests get --timeout [default: 20].
    #[arg(long, value_name = "SECS")]
    pub startup_timeout: Option<f64>,
    /// Seconds a stdio server may take to exit after its stdin closes, before SIGTERM [default: 2].
    #[arg(long, value_name = "SECS")]
    pub exit_grace: Option<f64>,
    /// The largest frame (stdio line, HTTP body) read, in bytes [default: 4194304].
    #[arg(long, value_name = "BYTES")]
    pub max_frame_bytes: Option<usize>,
    /// Use this protocol version instead of negotiating the newest.
    #[arg(long, value_name = "VERSION")]
    pub spec_version: Option<String>,
    /// Also run the fixture checks of this profile: `everything` calls the official conformance
    /// suite's fixture tools, resources and prompts (`test_simple_text`, `test://static-text`, …),
    /// which the server must implement.
    #[arg(long = "profile", value_name = "PROFILE", value_parser = ["everything"])]
    pub fixture_profile: Option<String>,
    /// Also validate every result with the official schema files in DIR (`<version>.json`, as
    /// published under schema/<version>/schema.json in the specification repository).
    #[arg(long, value_name = "DIR")]
    pub official_schemas: Option<PathBuf>,
    /// Allow mcpcheck to call tools the server lists (never done otherwise): `read-only` only
    /// those annotated `readOnlyHint: true`, `all` any. One tool is called, with arguments its
    /// inputSchema forbids, to see that the server validates them.
    #[arg(long, value_name = "WHICH", value_enum)]
    pub call_tools: Option<CallTools>,
    /// Run only these checks (an id, or a prefix ending in `*`); repeatable.
    #[arg(long = "check", value_name = "ID")]
    pub only: Vec<String>,
    /// How many scenarios run at once (default: twice the number of cores, at least 4; scenarios
    /// mostly wait on the server).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Where reports go.
    #[command(flatten)]
    pub output: OutputArgs,
    /// How the run is graded.
    #[command(flatten)]
    pub grading: GradingArgs,
    /// Run only shard K of N (e.g. `2/4`): a stable slice of the scenarios, for CI matrix jobs;
    /// join the JSON reports with `mcpcheck merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Read settings from this file instead of ./mcpcheck.toml; flags override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print only the verdict line, not the table or progress.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print every frame sent and received (to stderr, secrets redacted).
    #[arg(short, long)]
    pub verbose: bool,
    /// Which scenarios.
    #[command(flatten)]
    pub scenarios: ScenarioArgs,
    /// Set by `compare`: never read ./mcpcheck.toml.
    #[arg(skip)]
    pub ignore_config_file: bool,
}

/// `mcpcheck compare`.
#[derive(Debug, Default, Args)]
pub struct CompareArgs {
    /// A servers file: `[[server]]` tables with `name` and `stdio` or `url` (and `env`, `cwd`,
    /// `headers`, as in mcpcheck.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// A server to start and speak to over stdio; repeatable.
    #[arg(long, value_name = "COMMAND")]
    pub stdio: Vec<String>,
    /// A server at this URL; repeatable.
    #[arg(long, value_name = "URL")]
    pub url: Vec<String>,
    /// Names for the command-line servers, in order (stdio ones first); default `server-N`.
    #[arg(long = "name", value_name = "NAME")]
    pub names: Vec<String>,
    /// How many servers are checked at once (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Check only shard K of N of the servers (e.g. `2/4`), for CI matrix jobs.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Seconds to wait for the answer to one request [default: 5].
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Seconds a stdio server may take to answer its first request [default: 20].
    #[arg(long, value_name = "SECS")]
    pub startup_timeout: Option<f64>,
    /// Also run the fixture checks of this profile (`everything`) against every server.
    #[arg(long = "profile", value_name = "PROFILE", value_parser = ["everything"])]
    pub fixture_profile: Option<String>,
    /// Use this protocol version with every server instead of negotiating.
    #[arg(long, value_name = "VERSION")]
    pub spec_version: Option<String>,
    /// Compare only these checks (an id, or a prefix ending in `*`); repeatable.
    #[arg(long = "check", value_name = "ID")]
    pub only: Vec<String>,
    /// Write the matrix (and every server's report) as JSON to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the matrix as Markdown to FILE.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write the matrix as a self-contained HTML page to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Which scenarios.
    #[command(flatten)]
    pub scenarios: ScenarioArgs,
}

/// A `[[server]]` of a compare servers file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ServerFile {
    /// The column name.
    pub name: String,
    /// `--stdio`.
    pub stdio: Option<String>,
    /// `--url`.
    pub url: Option<String>,
    /// `--legacy-sse`.
    #[serde(default)]
    pub legacy_sse: bool,
    /// `--serve`.
    pub serve: Option<String>,
    /// `--serve-timeout`.
    pub serve_timeout: Option<f64>,
    /// `--startup-timeout`.
    pub startup_timeout: Option<f64>,
    /// `--exit-grace`.
    pub exit_grace: Option<f64>,
    /// `--env`.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// `--cwd`.
    pub cwd: Option<PathBuf>,
    /// `--header`.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServersFile {
    #[serde(default)]
    server: Vec<ServerFile>,
}

/// Parses `K/N`.
fn parse_shard(text: &str) -> Result<(usize, usize), UsageError> {
    let parsed = text.split_once('/').and_then(|(k, n)| {
        Some((
            k.trim().parse::<usize>().ok()?,
            n.trim().parse::<usize>().ok()?,
        ))
    });
    match parsed {
        Some((k, n)) if n >= 1 && (1..=n).contains(&k) => Ok((k, n)),
        _ => Err(UsageError::Flag(format!(
            "--shard `{text}`: expected K/N with 1 <= K <= N, e.g. 2/4"
        ))),
    }
}

impl CompareArgs {
    /// Resolves the servers into compare entries, with the secrets to redact per server.
    pub fn resolve(&self) -> Result<Vec<(crate::compare::Entry, Vec<String>)>, UsageError> {
        let mut servers: Vec<ServerFile> = Vec::new();
        if let Some(path) = &self.config {
            let text = std::fs::read_to_string(path)
                .map_err(|e| UsageError::Flag(format!("cannot read {}: {e}", path.display())))?;
            let file: ServersFile = toml::from_str(&text).map_err(|e| {
                let offset = e.span().map_or(0, |s| s.start).min(text.len());
                UsageError::Flag(format!(
                    "{}:{}: {}",
                    path.display(),
                    text[..offset].matches('\n').count() + 1,
                    e.message().trim_end()
                ))
            })?;
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            for mut server in file.server {
                server.cwd = server
                    .cwd
                    .map(|c| if c.is_relative() { base.join(c) } else { c });
                servers.push(server);
            }
        }
        let mut names = self.names.iter();
        let cli_targets = self
            .stdio
            .iter()
            .map(|c| (Some(c.clone()), None))
            .chain(self.url.iter().map(|u| (None, Some(u.clone()))));
        for (stdio, url) in cli_targets {
            let name = names
                .next()
                .cloned()
                .unwrap_or_else(|| format!("server-{}", servers.len() + 1));
            servers.push(ServerFile {
                name,
                stdio,
                url,
                legacy_sse: false,
                serve: None,
                serve_timeout: None,
                startup_timeout: None,
                exit_grace: None,
                env: BTreeMap::new(),
                cwd: None,
                headers: BTreeMap::new(),
            });
        }
        if servers.is_empty() {
            return Err(UsageError::Flag(
                "give servers with --stdio / --url (repeatable) or --config servers.toml".into(),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = servers.iter().find(|s| !seen.insert(s.name.clone())) {
            return Err(UsageError::Flag(format!(
                "two servers are named `{}`",
                dup.name
            )));
        }
        if let Some(shard) = &self.shard {
            let (k, n) = parse_shard(shard)?;
            servers = servers
                .into_iter()
                .enumerate()
                .filter(|(i, _)| i % n == k - 1)
                .map(|(_, s)| s)
                .collect();
        }
        let mut entries = Vec::new();
        for server in servers {
            let args = RunArgs {
                stdio: server.stdio,
                url: server.url,
                legacy_sse: server.legacy_sse,
                serve: server.serve,
                serve_timeout: server.serve_timeout,
                env: server
                    .env
                    .into_iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect(),
                cwd: server.cwd,
                headers: server
                    .headers
                    .into_iter()
                    .map(|(k, v)| format!("{k}: {v}"))
                    .collect(),
                timeout: self.timeout,
                startup_timeout: server.startup_timeout.or(self.startup_timeout),
                exit_grace: server.exit_grace,
                fixture_profile: self.fixture_profile.clone(),
                spec_version: self.spec_version.clone(),
                only: self.only.clone(),
                scenarios: ScenarioArgs {
                    scenarios: self.scenarios.scenarios.clone(),
                    no_builtin: self.scenarios.no_builtin,
                },
                ignore_config_file: true,
                quiet: true,
                ..RunArgs::default()
            };
            let resolved = args
                .resolve()
                .map_err(|e| UsageError::Flag(format!("server `{}`: {e}", server.name)))?;
            entries.push((
                crate::compare::Entry {
                    name: server.name,
                    config: resolved.config,
                },
                resolved.secrets,
            ));
        }
        Ok(entries)
    }
}

/// The report files to write.
#[derive(Debug, Default, Args)]
pub struct OutputArgs {
    /// Write the report as JSON to FILE (`-` for stdout; the table then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write a Markdown report to FILE (fits $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write a self-contained HTML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write a shields.io endpoint badge (JSON) to FILE.
    #[arg(long, value_name = "FILE")]
    pub badge: Option<PathBuf>,
    /// Write the official conformance suite's checks.json shape into DIR.
    #[arg(long, value_name = "DIR")]
    pub official_json: Option<PathBuf>,
}

/// How verdicts are graded into an exit code.
#[derive(Debug, Default, Args)]
pub struct GradingArgs {
    /// Warnings fail the run too.
    #[arg(long)]
    pub strict: bool,
    /// Known failures (a TOML file from `mcpcheck baseline`): listed failures do not fail the run;
    /// an unlisted one does; a listed check that passes is stale and fails the run.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// The grading profile: the set of checks that count toward the verdict [default: the newest].
    #[arg(long, value_name = "VERSION")]
    pub profile_version: Option<String>,
}

/// Strictness, the baseline with its path, and the profile.
pub type GradingParts = (bool, Option<(Baseline, String)>, &'static Profile);

impl GradingArgs {
    /// Resolves the profile and reads the baseline.
    pub fn resolve(&self) -> Result<GradingParts, UsageError> {
        let profile = match &self.profile_version {
            None => profile::latest(),
            Some(name) => profile::find(name).ok_or_else(|| {
                UsageError::Flag(format!(
                    "--profile-version `{name}` is not a profile (known: {})",
                    profile::PROFILES
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?,
        };
        let baseline = match &self.baseline {
            Some(path) => Some((
                Baseline::load(path).map_err(UsageError::Flag)?,
                path.display().to_string(),
            )),
            None => None,
        };
        Ok((self.strict, baseline, profile))
    }
}

/// `mcpcheck merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The JSON reports of the shards of one run (`mcpcheck run --shard K/N --json …`).
    #[arg(required = true, value_name = "REPORT.json")]
    pub reports: Vec<PathBuf>,
    /// Where the merged report goes.
    #[command(flatten)]
    pub output: OutputArgs,
    /// How the merged run is graded.
    #[command(flatten)]
    pub grading: GradingArgs,
    /// Print only the verdict line.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `mcpcheck list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Which scenarios.
    #[command(flatten)]
    pub scenarios: ScenarioArgs,
}

/// `mcpcheck explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The check id (see `mcpcheck list`).
    #[arg(value_name = "ID")]
    pub id: String,
    /// Which scenarios.
    #[command(flatten)]
    pub scenarios: ScenarioArgs,
}

/// `mcpcheck baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// A JSON report written by `mcpcheck run --json`.
    #[arg(value_name = "REPORT.json")]
    pub report: PathBuf,
}

/// A usage problem: a bad flag value, a bad config or baseline file, or bad scenario files.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A flag's value is wrong.
    #[error("{0}")]
    Flag(String),
    /// Scenario files are wrong.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n\n"))]
    Scenarios(Vec<LoadError>),
}

/// `mcpcheck.toml`: the same settings as the flags, so that a CI job is just `mcpcheck run`.
/// Relative paths are relative to the file's directory.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ConfigFile {
    /// `--stdio`.
    pub stdio: Option<String>,
    /// `--url`.
    pub url: Option<String>,
    /// `--legacy-sse`.
    #[serde(default)]
    pub legacy_sse: bool,
    /// `--serve`.
    pub serve: Option<String>,
    /// `--serve-timeout`.
    pub serve_timeout: Option<f64>,
    /// `--env`, as a table.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// `--cwd`.
    pub cwd: Option<PathBuf>,
    /// `--header`, as a table.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// `--timeout`.
    pub timeout: Option<f64>,
    /// `--run-timeout`.
    pub run_timeout: Option<f64>,
    /// `--startup-timeout`.
    pub startup_timeout: Option<f64>,
    /// `--exit-grace`.
    pub exit_grace: Option<f64>,
    /// `--profile`.
    pub profile: Option<String>,
    /// `--official-schemas`.
    pub official_schemas: Option<PathBuf>,
    /// `--call-tools`.
    pub call_tools: Option<CallTools>,
    /// `--max-frame-bytes`.
    pub max_frame_bytes: Option<usize>,
    /// `--spec-version`.
    pub spec_version: Option<String>,
    /// `--check`.
    #[serde(default)]
    pub checks: Vec<String>,
    /// `--jobs`.
    pub jobs: Option<usize>,
    /// `--scenarios`.
    #[serde(default)]
    pub scenarios: Vec<PathBuf>,
    /// `--no-builtin`.
    #[serde(default)]
    pub no_builtin: bool,
    /// `--strict`.
    #[serde(default)]
    pub strict: bool,
    /// `--baseline`.
    pub baseline: Option<PathBuf>,
    /// `--profile-version`.
    pub profile_version: Option<String>,
    /// The outputs.
    #[serde(default)]
    pub output: OutputFile,
}

/// The `[output]` table of `mcpcheck.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OutputFile {
    /// `--json`.
    pub json: Option<PathBuf>,
    /// `--junit`.
    pub junit: Option<PathBuf>,
    /// `--markdown`.
    pub markdown: Option<PathBuf>,
    /// `--html`.
    pub html: Option<PathBuf>,
    /// `--badge`.
    pub badge: Option<PathBuf>,
    /// `--official-json`.
    pub official_json: Option<PathBuf>,
}

impl ConfigFile {
    /// Reads a config file; errors read `path:line: message`.
    pub fn load(path: &Path) -> Result<ConfigFile, UsageError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| UsageError::Flag(format!("cannot read {}: {e}", path.display())))?;
        let mut config: ConfigFile = toml::from_str(&text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start).min(text.len());
            let line = text[..offset].matches('\n').count() + 1;
            UsageError::Flag(format!(
                "{}:{line}: {}",
                path.display(),
                e.message().trim_end()
            ))
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let rebase = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        config.cwd.iter_mut().for_each(rebase);
        config.scenarios.iter_mut().for_each(rebase);
        config.baseline.iter_mut().for_each(rebase);
        config.official_schemas.iter_mut().for_each(rebase);
        let o = &mut config.output;
        for p in [
            &mut o.json,
            &mut o.junit,
            &mut o.markdown,
            &mut o.html,
            &mut o.badge,
            &mut o.official_json,
        ]
        .into_iter()
        .flatten()
        {
            if p.as_os_str() != "-" {
                rebase(p);
            }
        }
        Ok(config)
    }
}

/// Everything `mcpcheck run` needs, resolved.
#[derive(Debug)]
pub struct Resolved {
    /// What the engine runs.
    pub config: RunConfig,
    /// Values to redact from every output.
    pub secrets: Vec<String>,
    /// Where reports go.
    pub outputs: OutputArgs,
    /// Whether warnings fail the run.
    pub strict: bool,
    /// The baseline and its path.
    pub baseline: Option<(Baseline, String)>,
    /// The grading profile.
    pub profile: &'static Profile,
    /// Verdict line only.
    pub quiet: bool,
    /// Print every frame.
    pub verbose: bool,
}

/// Loads the built-in library and the user's directories, and checks ids are unique.
pub fn load_scenarios(args: &ScenarioArgs) -> Result<Vec<Scenario>, UsageError> {
    let mut scenarios = if args.no_builtin {
        Vec::new()
    } else {
        load::library().map_err(UsageError::Scenarios)?
    };
    for dir in &args.scenarios {
        scenarios.extend(load::load_dir(dir).map_err(UsageError::Scenarios)?);
    }
    load::check_unique(&scenarios, &crate::check::wire::ids()).map_err(UsageError::Scenarios)?;
    Ok(scenarios)
}

/// Expands `$NAME` and `${NAME}` from the environment; returns the text and whether anything came
/// from the environment.
/// Parses `--env K=V` pairs (expanding `$VAR`, whose values become secrets).
fn parse_env(
    pairs: &[String],
    secrets: &mut Vec<String>,
) -> Result<Vec<(String, String)>, UsageError> {
    let mut env = Vec::new();
    for pair in pairs {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| UsageError::Flag(format!("--env `{pair}`: expected K=V")))?;
        let (value, from_env) = expand_env(value, "--env")?;
        if from_env {
            secrets.push(value.clone());
        }
        env.push((key.to_string(), value));
    }
    Ok(env)
}

fn expand_env(text: &str, what: &str) -> Result<(String, bool), UsageError> {
    let mut out = String::new();
    let mut rest = text;
    let mut used = false;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, tail) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => (&braced[..end], &braced[end + 1..]),
                None => {
                    return Err(UsageError::Flag(format!(
                        "{what}: unclosed `${{` in `{text}`"
                    )))
                }
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if name.is_empty() {
            out.push('$');
        } else {
            let value = std::env::var(name).map_err(|_| {
                UsageError::Flag(format!("{what}: environment variable `{name}` is not set"))
            })?;
            out.push_str(&value);
            used = true;
        }
        rest = tail;
    }
    out.push_str(rest);
    Ok((out, used))
}

fn seconds(value: f64, flag: &str) -> Result<Duration, UsageError> {
    if value.is_finite() && value > 0.0 {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(UsageError::Flag(format!(
            "{flag} must be a positive number of seconds"
        )))
    }
}

impl RunArgs {
    /// Merges `mcpcheck.toml` (from `--config`, or the working directory) under the flags.
    fn merge_config(mut self) -> Result<RunArgs, UsageError> {
        let path = match &self.config {
            Some(path) => path.clone(),
            None if !self.ignore_config_file && Path::new("mcpcheck.toml").is_file() => {
                PathBuf::from("mcpcheck.toml")
            }
            None => return Ok(self),
        };
        let file = ConfigFile::load(&path)?;
        if self.stdio.is_none() && self.url.is_none() {
            if file.stdio.is_some() && file.url.is_some() {
                return Err(UsageError::Flag(format!(
                    "{}: set `stdio` or `url`, not both",
                    path.display()
                )));
            }
            self.stdio = file.stdio;
            self.url = file.url;
            self.legacy_sse = file.legacy_sse;
            self.serve = file.serve;
        }
        self.serve_timeout = self.serve_timeout.or(file.serve_timeout);
        if self.env.is_empty() {
            self.env = file
                .env
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
        }
        if self.headers.is_empty() {
            self.headers = file
                .headers
                .into_iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect();
        }
        if self.only.is_empty() {
            self.only = file.checks;
        }
        if self.scenarios.scenarios.is_empty() {
            self.scenarios.scenarios = file.scenarios;
        }
        self.scenarios.no_builtin |= file.no_builtin;
        self.grading.strict |= file.strict;
        self.cwd = self.cwd.or(file.cwd);
        self.timeout = self.timeout.or(file.timeout);
        self.run_timeout = self.run_timeout.or(file.run_timeout);
        self.exit_grace = self.exit_grace.or(file.exit_grace);
        self.startup_timeout = self.startup_timeout.or(file.startup_timeout);
        self.max_frame_bytes = self.max_frame_bytes.or(file.max_frame_bytes);
        self.spec_version = self.spec_version.or(file.spec_version);
        self.fixture_profile = self.fixture_profile.or(file.profile);
        self.official_schemas = self.official_schemas.or(file.official_schemas);
        self.call_tools = self.call_tools.or(file.call_tools);
        self.jobs = self.jobs.or(file.jobs);
        self.grading.baseline = self.grading.baseline.or(file.baseline);
        self.grading.profile_version = self.grading.profile_version.or(file.profile_version);
        let (o, out) = (file.output, &mut self.output);
        out.json = out.json.take().or(o.json);
        out.junit = out.junit.take().or(o.junit);
        out.markdown = out.markdown.take().or(o.markdown);
        out.html = out.html.take().or(o.html);
        out.badge = out.badge.take().or(o.badge);
        out.official_json = out.official_json.take().or(o.official_json);
        Ok(self)
    }

    /// Resolves flags and config file into what a run needs.
    pub fn resolve(self) -> Result<Resolved, UsageError> {
        let args = self.merge_config()?;
        let scenarios = load_scenarios(&args.scenarios)?;
        let mut secrets = Vec::new();
        let target = match (&args.stdio, &args.url) {
            (Some(command), None) => {
                let argv = shell_words::split(command)
                    .map_err(|e| UsageError::Flag(format!("--stdio: {e}")))?;
                if argv.is_empty() {
                    return Err(UsageError::Flag("--stdio needs a command".into()));
                }
                Target::Stdio(StdioSpec {
                    argv,
                    env: parse_env(&args.env, &mut secrets)?,
                    cwd: args.cwd.clone(),
                })
            }
            (None, Some(url)) => {
                let mut url = url.clone();
                let serve = match &args.serve {
                    None => None,
                    Some(command) => {
                        let mut command = command.clone();
                        if command.contains(PORT_PLACEHOLDER) || url.contains(PORT_PLACEHOLDER) {
                            let port = free_port()
                                .map_err(|e| {
                                    UsageError::Flag(format!("--serve: no free port: {e}"))
                                })?
                                .to_string();
                            command = command.replace(PORT_PLACEHOLDER, &port);
                            url = url.replace(PORT_PLACEHOLDER, &port);
                        }
                        let argv = shell_words::split(&command)
                            .map_err(|e| UsageError::Flag(format!("--serve: {e}")))?;
                        if argv.is_empty() {
                            return Err(UsageError::Flag("--serve needs a command".into()));
                        }
                        let startup_timeout = args.serve_timeout.unwrap_or(30.0);
                        Some(ServeSpec {
                            command: StdioSpec {
                                argv,
                                env: parse_env(&args.env, &mut secrets)?,
                                cwd: args.cwd.clone(),
                            },
                            startup_timeout: seconds(startup_timeout, "--serve-timeout")?,
                        })
                    }
                };
                let url = &url;
                crate::transport::http::parse_url(url)
                    .map_err(|e| UsageError::Flag(format!("--url: {e}")))?;
                let mut headers = Vec::new();
                for header in &args.headers {
                    let (name, value) = header.split_once(':').ok_or_else(|| {
                        UsageError::Flag(format!("--header `{header}`: expected `Name: value`"))
                    })?;
                    let name = name.trim();
                    if name.is_empty()
                        || !name
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
                    {
                        return Err(UsageError::Flag(format!(
                            "--header `{header}`: `{name}` is not a valid header name"
                        )));
                    }
                    let (value, _) = expand_env(value.trim(), "--header")?;
                    secrets.push(value.clone());
                    if let Some(token) = value.split_once(' ').map(|(_, t)| t.trim()) {
                        secrets.push(token.to_string());
                    }
                    headers.push((name.to_string(), value));
                }
                Target::Http(HttpSpec {
                    url: url.clone(),
                    legacy_sse: args.legacy_sse,
                    headers,
                    serve,
                })
            }
            _ => {
                return Err(UsageError::Flag(
                    "give --stdio COMMAND or --url URL (or set `stdio` or `url` in mcpcheck.toml)"
                        .into(),
                ))
            }
        };
        if matches!(target, Target::Stdio(_)) {
            let misplaced = [
                (!args.headers.is_empty(), "--header"),
                (args.legacy_sse, "--legacy-sse"),
                (args.serve.is_some(), "--serve"),
            ];
            if let Some((_, flag)) = misplaced.iter().find(|(set, _)| *set) {
                return Err(UsageError::Flag(format!("{flag} goes with --url")));
            }
        }
        if matches!(target, Target::Http(_)) && (!args.env.is_empty() || args.cwd.is_some()) {
            return Err(UsageError::Flag("--env and --cwd go with --stdio".into()));
        }
        if let Some(version) = &args.spec_version {
            if !KNOWN_VERSIONS.contains(&version.as_str()) {
                return Err(UsageError::Flag(format!(
                    "--spec-version `{version}` is not a known protocol version ({})",
                    KNOWN_VERSIONS.join(", ")
                )));
            }
        }
        if args.jobs == Some(0) {
            return Err(UsageError::Flag("--jobs must be at least 1".into()));
        }
        let (strict, baseline, profile) = args.grading.resolve()?;
        let shard = args.shard.as_deref().map(parse_shard).transpose()?;
        let limits = Limits {
            request_timeout: seconds(args.timeout.unwrap_or(5.0), "--timeout")?,
            max_frame_bytes: args.max_frame_bytes.unwrap_or(4 << 20).max(1024),
            exit_grace: seconds(args.exit_grace.unwrap_or(2.0), "--exit-grace")?,
            startup_timeout: seconds(args.startup_timeout.unwrap_or(20.0), "--startup-timeout")?,
            ..Limits::default()
        };
        let jobs = args.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get() * 2)
                .unwrap_or(4)
                .max(4)
        });
        // A pattern that selects nothing would make a green run that checked nothing.
        for pattern in &args.only {
            let known = scenarios
                .iter()
                .flat_map(|s| s.checks.iter().map(|c| c.def.id.as_str()))
                .chain(crate::check::wire::ids())
                .any(|id| crate::run::pattern_matches(pattern, id));
            if !known {
                return Err(UsageError::Flag(format!(
                    "--check `{pattern}` matches no check (an id, or a prefix ending in `*`; see `mcpcheck list`)"
                )));
            }
        }
        if let Some(profile) = &args.fixture_profile {
            if !load::FIXTURE_PROFILES.contains(&profile.as_str()) {
                return Err(UsageError::Flag(format!(
                    "unknown fixture profile `{profile}`; use {}",
                    load::FIXTURE_PROFILES.join(", ")
                )));
            }
        }
        let config = RunConfig {
            target,
            limits,
            spec_version: args.spec_version.clone(),
            jobs,
            run_timeout: seconds(args.run_timeout.unwrap_or(300.0), "--run-timeout")?,
            scenarios,
            only: args.only.clone(),
            observer: None,
            shard,
            fixture_profile: args.fixture_profile.clone(),
            call_tools: args.call_tools,
            official_schemas: match &args.official_schemas {
                None => None,
                Some(dir) => Some(std::sync::Arc::new(
                    crate::check::messages::OfficialSchemas::load(dir).map_err(UsageError::Flag)?,
                )),
            },
        };
        Ok(Resolved {
            config,
            secrets,
            outputs: args.output,
            strict,
            baseline,
            profile,
            quiet: args.quiet,
            verbose: args.verbose,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> RunArgs {
        let mut argv = vec!["mcpcheck", "run", "--no-builtin"];
        argv.extend_from_slice(extra);
        match Cli::try_parse_from(argv).unwrap().command {
            Command::Run(run) => *run,
            _ => unreachable!(),
        }
    }

    #[test]
    fn stdio_commands_split_like_a_shell() {
        let resolved = args(&["--stdio", "python -m 'my server' --flag"])
            .resolve()
            .unwrap();
        let Target::Stdio(spec) = resolved.config.target else {
            panic!()
        };
        assert_eq!(spec.argv, ["python", "-m", "my server", "--flag"]);
    }

    #[test]
    fn header_values_from_the_environment_are_secrets() {
        std::env::set_var("MCPCHECK_TEST_TOKEN", "tok-123456");
        let resolved = args(&[
            "--url",
            "http://127.0.0.1:1/mcp",
            "-H",
            "Authorization: Bearer $MCPCHECK_TEST_TOKEN",
        ])
        .resolve()
        .unwrap();
        let Target::Http(spec) = resolved.config.target else {
            panic!()
        };
        assert_eq!(
            spec.headers,
            [("Authorization".to_string(), "Bearer tok-123456".to_string())]
        );
        assert!(resolved.secrets.contains(&"tok-123456".to_string()));
        let err = args(&[
            "--url",
            "http://127.0.0.1:1/mcp",
            "-H",
            "X: $MCPCHECK_SURELY_UNSET",
        ])
        .resolve()
        .unwrap_err();
        assert!(err.to_string().contains("MCPCHECK_SURELY_UNSET"));
    }

    #[test]
    fn bad_values_are_usage_errors() {
        assert!(args(&["--url", "ftp://x/mcp"]).resolve().is_err());
        assert!(args(&["--stdio", "x", "--spec-version", "2025-13-01"])
            .resolve()
            .is_err());
        assert!(args(&["--stdio", "x", "--timeout", "0"]).resolve().is_err());
        assert!(args(&["--stdio", "x", "--profile-version", "1999.01"])
            .resolve()
            .is_err());
        assert!(
            Cli::try_parse_from(["mcpcheck", "run", "--stdio", "x", "--url", "http://a/"]).is_err()
        );
    }

    #[test]
    fn a_config_file_fills_in_and_flags_override() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcpcheck.toml");
        std::fs::write(
            &path,
            "stdio = \"./server --flag\"\ntimeout = 2.5\nstrict = true\nno-builtin = true\nchecks = [\"jsonrpc-*\"]\n[output]\njunit = \"out/junit.xml\"\n",
        )
        .unwrap();
        let resolved = args(&["--config", path.to_str().unwrap(), "--timeout", "1"])
            .resolve()
            .unwrap();
        let Target::Stdio(spec) = &resolved.config.target else {
            panic!()
        };
        assert_eq!(spec.argv, ["./server", "--flag"]);
        assert_eq!(
            resolved.config.limits.request_timeout,
            Duration::from_secs(1)
        );
        assert!(resolved.strict);
        assert_eq!(resolved.config.only, ["jsonrpc-*"]);
        assert_eq!(
            resolved.outputs.junit.unwrap(),
            dir.path().join("out/junit.xml")
        );
        std::fs::write(&path, "stdio = \"x\"\ntimout = 1\n").unwrap();
        let err = args(&["--config", path.to_str().unwrap()])
            .resolve()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("mcpcheck.toml:2: unknown field `timout`"),
            "{err}"
        );
    }
}
