//! The files a user writes for mcpcheck: `mcpcheck.toml` (the same settings as the flags) and
//! the servers file of `mcpcheck compare`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::UsageError;
use crate::run::CallTools;

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
    /// `--auth`: get this server's token from its authorization server.
    pub auth: Option<String>,
    /// `--client-id`.
    pub client_id: Option<String>,
    /// `--client-secret-env`.
    pub client_secret_env: Option<String>,
    /// `--scope`.
    pub scope: Option<String>,
    /// `--expired-token-env`.
    pub expired_token_env: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ServersFile {
    #[serde(default)]
    pub(super) server: Vec<ServerFile>,
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
    /// `--fixtures` (`profile` is an older name for it).
    #[serde(alias = "profile")]
    pub fixtures: Option<String>,
    /// `--official-schemas`.
    pub official_schemas: Option<PathBuf>,
    /// `--call-tools`.
    pub call_tools: Option<CallTools>,
    /// `--auth`.
    pub auth: Option<String>,
    /// `--client-id`.
    pub client_id: Option<String>,
    /// `--client-secret-env`.
    pub client_secret_env: Option<String>,
    /// `--scope`.
    pub scope: Option<String>,
    /// `--expired-token-env`.
    pub expired_token_env: Option<String>,
    /// `--max-frame-bytes`.
    pub max_frame_bytes: Option<usize>,
    /// `--spec-version`: one version, or a list.
    pub spec_version: Option<Versions>,
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
    /// `--derived`.
    pub derived: Option<crate::cli::DerivedArg>,
    /// `--grading-profile` (`profile-version` is an older name for it).
    #[serde(alias = "profile-version")]
    pub grading_profile: Option<String>,
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
    /// `--sarif`.
    pub sarif: Option<PathBuf>,
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
            &mut o.sarif,
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

/// `spec_version` in the config file: one version or a list of them.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Versions {
    /// One version.
    One(String),
    /// Several, one pass each.
    Many(Vec<String>),
}

impl Versions {
    /// The versions, in order.
    pub fn into_vec(self) -> Vec<String> {
        match self {
            Versions::One(version) => vec![version],
            Versions::Many(versions) => versions,
        }
    }
}
