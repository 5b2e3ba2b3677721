//! Fetching the official MCP schema files (`mcpcheck schemas fetch`): each version's
//! `schema/<folder>/schema.json` of the specification repository, at one pinned commit, checked
//! against the sha256 mcpcheck carries for it, and written as `<version>.json` into a folder that
//! `--official-schemas` then reads. A file that is already there with the right checksum is not
//! downloaded again; a download with the wrong checksum is never written.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::transport::http::{self, HttpRequest};

/// The specification repository's commit the files are pinned to (`revisions.toml`).
pub fn commit() -> &'static str {
    &crate::record::version::table().schema_commit
}

/// Where the files are downloaded from, unless `--from` names a mirror: the file of a version
/// is `<base>/<commit>/schema/<folder>/schema.json`, the revision's folder in `revisions.toml`.
pub const DEFAULT_BASE: &str =
    "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol";

/// The largest schema file accepted (the 2026-07-28 file is about 200 kB).
const MAX_FILE: usize = 4 * 1024 * 1024;

/// What became of one version's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// Downloaded and written.
    Downloaded,
    /// Already in the folder with the pinned checksum.
    Present,
}

/// Why fetching failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// The file could not be downloaded (unreachable, an HTTP error status, a cut body).
    Download(String),
    /// A file came with another checksum than the pinned one; nothing was written for it.
    Checksum(String),
    /// The folder could not be written.
    Io(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Download(e) | FetchError::Checksum(e) | FetchError::Io(e) => f.write_str(e),
        }
    }
}

/// The hex sha256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The URL of a revision's file under a base (in the revision's folder).
pub fn url(base: &str, version: &str) -> String {
    let folder = crate::record::version::revision(version).map_or(version, |r| r.folder());
    format!(
        "{}/{}/schema/{folder}/schema.json",
        base.trim_end_matches('/'),
        commit()
    )
}

/// The folder files go to when none is named: `$XDG_CACHE_HOME/mcpcheck/schemas/<commit>`, else
/// `~/.cache/mcpcheck/schemas/<commit>`, else `.mcpcheck/schemas/<commit>`.
pub fn default_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })
        .unwrap_or_else(|| PathBuf::from(".mcpcheck"));
    cache.join("mcpcheck").join("schemas").join(commit())
}

/// Fetches one version's file into `dir` (which must exist).
pub async fn fetch_one(
    dir: &Path,
    base: &str,
    version: &str,
    timeout: Duration,
) -> Result<Fetched, FetchError> {
    let pinned = crate::record::version::revision(version)
        .map(|r| &r.schema)
        .ok_or_else(|| FetchError::Download(format!("no pinned schema for version {version}")))?;
    let path = dir.join(format!("{version}.json"));
    if std::fs::read(&path).is_ok_and(|bytes| sha256_hex(&bytes) == *pinned) {
        return Ok(Fetched::Present);
    }
    let url = url(base, version);
    let authority = crate::record::url::parse_url(&url)
        .map_err(|e| FetchError::Download(e.to_string()))?
        .authority()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let request = HttpRequest {
        method: "GET".into(),
        url: url.clone(),
        headers: vec![
            ("Host".into(), authority),
            ("Accept".into(), "application/json, text/plain".into()),
            (
                "User-Agent".into(),
                format!("mcpcheck/{}", env!("CARGO_PKG_VERSION")),
            ),
        ],
        body: Vec::new(),
        drop_after_events: None,
        stream_for: None,
        reuse: None,
    };
    let response = tokio::time::timeout(
        timeout,
        http::send(&request, MAX_FILE, timeout, None, &|_| false),
    )
    .await
    .map_err(|_| FetchError::Download(format!("{url}: no answer within {} s", timeout.as_secs())))?
    .map_err(|e| FetchError::Download(format!("{url}: {e}")))?;
    if response.status != 200 {
        return Err(FetchError::Download(format!(
            "{url}: HTTP {}",
            response.status
        )));
    }
    if response.body_bytes > MAX_FILE {
        return Err(FetchError::Download(format!(
            "{url}: the file exceeds {MAX_FILE} bytes"
        )));
    }
    let bytes = response.body.into_bytes();
    let got = sha256_hex(&bytes);
    if got != *pinned {
        return Err(FetchError::Checksum(format!(
            "{url}: sha256 {got}, but the pinned file has {pinned}; nothing was written"
        )));
    }
    let partial = dir.join(format!(".{version}.json.partial"));
    std::fs::write(&partial, &bytes)
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|e| FetchError::Io(format!("{}: {e}", path.display())))?;
    Ok(Fetched::Downloaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_a_known_digest() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn every_known_version_is_pinned() {
        assert!(crate::record::version::revisions()
            .iter()
            .all(|r| r.schema.len() == 64 && r.schema.bytes().all(|b| b.is_ascii_hexdigit())));
        assert_eq!(commit().len(), 40);
    }

    #[test]
    fn urls_name_the_commit_and_the_version() {
        assert_eq!(
            url("http://mirror.example/", "2025-11-25"),
            format!(
                "http://mirror.example/{}/schema/2025-11-25/schema.json",
                commit()
            )
        );
    }
}
