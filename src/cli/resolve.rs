//! Resolution: flags and the config file merged into a [`RunConfig`] (and the compare servers
//! and grading settings), every value checked, with a [`UsageError`] for what is wrong.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::args::{CompareArgs, DerivedArg, GradingArgs, OutputArgs, RunArgs, ScenarioArgs};
use super::config::{self, Layer, ServerFile};
use super::UsageError;
use crate::profile::{self, Profile};
use crate::record::version;
use crate::report::grade::Baseline;
use crate::run::RunConfig;
use crate::scenario::{load, Scenario};
use crate::transport::serve::{free_port, ServeSpec, PORT_PLACEHOLDER};
use crate::transport::{HttpSpec, Limits, StdioSpec, Target};

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

/// One server of a comparison, resolved.
pub struct CompareEntry {
    /// Its name and run configuration.
    pub entry: crate::compare::Entry,
    /// What its reports redact.
    pub secrets: Vec<String>,
    /// How its token is got, when its `[[server]]` names `auth`.
    pub auth: Option<crate::run::authorize::Client>,
}

impl CompareArgs {
    /// Resolves the servers into compare entries, with the secrets to redact per server and the
    /// client that gets a server's token (`auth` in its `[[server]]`): each server's own
    /// settings laid over compare's flags, then resolved as `mcpcheck run` resolves its own.
    pub fn resolve(&self) -> Result<Vec<CompareEntry>, UsageError> {
        let mut servers: Vec<ServerFile> = match &self.config {
            Some(path) => config::load_servers(path)?,
            None => Vec::new(),
        };
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
            let args = RunArgs {
                stdio,
                url,
                ..RunArgs::default()
            };
            servers.push(ServerFile { name, args });
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
                timeout: self.timeout,
                startup_timeout: self.startup_timeout,
                fixtures: self.fixtures.clone(),
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
            // The server's own settings (a `startup-timeout` of its own too), then compare's.
            let args = server.args.over(args);
            let resolved = args
                .resolve()
                .map_err(|e| UsageError::Flag(format!("server `{}`: {e}", server.name)))?;
            entries.push(CompareEntry {
                entry: crate::compare::Entry {
                    name: server.name,
                    config: resolved.config,
                },
                secrets: resolved.secrets,
                auth: resolved.auth,
            });
        }
        Ok(entries)
    }
}

/// Strictness, the baseline with its path, and the profile.
pub type GradingParts = (bool, Option<(Baseline, String)>, &'static Profile);

impl GradingArgs {
    /// Resolves the profile and reads the baseline.
    pub fn resolve(&self) -> Result<GradingParts, UsageError> {
        let profile = match &self.grading_profile {
            None => profile::latest(),
            Some(name) => profile::find(name).ok_or_else(|| {
                UsageError::Flag(format!(
                    "--grading-profile `{name}` is not a grading profile (known: {})",
                    profile::all()
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?,
        };
        let baseline = match &self.baseline {
            Some(path) => Some((
                Baseline::load(path).map_err(|e| UsageError::Flag(e.to_string()))?,
                path.display().to_string(),
            )),
            None => None,
        };
        Ok((self.strict, baseline, profile))
    }
}

/// Everything `mcpcheck run` needs, resolved.
#[derive(Debug)]
pub struct Resolved {
    /// The client to get a token with before the run (`--auth`).
    pub auth: Option<crate::run::authorize::Client>,
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
    /// Print every frame, and every problem in full.
    pub verbose: bool,
    /// A line per finished scenario even when stderr is not a terminal.
    pub progress: bool,
    /// Derived checks are graded as warnings (`--derived warn`).
    pub derived_warn: bool,
}

/// Loads the built-in library and the user's directories, and checks ids are unique.
pub fn load_scenarios(args: &ScenarioArgs) -> Result<Vec<Arc<Scenario>>, UsageError> {
    let mut scenarios = if args.no_builtin {
        Vec::new()
    } else {
        load::library_shared().map_err(UsageError::Scenarios)?
    };
    for dir in &args.scenarios {
        let loaded = load::load_dir(dir).map_err(UsageError::Scenarios)?;
        scenarios.extend(loaded.into_iter().map(Arc::new));
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

/// The value of the environment variable a `--…-env VAR` flag names, added to the secrets.
fn secret_from_env(flag: &str, var: &str, secrets: &mut Vec<String>) -> Result<String, UsageError> {
    let value =
        std::env::var(var).map_err(|_| UsageError::Flag(format!("{flag}: ${var} is not set")))?;
    secrets.push(value.clone());
    Ok(value)
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
    fn merge_config(self) -> Result<RunArgs, UsageError> {
        let path = match &self.config {
            Some(path) => path.clone(),
            None if !self.ignore_config_file && Path::new("mcpcheck.toml").is_file() => {
                PathBuf::from("mcpcheck.toml")
            }
            None => return Ok(self),
        };
        let mut file = config::load(&path)?;
        if self.stdio.is_some() || self.url.is_some() {
            // A server named on the command line replaces the file's, with how it is reached.
            (file.stdio, file.url, file.legacy_sse, file.serve) = (None, None, false, None);
        } else if file.stdio.is_some() && file.url.is_some() {
            return Err(UsageError::Flag(format!(
                "{}: set `stdio` or `url`, not both",
                path.display()
            )));
        }
        Ok(self.over(file))
    }

    /// Resolves flags and config file into what a run needs.
    ///
    /// Long by design: one check per flag, in the order of `mcpcheck run --help`, each a few lines
    /// with its own message; a flag and its check stay side by side.
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
                crate::record::url::parse_url(url)
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
                    // The tokens the authorization checks make from a bearer token carry its
                    // claims (and one its signature): as secret as the token itself.
                    if name.eq_ignore_ascii_case("authorization") {
                        if let Some(token) = crate::record::token::bearer_of(&value) {
                            secrets.extend(crate::record::token::MadeUp::from(token).all());
                        }
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
        let pinned = args
            .spec_version
            .iter()
            .map(|v| (format!("--spec-version `{v}`"), v.as_str()))
            .chain(args.only.iter().filter_map(|p| {
                let (_, v) = p.split_once('@')?;
                Some((format!("--check `{p}`: `{v}`"), v))
            }));
        for (what, version) in pinned {
            if version::named_or_wire(version).is_none() {
                return Err(UsageError::Flag(format!(
                    "{what} is not a known protocol version ({})",
                    version::names_joined()
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
            startup_timeout: seconds(
                args.startup_timeout
                    .unwrap_or(crate::transport::STARTUP_TIMEOUT.as_secs_f64()),
                "--startup-timeout",
            )?,
            ..Limits::default()
        };
        let jobs = args.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get() * 2)
                .unwrap_or(4)
                .max(4)
        });
        // A pattern that selects nothing would make a green run that checked nothing.
        let definitions = crate::check::definitions(&scenarios);
        for pattern in &args.only {
            let known = definitions
                .iter()
                .any(|def| crate::report::assemble::pattern_matches(pattern, &def.id));
            if !known {
                return Err(UsageError::Flag(format!(
                    "--check `{pattern}` matches no check (an id, or a prefix ending in `*`; see `mcpcheck list`)"
                )));
            }
        }
        if let Some(set) = &args.fixtures {
            if !load::FIXTURE_SETS.contains(&set.as_str()) {
                return Err(UsageError::Flag(format!(
                    "unknown fixture set `{set}`; use {}",
                    load::FIXTURE_SETS.join(", ")
                )));
            }
        }
        let config = RunConfig {
            target,
            limits,
            // A revision given by its wire string is named by its name from here on.
            versions: dedup(
                &args
                    .spec_version
                    .iter()
                    .map(|v| version::named_or_wire(v).map_or(v.clone(), |r| r.name.clone()))
                    .collect::<Vec<_>>(),
            ),
            spec_version: None,
            jobs,
            run_timeout: seconds(args.run_timeout.unwrap_or(300.0), "--run-timeout")?,
            scenarios,
            // A check pinned to a revision by its wire string (`ID@WIRE`) names it by its name,
            // as every result does.
            only: args
                .only
                .iter()
                .map(|p| match p.split_once('@') {
                    Some((id, v)) => match version::named_or_wire(v) {
                        Some(r) => format!("{id}@{}", r.name),
                        None => p.clone(),
                    },
                    None => p.clone(),
                })
                .collect(),
            builtins: !args.scenarios.no_builtin,
            observer: None,
            shard,
            fixtures: args.fixtures.clone(),
            call_tools: args.call_tools,
            issued: Default::default(),
            served: None,
            expired_token: args
                .expired_token_env
                .as_deref()
                .map(|var| secret_from_env("--expired-token-env", var, &mut secrets))
                .transpose()?,
            official_schemas: match &args.official_schemas {
                None => None,
                Some(dir) => Some(std::sync::Arc::new(
                    crate::check::messages::OfficialSchemas::load(dir).map_err(UsageError::Flag)?,
                )),
            },
        };
        let auth = match (&args.auth, &config.target) {
            (None, _) => {
                if let Some(flag) = [
                    (args.client_id.is_some(), "--client-id"),
                    (args.client_secret_env.is_some(), "--client-secret-env"),
                    (args.scope.is_some(), "--scope"),
                ]
                .iter()
                .find_map(|(set, flag)| set.then_some(flag))
                {
                    return Err(UsageError::Flag(format!("{flag} goes with --auth")));
                }
                None
            }
            (Some(_), Target::Http(spec)) => {
                if spec.legacy_sse {
                    return Err(UsageError::Flag(
                        "--auth goes with Streamable HTTP, not --legacy-sse".into(),
                    ));
                }
                if spec
                    .headers
                    .iter()
                    .any(|(n, _)| n.eq_ignore_ascii_case("authorization"))
                {
                    return Err(UsageError::Flag(
                        "--auth gets the token itself: leave out -H \"Authorization: …\"".into(),
                    ));
                }
                let flow = match args.auth.as_deref() {
                    Some("code") => crate::run::authorize::Flow::Code,
                    Some("client-credentials") => crate::run::authorize::Flow::ClientCredentials,
                    other => {
                        return Err(UsageError::Flag(format!(
                            "--auth {}: use client-credentials or code",
                            other.unwrap_or_default()
                        )))
                    }
                };
                // Without a client id mcpcheck registers itself, and is given its secret.
                let client_id = args.client_id.clone();
                let client_secret = match (&args.client_secret_env, &client_id) {
                    (Some(_), None) => {
                        return Err(UsageError::Flag(
                            "--client-secret-env goes with --client-id (without one, mcpcheck registers itself and is given a secret)".into(),
                        ))
                    }
                    (Some(var), Some(_)) => {
                        Some(secret_from_env("--client-secret-env", var, &mut secrets)?)
                    }
                    (None, Some(_)) if flow == crate::run::authorize::Flow::ClientCredentials => {
                        return Err(UsageError::Flag(
                            "--auth client-credentials --client-id needs --client-secret-env VAR (the variable holding the secret)".into(),
                        ))
                    }
                    (None, _) => None,
                };
                Some(crate::run::authorize::Client {
                    flow,
                    client_id,
                    client_secret,
                    scope: args.scope.clone(),
                    auth_method: None,
                })
            }
            (Some(_), Target::Stdio(_)) => {
                return Err(UsageError::Flag("--auth goes with --url".into()))
            }
        };
        Ok(Resolved {
            config,
            auth,
            secrets,
            outputs: args.output,
            strict,
            baseline,
            profile,
            quiet: args.quiet,
            verbose: args.verbose,
            progress: args.progress,
            derived_warn: args.grading.derived == Some(DerivedArg::Warn),
        })
    }
}

/// The versions in order, each once.
fn dedup(versions: &[String]) -> Vec<String> {
    let mut seen = Vec::new();
    for version in versions {
        if !seen.contains(version) {
            seen.push(version.clone());
        }
    }
    seen
}
