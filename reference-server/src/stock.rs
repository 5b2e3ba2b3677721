//! The skills a server serves from its folder (`--skills DIR`), as loaded: what the skills
//! extension's handlers serve (`skills`), and what a quirk may change before any of it is served
//! (`; stocks f`).

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The skills of a folder and the URI scheme their files are read under.
#[derive(Debug)]
pub struct Stock {
    /// The scheme of the skills' URIs (`skill`).
    pub scheme: &'static str,
    /// The skills, by path.
    pub skills: Vec<Skill>,
}

/// One skill: its path under the folder, its frontmatter as JSON and its files.
#[derive(Debug)]
pub struct Skill {
    /// Its path under the folder (`tools/code-review`), the last segment its name.
    pub path: String,
    /// Its SKILL.md's frontmatter.
    pub frontmatter: Value,
    /// Every file under the skill's folder (nested skills' too), by path inside it, SKILL.md
    /// first, then in name order.
    pub files: Vec<(String, Vec<u8>)>,
}

impl Stock {
    /// The URI of a skill's folder (`skill://tools/code-review`).
    pub fn root(&self, skill: &Skill) -> String {
        format!("{}://{}", self.scheme, skill.path)
    }
}

/// `sha256:` and the hex of the bytes' SHA-256, as a skill's entry gives a file's digest.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}
