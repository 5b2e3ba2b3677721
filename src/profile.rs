//! Grading profiles: the versioned set of built-in checks that count toward the verdict, so that
//! upgrading mcpcheck never silently re-grades a server. Checks added after a profile was frozen
//! are still run and reported, but only as observations until the user moves to a newer profile.

/// One frozen set of graded checks: the built-in checks whose `since` names it or an older
/// profile.
#[derive(Debug)]
pub struct Profile {
    /// Its name (`YYYY.MM`, or `YYYY.MM.N` for a later profile of the same month).
    pub name: &'static str,
}

/// Every profile, oldest first; each grades what the one before it grades and the checks whose
/// `since` names it. When checks are added, add a profile here (never change a released one)
/// and name it in their `since`; the tests insist on both.
pub const PROFILES: &[Profile] = &[
    Profile { name: "2026.11" },
    Profile { name: "2026.11.1" },
    Profile { name: "2026.11.2" },
    Profile { name: "2026.11.3" },
    Profile { name: "2026.11.4" },
    Profile { name: "2026.11.5" },
    Profile { name: "2026.11.6" },
    Profile { name: "2026.11.7" },
    Profile { name: "2026.11.8" },
    Profile { name: "2026.11.9" },
    Profile { name: "2026.11.10" },
];

/// The profile that first grades a check, if it is one of mcpcheck's own: a built-in wire
/// check, or a check of the scenario library compiled into this binary (its source names the
/// library file it came from). A user's check (even one loaded from a folder that happens to be
/// named `scenarios`) has none: every profile grades it.
fn since(id: &str, source: &str) -> Option<Option<&'static str>> {
    static OWN: std::sync::OnceLock<std::collections::HashMap<String, Option<String>>> =
        std::sync::OnceLock::new();
    let own = OWN.get_or_init(|| {
        crate::scenario::load::library()
            .unwrap_or_default()
            .iter()
            .flat_map(|s| s.checks.iter().map(|c| &c.def))
            .cloned()
            .chain(crate::check::wire::definitions())
            .map(|def| (format!("{}@{}", def.id, def.source), def.since))
            .collect()
    });
    own.get(&format!("{id}@{source}"))
        .map(|since| since.as_deref())
}

/// The newest profile, used when none is named.
pub fn latest() -> &'static Profile {
    PROFILES.last().expect("at least one profile")
}

/// Looks a profile up by name.
pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

impl Profile {
    /// Whether a check counts toward the verdict. Checks of the user's own scenarios always do
    /// (wherever their folder is, even one named `scenarios`); built-in ones if their `since`
    /// is this profile or an older one.
    pub fn grades(&self, id: &str, source: &str) -> bool {
        match since(id, source) {
            None => true,
            Some(since) => {
                let at = |name: Option<&str>| PROFILES.iter().position(|p| Some(p.name) == name);
                matches!((at(since), at(Some(self.name))), (Some(a), Some(b)) if a <= b)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::CheckDef;

    #[test]
    fn every_own_check_names_a_profile_and_the_latest_grades_it() {
        let library = crate::scenario::load::library().unwrap();
        let defs: Vec<CheckDef> = library
            .iter()
            .flat_map(|s| s.checks.iter().map(|c| c.def.clone()))
            .chain(crate::check::wire::definitions())
            .collect();
        assert!(defs.len() > 150);
        for def in &defs {
            let since = def.since.as_deref().unwrap_or_else(|| {
                panic!(
                    "`{}` names no `since`: the profile that first grades it",
                    def.id
                )
            });
            assert!(
                find(since).is_some(),
                "`{}` names `since = {since}`, which is no profile in src/profile.rs",
                def.id
            );
            assert!(latest().grades(&def.id, &def.source), "{}", def.id);
        }
        // Every profile grades something the one before it did not.
        for profile in PROFILES {
            assert!(
                defs.iter()
                    .any(|d| d.since.as_deref() == Some(profile.name)),
                "profile {} adds no check",
                profile.name
            );
        }
    }

    #[test]
    fn a_profile_grades_what_it_extends_and_no_later_check() {
        let first = find("2026.11").unwrap();
        let second = find("2026.11.1").unwrap();
        assert!(first.grades(
            "jsonrpc-parse-error",
            "scenarios/jsonrpc/parse-error.toml:1"
        ));
        assert!(second.grades(
            "jsonrpc-parse-error",
            "scenarios/jsonrpc/parse-error.toml:1"
        ));
        assert!(second.grades("stateless-meta-required", "scenarios/stateless/meta.toml:1"));
    }

    #[test]
    fn user_checks_are_always_graded() {
        assert!(latest().grades("my-own-check", "my/scenarios/x.toml:3"));
        // A user's folder named `scenarios` does not make their checks built-in.
        assert!(latest().grades("my-own-check", "scenarios/x.toml:3"));
        assert!(find("2026.11")
            .unwrap()
            .grades("my-own-check", "scenarios/x.toml:3"));
        // A built-in check newer than a profile is not graded by it.
        let library = crate::scenario::load::library().unwrap();
        let meta = library
            .iter()
            .flat_map(|s| &s.checks)
            .find(|c| c.def.id == "stateless-meta-required")
            .unwrap();
        assert!(!find("2026.11")
            .unwrap()
            .grades(&meta.def.id, &meta.def.source));
    }
}
