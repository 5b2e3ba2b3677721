//! Command-line arguments (clap) and their resolution into a [`RunConfig`]. Only the resolved
//! config reaches the engine; nothing below this module knows about flags.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::protocol::version::KNOWN_VERSIONS;
use crate::run::RunConfig;
use crate::scenario::load;
use crate::scenario::{LoadError, Scenario};
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
}

/// Which scenarios to load.
#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// Also load scenario files (*.toml, recursively) from DIR; repeatable.
    #[arg(long = "scenarios", value_name = "DIR")]
    pub scenarios: Vec<PathBuf>,
    /// Leave out the built-in scenario library (run only --scenarios).
    #[arg(long)]
    pub no_builtin: bool,
}

/// `mcpcheck run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Start the server with this command and speak to it over stdio (shell-style quoting).
    #[arg(
        long,
        value_name = "COMMAND",
        required_unless_present = "url",
        conflicts_with = "url"
    )]
    pub stdio: Option<String>,
    /// Speak Streamable HTTP to the server at this URL.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// An environment variable for the stdio server; `K=$VAR` takes the value from mcpcheck's
    /// environment and redacts it from all output. Repeatable.
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    /// The working directory of the stdio server.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// An HTTP header sent with every request, e.g. "Authorization: Bearer $TOKEN" ($NAME is
    /// taken from the environment). Values are redacted from all output. Repeatable.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Seconds to wait for the answer to one request.
    #[arg(long, value_name = "SECS", default_value = "5")]
    pub timeout: f64,
    /// Seconds the whole run may take; unfinished checks are reported as errors.
    #[arg(long, value_name = "SECS", default_value = "300")]
    pub run_timeout: f64,
    /// Seconds a stdio server may take to exit after its stdin closes, before SIGTERM.
    #[arg(long, value_name = "SECS", default_value = "2")]
    pub exit_grace: f64,
    /// The largest frame (stdio line, HTTP body) read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 20)]
    pub max_frame_bytes: usize,
    /// Use this protocol version instead of negotiating the newest.
    #[arg(long, value_name = "VERSION")]
    pub spec_version: Option<String>,
    /// Run only these checks (an id, or a prefix ending in `*`); repeatable.
    #[arg(long = "check", value_name = "ID")]
    pub only: Vec<String>,
    /// How many scenarios run at once (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Write the report as JSON to FILE (`-` for stdout; the table then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Print only the verdict line, not the table.
    #[arg(short, long)]
    pub quiet: bool,
    /// Which scenarios.
    #[command(flatten)]
    pub scenarios: ScenarioArgs,
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

/// A usage problem: a bad flag value or bad scenario files.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A flag's value is wrong.
    #[error("{0}")]
    Flag(String),
    /// Scenario files are wrong.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n\n"))]
    Scenarios(Vec<LoadError>),
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

impl RunArgs {
    /// Resolves the arguments; returns the config and the secrets to redact from all output.
    pub fn resolve(
        &self,
        scenarios: Vec<Scenario>,
    ) -> Result<(RunConfig, Vec<String>), UsageError> {
        let mut secrets = Vec::new();
        let seconds = |value: f64, flag: &str| -> Result<Duration, UsageError> {
            if value.is_finite() && value > 0.0 {
                Ok(Duration::from_secs_f64(value))
            } else {
                Err(UsageError::Flag(format!(
                    "{flag} must be a positive number of seconds"
                )))
            }
        };
        let target = match (&self.stdio, &self.url) {
            (Some(command), None) => {
                let argv = shell_words::split(command)
                    .map_err(|e| UsageError::Flag(format!("--stdio: {e}")))?;
                if argv.is_empty() {
                    return Err(UsageError::Flag("--stdio needs a command".into()));
                }
                let mut env = Vec::new();
                for pair in &self.env {
                    let (key, value) = pair
                        .split_once('=')
                        .ok_or_else(|| UsageError::Flag(format!("--env `{pair}`: expected K=V")))?;
                    let (value, from_env) = expand_env(value, "--env")?;
                    if from_env {
                        secrets.push(value.clone());
                    }
                    env.push((key.to_string(), value));
                }
                Target::Stdio(StdioSpec {
                    argv,
                    env,
                    cwd: self.cwd.clone(),
                })
            }
            (None, Some(url)) => {
                crate::transport::http::parse_url(url)
                    .map_err(|e| UsageError::Flag(format!("--url: {e}")))?;
                let mut headers = Vec::new();
                for header in &self.headers {
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
                    headers,
                })
            }
            _ => {
                return Err(UsageError::Flag(
                    "give exactly one of --stdio and --url".into(),
                ))
            }
        };
        if matches!(target, Target::Stdio(_)) && !self.headers.is_empty() {
            return Err(UsageError::Flag("--header goes with --url".into()));
        }
        if matches!(target, Target::Http(_)) && (!self.env.is_empty() || self.cwd.is_some()) {
            return Err(UsageError::Flag("--env and --cwd go with --stdio".into()));
        }
        if let Some(version) = &self.spec_version {
            if !KNOWN_VERSIONS.contains(&version.as_str()) {
                return Err(UsageError::Flag(format!(
                    "--spec-version `{version}` is not a known protocol version ({})",
                    KNOWN_VERSIONS.join(", ")
                )));
            }
        }
        if self.jobs == Some(0) {
            return Err(UsageError::Flag("--jobs must be at least 1".into()));
        }
        let limits = Limits {
            request_timeout: seconds(self.timeout, "--timeout")?,
            max_frame_bytes: self.max_frame_bytes.max(1024),
            exit_grace: seconds(self.exit_grace, "--exit-grace")?,
            ..Limits::default()
        };
        let jobs = self.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
        });
        let config = RunConfig {
            target,
            limits,
            spec_version: self.spec_version.clone(),
            jobs,
            run_timeout: seconds(self.run_timeout, "--run-timeout")?,
            scenarios,
            only: self.only.clone(),
        };
        Ok((config, secrets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> RunArgs {
        let mut argv = vec!["mcpcheck", "run"];
        argv.extend_from_slice(extra);
        match Cli::try_parse_from(argv).unwrap().command {
            Command::Run(run) => *run,
            _ => unreachable!(),
        }
    }

    #[test]
    fn stdio_commands_split_like_a_shell() {
        let (config, _) = args(&["--stdio", "python -m 'my server' --flag"])
            .resolve(Vec::new())
            .unwrap();
        let Target::Stdio(spec) = config.target else {
            panic!()
        };
        assert_eq!(spec.argv, ["python", "-m", "my server", "--flag"]);
    }

    #[test]
    fn header_values_from_the_environment_are_secrets() {
        std::env::set_var("MCPCHECK_TEST_TOKEN", "tok-123456");
        let (config, secrets) = args(&[
            "--url",
            "http://127.0.0.1:1/mcp",
            "-H",
            "Authorization: Bearer $MCPCHECK_TEST_TOKEN",
        ])
        .resolve(Vec::new())
        .unwrap();
        let Target::Http(spec) = config.target else {
            panic!()
        };
        assert_eq!(
            spec.headers,
            [("Authorization".to_string(), "Bearer tok-123456".to_string())]
        );
        assert!(secrets.contains(&"tok-123456".to_string()));
        let err = args(&[
            "--url",
            "http://127.0.0.1:1/mcp",
            "-H",
            "X: $MCPCHECK_SURELY_UNSET",
        ])
        .resolve(Vec::new())
        .unwrap_err();
        assert!(err.to_string().contains("MCPCHECK_SURELY_UNSET"));
    }

    #[test]
    fn bad_values_are_usage_errors() {
        assert!(args(&["--url", "ftp://x/mcp"]).resolve(Vec::new()).is_err());
        assert!(args(&["--stdio", "x", "--spec-version", "2025-13-01"])
            .resolve(Vec::new())
            .is_err());
        assert!(args(&["--stdio", "x", "--timeout", "0"])
            .resolve(Vec::new())
            .is_err());
        assert!(Cli::try_parse_from(["mcpcheck", "run"]).is_err());
        assert!(
            Cli::try_parse_from(["mcpcheck", "run", "--stdio", "x", "--url", "http://a/"]).is_err()
        );
    }
}
