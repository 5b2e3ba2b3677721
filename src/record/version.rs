//! Protocol versions, the two wire eras, and version windows such as `>=2025-06-18`.

use std::fmt;

/// Every released protocol version mcpcheck knows, oldest first.
pub const KNOWN_VERSIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// The newest version of the handshake era; what mcpcheck asks for in `initialize` by default.
pub const LATEST_HANDSHAKE: &str = "2025-11-25";

/// The newest version of the stateless era.
pub const LATEST_STATELESS: &str = "2026-07-28";

/// The two wire eras of MCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: `initialize`, then a session.
    Handshake,
    /// 2026-07-28 on: no handshake; every request carries `_meta`; `server/discover`.
    Stateless,
}

impl Era {
    /// The era a known version belongs to.
    pub fn of(version: &str) -> Option<Era> {
        if !KNOWN_VERSIONS.contains(&version) {
            None
        } else if version >= LATEST_STATELESS {
            Some(Era::Stateless)
        } else {
            Some(Era::Handshake)
        }
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

impl VersionRange {
    /// Parses `*`, `V`, `>=V`, `<=V` or `V1..V2`, where each V is a known version.
    pub fn parse(text: &str) -> Result<VersionRange, String> {
        let text = text.trim();
        let known = |v: &str| -> Result<String, String> {
            let v = v.trim();
            if KNOWN_VERSIONS.contains(&v) {
                Ok(v.to_string())
            } else {
                Err(format!(
                    "unknown protocol version `{v}` (known: {})",
                    KNOWN_VERSIONS.join(", ")
                ))
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

    /// Whether `version` lies inside the window.
    pub fn contains(&self, version: &str) -> bool {
        self.min.as_deref().is_none_or(|min| version >= min)
            && self.max.as_deref().is_none_or(|max| version <= max)
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
            .contains("unknown protocol version"));
    }
}
