//! Protocol revisions (read from `revisions.toml`: a revision's name, its wire string, its era,
//! its pages), the two wire eras, and version windows such as `>=2025-06-18`.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;

/// One revision of MCP, as `revisions.toml` describes it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Revision {
    /// What checks, windows, citations and reports call it (`2026-07-28`).
    pub name: String,
    /// The `protocolVersion` string it is spoken with on the wire.
    pub wire: String,
    /// Its era.
    pub era: Era,
    /// Its folder in the specification repository (pages and schema); the name unless given.
    #[serde(default)]
    pub folder: Option<String>,
    /// The sha256 of its schema file at the pinned commit.
    pub schema: String,
    /// The pages it kept from the revision before.
    #[serde(default)]
    pub kept: Option<Kept>,
}

/// The pages a revision kept from the one before it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kept {
    /// The revision they were kept from.
    pub from: String,
    /// Pages kept under the same path, anchors and all.
    #[serde(default)]
    pub same: Vec<String>,
    /// Pages (or `PAGE#ANCHOR`s) that moved, to the page they moved to.
    #[serde(default)]
    pub moved: BTreeMap<String, String>,
}

impl Revision {
    /// Its folder in the specification repository.
    pub fn folder(&self) -> &str {
        self.folder.as_deref().unwrap_or(&self.name)
    }
}

/// The revisions of a table, oldest first, and the specification repository's commit their
/// schema checksums are of.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Revisions {
    /// The commit `mcpcheck schemas fetch` downloads from.
    pub schema_commit: String,
    /// Every revision, oldest first (`[[revision]]` in the file).
    #[serde(rename = "revision")]
    pub list: Vec<Revision>,
}

/// Reads a revision table, checking what the rest of mcpcheck relies on: names and wire strings
/// unique, the eras in order (no handshake revision after a stateless one), `kept.from` the
/// revision just before.
pub fn parse_table(text: &str) -> Result<Revisions, String> {
    let table: Revisions = toml::from_str(text).map_err(|e| e.to_string())?;
    let revisions = &table.list;
    for (i, r) in revisions.iter().enumerate() {
        let earlier = &revisions[..i];
        if earlier.iter().any(|e| e.name == r.name) {
            return Err(format!("revision `{}` is listed twice", r.name));
        }
        if earlier.iter().any(|e| e.wire == r.wire) {
            return Err(format!(
                "revision `{}` is spoken with `{}`, as an earlier revision is",
                r.name, r.wire
            ));
        }
        // A string that is one revision's name and another's wire string would make the two
        // lookups disagree.
        if let Some(other) = revisions
            .iter()
            .find(|o| o.name != r.name && o.name == r.wire)
        {
            return Err(format!(
                "revision `{}` is spoken with `{}`, the name of revision `{}`",
                r.name, r.wire, other.name
            ));
        }
        if r.era == Era::Handshake && earlier.iter().any(|e| e.era == Era::Stateless) {
            return Err(format!(
                "revision `{}` is of the handshake era but follows a stateless one",
                r.name
            ));
        }
        if let Some(kept) = &r.kept {
            if earlier.last().map(|e| e.name.as_str()) != Some(kept.from.as_str()) {
                return Err(format!(
                    "revision `{}` keeps pages from `{}`, which is not the revision before it",
                    r.name, kept.from
                ));
            }
        }
    }
    if revisions.is_empty() {
        return Err("no revision is listed".into());
    }
    Ok(table)
}

/// Every revision mcpcheck knows, oldest first (`revisions.toml`, compiled in).
pub fn revisions() -> &'static [Revision] {
    &table().list
}

/// The compiled-in table.
pub fn table() -> &'static Revisions {
    static ALL: OnceLock<Revisions> = OnceLock::new();
    ALL.get_or_init(|| {
        parse_table(include_str!("revisions.toml")).expect("revisions.toml is a valid table")
    })
}

impl Revisions {
    /// The revision of a name.
    pub fn revision(&self, name: &str) -> Option<&Revision> {
        self.list.iter().find(|r| r.name == name)
    }

    /// The revision spoken with a wire string.
    pub fn by_wire(&self, wire: &str) -> Option<&Revision> {
        self.list.iter().find(|r| r.wire == wire)
    }

    /// A revision's place in the table (older is less).
    pub fn position(&self, name: &str) -> Option<usize> {
        self.list.iter().position(|r| r.name == name)
    }

    /// The newest revision of an era.
    pub fn latest(&self, era: Era) -> Option<&Revision> {
        self.list.iter().rev().find(|r| r.era == era)
    }
}

/// The revision of a name.
pub fn revision(name: &str) -> Option<&'static Revision> {
    table().revision(name)
}

/// The revision spoken with a wire string.
pub fn by_wire(wire: &str) -> Option<&'static Revision> {
    table().by_wire(wire)
}

/// Whether a revision of that name is known.
pub fn known(name: &str) -> bool {
    revision(name).is_some()
}

/// The wire string of a revision; an unknown name is sent as it is.
pub fn wire(name: &str) -> &str {
    revision(name).map_or(name, |r| r.wire.as_str())
}

/// The revision a name or a wire string stands for (a user may give either).
pub fn named_or_wire(text: &str) -> Option<&'static Revision> {
    revision(text).or_else(|| by_wire(text))
}

/// The known revisions' names, `, `-joined, for messages.
pub fn names_joined() -> String {
    revisions()
        .iter()
        .map(|r| r.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A revision's place in the table (older is less).
pub fn position(name: &str) -> Option<usize> {
    table().position(name)
}

/// Whether revision `name` is `floor` or later; false when either is unknown.
pub fn at_least(name: &str, floor: &str) -> bool {
    matches!((position(name), position(floor)), (Some(a), Some(b)) if a >= b)
}

/// The newest revision of an era: what mcpcheck asks for there by default.
pub fn latest(era: Era) -> &'static Revision {
    table()
        .latest(era)
        .expect("revisions.toml lists a revision of each era")
}

/// The newest revision of the handshake era's name; what `initialize` asks for by default.
pub fn latest_handshake() -> &'static str {
    &latest(Era::Handshake).name
}

/// The newest revision of the stateless era's name.
pub fn latest_stateless() -> &'static str {
    &latest(Era::Stateless).name
}

/// The two wire eras of MCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: `initialize`, then a session.
    Handshake,
    /// 2026-07-28 on: no handshake; every request carries `_meta`; `server/discover`.
    Stateless,
}

impl Era {
    /// The era a known revision belongs to.
    pub fn of(version: &str) -> Option<Era> {
        revision(version).map(|r| r.era)
    }
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Era::Handshake => "handshake",
            Era::Stateless => "stateless",
        })
    }
}

/// A window of protocol versions, both ends inclusive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VersionRange {
    /// The oldest version in the window, if bounded.
    pub min: Option<String>,
    /// The newest version in the window, if bounded.
    pub max: Option<String>,
}

/// A version a window names that is no revision mcpcheck knows.
#[derive(Debug, thiserror::Error)]
#[error("unknown protocol version `{version}` (known: {})", names_joined())]
pub struct UnknownVersion {
    /// The version as written.
    pub version: String,
}

impl From<UnknownVersion> for String {
    fn from(error: UnknownVersion) -> String {
        error.to_string()
    }
}

impl VersionRange {
    /// Parses `*`, `V`, `>=V`, `<=V` or `V1..V2`, where each V is a known version.
    pub fn parse(text: &str) -> Result<VersionRange, UnknownVersion> {
        let text = text.trim();
        let known = |v: &str| -> Result<String, UnknownVersion> {
            let v = v.trim();
            if known(v) {
                Ok(v.to_string())
            } else {
                Err(UnknownVersion {
                    version: v.to_string(),
                })
            }
        };
        if text == "*" {
            Ok(VersionRange::default())
        } else if let Some(v) = text.strip_prefix(">=") {
            Ok(VersionRange {
                min: Some(known(v)?),
                max: None,
            })
        } else if let Some(v) = text.strip_prefix("<=") {
            Ok(VersionRange {
                min: None,
                max: Some(known(v)?),
            })
        } else if let Some((a, b)) = text.split_once("..") {
            Ok(VersionRange {
                min: Some(known(a)?),
                max: Some(known(b)?),
            })
        } else {
            let v = known(text)?;
            Ok(VersionRange {
                min: Some(v.clone()),
                max: Some(v),
            })
        }
    }

    /// Whether revision `version` lies inside the window (in the table's order; an unknown
    /// revision lies only in the unbounded window).
    pub fn contains(&self, version: &str) -> bool {
        let at = position(version);
        self.min
            .as_deref()
            .is_none_or(|min| matches!((at, position(min)), (Some(a), Some(m)) if a >= m))
            && self
                .max
                .as_deref()
                .is_none_or(|max| matches!((at, position(max)), (Some(a), Some(m)) if a <= m))
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.min, &self.max) {
            (None, None) => f.write_str("*"),
            (Some(a), Some(b)) if a == b => f.write_str(a),
            (Some(a), Some(b)) => write!(f, "{a}..{b}"),
            (Some(a), None) => write!(f, ">={a}"),
            (None, Some(b)) => write!(f, "<={b}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table this binary carries, with a next revision appended as its entry would be
    /// written: named after its date, spoken with a draft string, its pages in `draft`.
    fn with_next() -> Revisions {
        let next = r#"
[[revision]]
name = "2026-12-15"
wire = "DRAFT-2026-v2"
era = "stateless"
folder = "draft"
schema = "0000000000000000000000000000000000000000000000000000000000000000"

[revision.kept]
from = "2026-07-28"
same = ["server/tools"]
"#;
        parse_table(&format!("{}{next}", include_str!("revisions.toml"))).unwrap()
    }

    #[test]
    fn the_table_is_valid_and_has_a_revision_of_each_era() {
        let table = table();
        assert_eq!(latest_handshake(), "2025-11-25");
        assert_eq!(latest_stateless(), "2026-07-28");
        assert!(
            table.list.iter().all(|r| r.wire == r.name),
            "every released revision"
        );
        assert_eq!(wire("2026-07-28"), "2026-07-28");
        assert_eq!(
            by_wire("2025-06-18").map(|r| r.name.as_str()),
            Some("2025-06-18")
        );
    }

    #[test]
    fn a_next_revision_is_an_entry_of_the_table() {
        let table = with_next();
        let next = table.latest(Era::Stateless).unwrap();
        assert_eq!(
            (next.name.as_str(), next.wire.as_str()),
            ("2026-12-15", "DRAFT-2026-v2")
        );
        assert_eq!(next.folder(), "draft");
        assert_eq!(table.by_wire("DRAFT-2026-v2").unwrap().name, "2026-12-15");
        assert!(
            table.revision("DRAFT-2026-v2").is_none(),
            "a wire string is no name"
        );
        assert!(table.position("2026-12-15") > table.position("2026-07-28"));
        assert_eq!(table.latest(Era::Handshake).unwrap().name, "2025-11-25");
    }

    #[test]
    fn a_table_out_of_order_is_refused() {
        let text = include_str!("revisions.toml");
        let twice = format!("{text}\n[[revision]]\nname = \"2025-06-18\"\nwire = \"x\"\nera = \"stateless\"\nschema = \"\"\n");
        assert!(parse_table(&twice).unwrap_err().contains("listed twice"));
        let late = format!("{text}\n[[revision]]\nname = \"2027-01-01\"\nwire = \"2027-01-01\"\nera = \"handshake\"\nschema = \"\"\n");
        assert!(parse_table(&late)
            .unwrap_err()
            .contains("follows a stateless one"));
        let kept = format!("{text}\n[[revision]]\nname = \"2027-01-01\"\nwire = \"2027-01-01\"\nera = \"stateless\"\nschema = \"\"\n[revision.kept]\nfrom = \"2025-11-25\"\n");
        assert!(parse_table(&kept)
            .unwrap_err()
            .contains("not the revision before it"));
    }

    #[test]
    fn eras_split_at_2026() {
        assert_eq!(Era::of("2025-11-25"), Some(Era::Handshake));
        assert_eq!(Era::of("2024-11-05"), Some(Era::Handshake));
        assert_eq!(Era::of("2026-07-28"), Some(Era::Stateless));
        assert_eq!(Era::of("1900-01-01"), None);
    }

    #[test]
    fn ranges_parse_and_contain() {
        let r = VersionRange::parse("<=2025-11-25").unwrap();
        assert!(r.contains("2024-11-05") && r.contains("2025-11-25") && !r.contains("2026-07-28"));
        let r = VersionRange::parse("2025-03-26..2025-06-18").unwrap();
        assert!(!r.contains("2024-11-05") && r.contains("2025-06-18") && !r.contains("2025-11-25"));
        assert_eq!(
            VersionRange::parse("2025-06-18").unwrap().to_string(),
            "2025-06-18"
        );
        assert!(VersionRange::parse(">=2025-13-01")
            .unwrap_err()
            .to_string()
            .contains("unknown protocol version `2025-13-01` (known: 2024-11-05"));
    }
}
