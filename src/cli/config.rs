//! The files a user writes for mcpcheck: `mcpcheck.toml` and the servers file of `mcpcheck
//! compare`. Neither has types of its own: a settings file is read into the flags' own
//! [`RunArgs`] (each flag a key), and the flags given are laid over it ([`Layer`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};

use super::args::{GradingArgs, OutputArgs, RunArgs, ScenarioArgs};
use super::UsageError;

/// A `[[server]]` of a compare servers file: a name and the settings of `mcpcheck.toml` that
/// differ between servers ([`PER_SERVER`]).
#[derive(Debug, Deserialize)]
pub struct ServerFile {
    /// The column name.
    pub name: String,
    /// Its settings.
    #[serde(flatten)]
    pub args: RunArgs,
}

/// The keys a compare `[[server]]` may set besides `name`; the rest are compare's flags, the
/// same for every server.
pub const PER_SERVER: &[&str] = &[
    "stdio",
    "url",
    "legacy-sse",
    "serve",
    "serve-timeout",
    "startup-timeout",
    "exit-grace",
    "env",
    "cwd",
    "headers",
    "auth",
    "client-id",
    "client-secret-env",
    "scope",
    "expired-token-env",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServersFile {
    #[serde(default)]
    server: Vec<ServerFile>,
}

/// Reads `mcpcheck.toml` (or the file `--config` names) into the flags it sets; errors read
/// `path:line: message`. Relative paths are made relative to the file's directory.
pub fn load(path: &Path) -> Result<RunArgs, UsageError> {
    let text = read(path)?;
    let mut args: RunArgs = parse(path, &text)?;
    refuse_unknown(path, &text, &args, 0, RUN_KEYS)?;
    rebase(&mut args, path);
    Ok(args)
}

/// Reads a compare servers file: its `[[server]]` tables, in order.
pub fn load_servers(path: &Path) -> Result<Vec<ServerFile>, UsageError> {
    let text = read(path)?;
    let file: ServersFile = parse(path, &text)?;
    let tables: toml::Table = toml::from_str(&text).unwrap_or_default();
    let tables = tables.get("server").and_then(toml::Value::as_array);
    let mut servers = Vec::new();
    for (index, mut server) in file.server.into_iter().enumerate() {
        let from = server_start(&text, index);
        refuse_unknown(path, &text, &server.args, from, SERVER_KEYS)?;
        let keys = tables
            .and_then(|t| t.get(index))
            .and_then(toml::Value::as_table)
            .into_iter()
            .flat_map(|t| t.keys());
        for key in keys {
            if key != "name" && !PER_SERVER.contains(&key.as_str()) {
                return Err(UsageError::Flag(format!(
                    "{}:{}: server `{}`: `{key}` is not a key of a [[server]], which may set \
                     name, {} (compare's own flags set the rest, the same for every server)",
                    path.display(),
                    line_of_key(&text, key, from),
                    server.name,
                    PER_SERVER.join(", ")
                )));
            }
        }
        rebase(&mut server.args, path);
        servers.push(server);
    }
    Ok(servers)
}

fn read(path: &Path) -> Result<String, UsageError> {
    std::fs::read_to_string(path)
        .map_err(|e| UsageError::Flag(format!("cannot read {}: {e}", path.display())))
}

/// Deserializes a file, the error at its line. Where serde read the settings from a copy (those
/// flattened into a table), TOML knows only the table: the key is then found by reading each of
/// the table's values alone, and named at its line in that table.
fn parse<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, UsageError> {
    toml::from_str(text).map_err(|e| {
        let message = e.message().trim_end();
        let at = e
            .span()
            .map_or(0, |s| text[..s.start.min(text.len())].matches('\n').count());
        let tables: toml::Table = toml::from_str(text).unwrap_or_default();
        let settings = tables
            .get("server")
            .and_then(toml::Value::as_array)
            .map_or_else(
                || vec![&tables],
                |servers| servers.iter().filter_map(toml::Value::as_table).collect(),
            );
        let wrong = settings.into_iter().find_map(wrong_value);
        UsageError::Flag(match wrong {
            Some((key, words)) => {
                // A span on a value is the value's own; one on a table's first line is the
                // table's, serde having read its settings from a copy.
                let line = match text.lines().nth(at) {
                    Some(line) if at > 0 && !line.trim_start().starts_with('[') => at + 1,
                    _ => line_of_key(text, &key, table_start(text, at)),
                };
                format!("{}:{line}: `{key}`: {words}", path.display())
            }
            None => format!("{}:{}: {message}", path.display(), at + 1),
        })
    })
}

/// The first key of a table of settings whose value alone does not read as a setting, with
/// serde's words for it.
fn wrong_value(table: &toml::Table) -> Option<(String, String)> {
    table
        .iter()
        .filter(|(key, _)| *key != "name")
        .find_map(|(key, value)| {
            let one = toml::Table::from_iter([(key.clone(), value.clone())]);
            toml::Value::Table(one)
                .try_into::<RunArgs>()
                .err()
                .map(|e| (key.clone(), e.message().trim_end().to_string()))
        })
}

/// What the keys of `mcpcheck.toml` are, for a key it does not have.
const RUN_KEYS: &str = "a key is a flag of `mcpcheck run` without its `--`; docs/ci.md lists them";

/// What the keys of a compare `[[server]]` are, for a key it does not have.
const SERVER_KEYS: &str = "a [[server]] may set name and the keys of mcpcheck.toml that \
     differ per server; the README's compare section lists them";

/// A key no setting has is an error, at its line, rather than a setting silently not made;
/// `keys` says what the keys are.
fn refuse_unknown(
    path: &Path,
    text: &str,
    args: &RunArgs,
    from: usize,
    keys: &str,
) -> Result<(), UsageError> {
    match args.unknown.keys().next() {
        None => Ok(()),
        Some(key) => Err(UsageError::Flag(format!(
            "{}:{}: unknown key `{key}` ({keys})",
            path.display(),
            line_of_key(text, key, from)
        ))),
    }
}

/// The line where `key` is set, at or after line index `from`, for an error about it (`from`'s
/// line when it cannot be found): `key =`, a dotted `key.…`, or a table header `[key]`, the key
/// bare or quoted.
fn line_of_key(text: &str, key: &str, from: usize) -> usize {
    let spellings = [key.to_string(), format!("\"{key}\""), format!("'{key}'")];
    text.lines()
        .skip(from)
        .position(|line| {
            let line = line.trim_start().trim_start_matches('[').trim_start();
            spellings.iter().any(|k| {
                line.strip_prefix(k.as_str())
                    .is_some_and(|rest| rest.trim_start().starts_with(['=', '.', ']']))
            })
        })
        .map_or(from + 1, |i| from + i + 1)
}

/// The index of the line that begins the table holding line `at`: the last table header at or
/// before it, or the file's first line.
fn table_start(text: &str, at: usize) -> usize {
    text.lines()
        .take(at + 1)
        .enumerate()
        .filter(|(_, line)| line.trim_start().starts_with('['))
        .map(|(i, _)| i)
        .last()
        .unwrap_or(0)
}

/// The index of the line of the `index`-th `[[server]]` header (counting from 0).
fn server_start(text: &str, index: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.trim_start().starts_with("[[server]]"))
        .nth(index)
        .map_or(0, |(i, _)| i)
}

/// Makes the file's relative paths relative to its directory (`-`, stdout, stays).
fn rebase(args: &mut RunArgs, path: &Path) {
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let rebase = |p: &mut PathBuf| {
        if p.is_relative() && p.as_os_str() != "-" {
            *p = base.join(&*p);
        }
    };
    args.cwd.iter_mut().for_each(rebase);
    args.scenarios.scenarios.iter_mut().for_each(rebase);
    args.grading.baseline.iter_mut().for_each(rebase);
    args.official_schemas.iter_mut().for_each(rebase);
    let o = &mut args.output;
    [
        &mut o.json,
        &mut o.junit,
        &mut o.markdown,
        &mut o.html,
        &mut o.badge,
        &mut o.sarif,
        &mut o.official_json,
    ]
    .into_iter()
    .flatten()
    .for_each(rebase);
}

/// A table of strings as the flag's `K<separator>V` values.
fn pairs<'de, D: Deserializer<'de>>(d: D, separator: &str) -> Result<Vec<String>, D::Error> {
    let table = BTreeMap::<String, String>::deserialize(d)?;
    Ok(table
        .into_iter()
        .map(|(k, v)| format!("{k}{separator}{v}"))
        .collect())
}

/// `env = { K = "V" }`: the table as the `K=V` of `--env`.
pub(super) fn env_table<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    pairs(d, "=")
}

/// `headers = { Name = "value" }`: the table as the `Name: value` of `--header`.
pub(super) fn header_table<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    pairs(d, ": ")
}

/// `spec-version`: one version, or a list of them (one pass each).
pub(super) fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let wrong = || serde::de::Error::custom("expected a version or a list of versions");
    match toml::Value::deserialize(d)? {
        toml::Value::String(version) => Ok(vec![version]),
        toml::Value::Array(versions) => versions
            .into_iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(wrong))
            .collect(),
        _ => Err(wrong()),
    }
}

/// A setting that may come from the command line and from a file: the command line's (`self`)
/// wins where it was given.
pub trait Layer {
    /// `self` where given, else `below`.
    fn over(self, below: Self) -> Self;
}

impl<T> Layer for Option<T> {
    fn over(self, below: Self) -> Self {
        self.or(below)
    }
}

impl<T> Layer for Vec<T> {
    fn over(self, below: Self) -> Self {
        if self.is_empty() {
            below
        } else {
            self
        }
    }
}

impl<K, V> Layer for BTreeMap<K, V> {
    fn over(self, below: Self) -> Self {
        if self.is_empty() {
            below
        } else {
            self
        }
    }
}

impl Layer for bool {
    fn over(self, below: Self) -> Self {
        self || below
    }
}

/// Lays a struct of settings field by field. The fields are named once more here, but both the
/// pattern and the literal are exhaustive: a new flag the list lacks does not compile.
macro_rules! layer_fields {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        impl Layer for $ty {
            fn over(self, below: Self) -> Self {
                let $ty { $($field),* } = below;
                $ty { $($field: self.$field.over($field)),* }
            }
        }
    };
}

layer_fields!(RunArgs {
    stdio,
    url,
    legacy_sse,
    serve,
    serve_timeout,
    env,
    cwd,
    headers,
    timeout,
    run_timeout,
    startup_timeout,
    exit_grace,
    max_frame_bytes,
    spec_version,
    fixtures,
    official_schemas,
    call_tools,
    auth,
    client_id,
    client_secret_env,
    scope,
    expired_token_env,
    only,
    jobs,
    output,
    grading,
    shard,
    config,
    quiet,
    progress,
    verbose,
    scenarios,
    ignore_config_file,
    unknown,
});

layer_fields!(OutputArgs {
    show,
    annotations,
    json,
    junit,
    markdown,
    html,
    badge,
    sarif,
    official_json,
});

layer_fields!(GradingArgs {
    derived,
    strict,
    baseline,
    grading_profile,
});

layer_fields!(ScenarioArgs {
    scenarios,
    no_builtin,
});
