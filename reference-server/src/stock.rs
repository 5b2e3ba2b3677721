//! The skills a server serves from its folder (`--skills DIR`), as loaded: what the skills
//! extension's handlers serve (`skills`), and what a quirk may change before any of it is served
//! (`; stocks f`).

use serde_json::Value;

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
