//! The command line, as clap parses it: the subcommands and their flags. Nothing here resolves
//! or checks a value beyond its syntax; see [`super::resolve`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Deserialize;

use crate::record::version;

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
    /// Print a shell script that replays one check's exchanges against the server of a JSON
    /// report (stdio: the frames piped into its command; HTTP: curl commands with the exact
    /// headers), so that a failure reproduces without mcpcheck (a token the authorization checks
    /// made from yours is made again by `mcpcheck token`).
    Repro(ReproArgs),
    /// Print a token the authorization checks make from yours, as the Authorization header's
    /// value (`Bearer …`): the replay scripts of `mcpcheck repro` call it, as the token is
    /// redacted from every report. Your header's value (or token) is read from an environment
    /// variable, never from the command line.
    Token(TokenArgs),
    /// Join the JSON reports of a sharded run into one report.
    Merge(Box<MergeArgs>),
    /// Run the suite against several servers and compare them in a servers × checks matrix.
    Compare(Box<CompareArgs>),
    /// Print a JSON Schema of the scenario file format (for editors and CI checks of your own
    /// scenario files).
    ScenarioSchema,
    /// The official MCP schema files, for `--official-schemas`.
    #[command(subcommand)]
    Schemas(SchemasCommand),
    /// Print a completion script for a shell, e.g. `mcpcheck completions bash >
    /// ~/.local/share/bash-completion/completions/mcpcheck`.
    Completions(CompletionsArgs),
    /// Print mcpcheck's man page (roff), e.g. `mcpcheck man > ~/.local/share/man/man1/mcpcheck.1`.
    Man,
    /// Write an mcpcheck.toml and a GitHub workflow for the project in a folder: how its server
    /// starts is read from a package.json (bin, start script, main), a pyproject.toml (a script,
    /// or a package's __main__.py) or a Cargo.toml (a binary), or asked for. Exit codes: 0
    /// written, 2 nothing detected (give --stdio or --url) or a file already there.
    Init(InitArgs),
}

/// `mcpcheck init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The project folder.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// The command that starts the server (stdio), instead of detecting it.
    #[arg(long, value_name = "COMMAND", conflicts_with = "url")]
    pub stdio: Option<String>,
    /// The URL of the running server (Streamable HTTP), instead of detecting a command.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Overwrite an mcpcheck.toml or workflow already there.
    #[arg(long)]
    pub force: bool,
    /// The GitHub Action the workflow uses (OWNER/REPO@REF).
    #[arg(long, value_name = "REF", default_value = super::init::DEFAULT_ACTION)]
    pub action: String,
}

/// `mcpcheck completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
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
    /// `<URL>/<commit>/schema/<folder>/schema.json` (the revision's folder: its name, or `draft`).
    #[arg(long, value_name = "URL", default_value = super::schemas::DEFAULT_BASE)]
    pub from: String,
    /// Give up on a file after this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub timeout: u64,
}

fn parse_known_version(value: &str) -> Result<String, String> {
    // A revision's name, or the string it is spoken with on the wire.
    match version::named_or_wire(value) {
        Some(revision) => Ok(revision.name.clone()),
        None => Err(format!(
            "unknown protocol version `{value}`; known: {}",
            version::names_joined()
        )),
    }
}

use crate::run::CallTools;

// The engine's own type, given its command-line spelling here so that `run` knows nothing of clap.
impl clap::ValueEnum for CallTools {
    fn value_variants<'a>() -> &'a [Self] {
        &[CallTools::ReadOnly, CallTools::All]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(match self {
            CallTools::ReadOnly => clap::builder::PossibleValue::new("read-only")
                .help("Only tools annotated `readOnlyHint: true`"),
            CallTools::All => clap::builder::PossibleValue::new("all").help("Any listed tool"),
        })
    }
}

/// Which scenarios to load.
#[derive(Debug, Default, Args, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct ScenarioArgs {
    /// Also load scenario files (*.toml, recursively) from DIR, or the one file PATH names;
    /// repeatable. A folder without a scenario file is an error.
    #[arg(long = "scenarios", value_name = "PATH")]
    pub scenarios: Vec<PathBuf>,
    /// Leave out the built-in scenario library and the built-in checks over the whole run (run
    /// only --scenarios).
    #[arg(long)]
    pub no_builtin: bool,
}

/// `mcpcheck run`, and `mcpcheck.toml`: each flag is a key of the file, spelt as the flag without
/// `--` (a few as their plural or an older name, `serde` says which), so a setting is defined
/// once for both. Flags given on the command line override the file's.
#[derive(Debug, Default, Args, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
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
    #[serde(deserialize_with = "super::config::env_table")]
    pub env: Vec<String>,
    /// The working directory of the stdio (or --serve) server.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// An HTTP header sent with every request, e.g. "Authorization: Bearer $TOKEN" ($NAME is
    /// taken from the environment). Values are redacted from all output. Repeatable.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    #[serde(deserialize_with = "super::config::header_table")]
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
    /// Judge at this protocol version only, instead of every era the server speaks (the
    /// 2026-07-28 era where server/discover is answered, and the newest handshake version it
    /// negotiates); repeatable, one pass per version.
    #[arg(long, value_name = "VERSION")]
    #[serde(deserialize_with = "super::config::one_or_many")]
    pub spec_version: Vec<String>,
    /// Also run the fixture checks of this set: `everything` calls the official conformance
    /// suite's fixture tools, resources and prompts (`test_simple_text`, `test://static-text`, …),
    /// which the server must implement. (`--profile` is an older name for it.)
    #[arg(long = "fixtures", alias = "profile", value_name = "SET", value_parser = ["everything"])]
    #[serde(alias = "profile")]
    pub fixtures: Option<String>,
    /// Also validate every result with the official schema files in DIR (`<version>.json`, as
    /// published under schema/<version>/schema.json in the specification repository).
    #[arg(long, value_name = "DIR")]
    pub official_schemas: Option<PathBuf>,
    /// Allow mcpcheck to call tools the server lists (never done otherwise): `read-only` only
    /// those annotated `readOnlyHint: true`, `all` any. One tool is called, with arguments its
    /// inputSchema forbids, to see that the server validates them.
    #[arg(long, value_name = "WHICH", value_enum)]
    pub call_tools: Option<CallTools>,
    /// With --url: get an access token from the authorization server the server's metadata
    /// names, and run with it: `client-credentials` (for CI: --client-id and
    /// --client-secret-env) or `code` (interactive: sign in in a browser, PKCE S256; --client-id,
    /// and --client-secret-env for a confidential client). Without --client-id mcpcheck
    /// registers itself where the authorization server lets it (RFC 7591). The token is asked
    /// for this server (RFC 8707) and redacted from every output.
    #[arg(long, value_name = "FLOW", value_parser = ["client-credentials", "code"], requires = "url")]
    pub auth: Option<String>,
    /// With --auth: the client id registered with the authorization server (default: mcpcheck
    /// registers a client of its own).
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// With --auth: the environment variable holding the client secret (never the secret
    /// itself on the command line).
    #[arg(long, value_name = "VAR")]
    pub client_secret_env: Option<String>,
    /// With --auth: the scopes to ask for, space-separated (default: those the server's 401
    /// challenge names, else those its resource metadata lists).
    #[arg(long, value_name = "SCOPES")]
    pub scope: Option<String>,
    /// With --url: the environment variable holding an expired access token of the server's
    /// (one its authorization server issued, now past its `exp`), which the server must refuse
    /// with 401. Redacted from every output.
    #[arg(long, value_name = "VAR", requires = "url")]
    pub expired_token_env: Option<String>,
    /// Run only these checks (an id, or a prefix ending in `*`); repeatable.
    #[arg(long = "check", value_name = "ID")]
    #[serde(rename = "checks")]
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
    #[serde(flatten)]
    pub grading: GradingArgs,
    /// Run only shard K of N (e.g. `2/4`): a stable slice of the scenarios, for CI matrix jobs;
    /// join the JSON reports with `mcpcheck merge`.
    #[arg(long, value_name = "K/N")]
    #[serde(skip)]
    pub shard: Option<String>,
    /// Read settings from this file instead of ./mcpcheck.toml; flags override it.
    #[arg(long, value_name = "FILE")]
    #[serde(skip)]
    pub config: Option<PathBuf>,
    /// Print only the verdict line, not the table or progress.
    #[arg(short, long, conflicts_with = "verbose")]
    #[serde(skip)]
    pub quiet: bool,
    /// Print a line per scenario as it finishes even when stderr is not a terminal (by default
    /// only a start and an end line are printed there; a terminal gets a progress bar).
    #[arg(long, conflicts_with = "quiet")]
    #[serde(skip)]
    pub progress: bool,
    /// Print every frame sent and received (to stderr, secrets redacted), and every problem in
    /// full with its exchanges.
    #[arg(short, long)]
    #[serde(skip)]
    pub verbose: bool,
    /// Which scenarios.
    #[command(flatten)]
    #[serde(flatten)]
    pub scenarios: ScenarioArgs,
    /// Set by `compare`: never read ./mcpcheck.toml.
    #[arg(skip)]
    #[serde(skip)]
    pub ignore_config_file: bool,
    /// The keys of a settings file that name no setting (an error when the file is read); never
    /// set by a flag. Last, so that it gets only what the other fields left.
    #[arg(skip)]
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
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
    /// Also run the fixture checks of this set (`everything`) against every server.
    #[arg(long = "fixtures", alias = "profile", value_name = "SET", value_parser = ["everything"])]
    pub fixtures: Option<String>,
    /// Judge every server at this protocol version only, instead of every era it speaks;
    /// repeatable.
    #[arg(long, value_name = "VERSION")]
    pub spec_version: Vec<String>,
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

/// How much the terminal report shows besides the problems and the verdict (`--show`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShowArg {
    /// One line per area and the checks that did not apply counted by reason.
    #[default]
    Problems,
    /// That, and each check that did not apply with its reason.
    Skipped,
    /// One table per area with every check.
    All,
}

/// Where failures and warnings are also printed as CI annotations (`--annotations`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnnotationsArg {
    /// GitHub Actions workflow commands (`::error title=…::…`), shown on the run's summary page
    /// and in the pull request.
    Github,
    /// None.
    None,
}

/// The report files to write, and what the terminal shows (the `[output]` table of
/// `mcpcheck.toml`).
#[derive(Debug, Default, Args, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct OutputArgs {
    /// What the terminal shows besides the problems: `problems` (one line per area, the checks
    /// that did not apply counted by reason), `skipped` (and each of those), `all` (every check).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub show: Option<ShowArg>,
    /// Also print every failure and warning as a CI annotation [default: github under GitHub
    /// Actions (GITHUB_ACTIONS=true), else none].
    #[arg(long, value_enum, value_name = "KIND")]
    pub annotations: Option<AnnotationsArg>,
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
    /// Write a SARIF 2.1.0 log to FILE (GitHub code scanning: one result per failed or warned
    /// check).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Write the official conformance suite's checks.json shape into DIR.
    #[arg(long, value_name = "DIR")]
    pub official_json: Option<PathBuf>,
}

/// How checks of requirements MCP states only through JSON-RPC 2.0 or an RFC it builds on
/// (derived checks) are graded
/// (`--derived`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DerivedArg {
    /// As their level says: a broken derived MUST fails.
    #[default]
    Fail,
    /// As warnings: what a server inherits from its SDK (say, unparsable frames left unanswered
    /// over stdio) is shown but does not fail the run (unless `--strict`).
    Warn,
}

/// How verdicts are graded into an exit code.
#[derive(Debug, Default, Args, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct GradingArgs {
    /// Grade derived checks (requirements MCP states only through JSON-RPC 2.0 or an RFC it builds
    /// on) as warnings
    /// (`warn`) instead of by their level (`fail`, the default).
    #[arg(long, value_enum, value_name = "HOW")]
    pub derived: Option<DerivedArg>,
    /// Warnings fail the run too.
    #[arg(long)]
    pub strict: bool,
    /// Known failures (a TOML file from `mcpcheck baseline`): listed failures do not fail the run;
    /// an unlisted one does; a listed check that passes is stale and fails the run.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// The grading profile: the set of checks that count toward the verdict [default: the newest].
    /// (`--profile-version` is an older name for it.)
    #[arg(long, alias = "profile-version", value_name = "PROFILE")]
    #[serde(alias = "profile-version")]
    pub grading_profile: Option<String>,
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

/// `mcpcheck repro`.
#[derive(Debug, Args)]
pub struct ReproArgs {
    /// The check (`ID`, or `ID@VERSION` when the run judged it in more than one era).
    #[arg(value_name = "CHECK")]
    pub check: String,
    /// A JSON report written by `mcpcheck run --json`.
    #[arg(long, value_name = "REPORT.json")]
    pub report: PathBuf,
    /// Which scenarios (to know how the check's session began).
    #[command(flatten)]
    pub scenarios: ScenarioArgs,
}

/// `mcpcheck token`.
#[derive(Debug, Args)]
pub struct TokenArgs {
    /// Which token: `garbage` (no JWT), `alg-none` (your claims, no signature), `foreign-key`
    /// (your claims signed with a key mcpcheck made up) or `tampered` (your JWT with a claim
    /// added and its signature kept).
    #[arg(value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(crate::record::token::MADE))]
    pub name: String,
    /// The environment variable that holds your Authorization header's value (`Bearer TOKEN`)
    /// or your token.
    #[arg(
        long,
        value_name = "VAR",
        default_value = "MCPCHECK_HEADER_AUTHORIZATION"
    )]
    pub from_env: String,
}

/// `mcpcheck baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// A JSON report written by `mcpcheck run --json`.
    #[arg(value_name = "REPORT.json")]
    pub report: PathBuf,
}
