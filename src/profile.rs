//! Grading profiles: the versioned set of built-in checks that count toward the verdict, so that
//! upgrading mcpcheck never silently re-grades a server. Checks added after a profile was frozen
//! are still run and reported, but only as observations until the user moves to a newer profile.

/// One frozen set of graded checks: mcpcheck's own checks whose `since` names it or an older
/// profile. The profiles are the `since` values the checks name, so a new check that names a new
/// profile makes it; no list of ids or profiles is kept by hand.
#[derive(Debug)]
pub struct Profile {
    /// Its name (`YYYY.MM`, or `YYYY.MM.N` for a later profile of the same month).
    pub name: String,
}

/// How many checks each released profile grades. A released profile never changes (upgrading
/// mcpcheck must not re-grade a server behind the user's back): the tests hold every profile
/// named here to its count, so a new check must name a new profile in its `since`. Add a row
/// when a profile is released.
#[cfg(test)]
const RELEASED: &[(&str, usize)] = &[
    ("2026.11", 48),
    ("2026.11.1", 76),
    ("2026.11.2", 117),
    ("2026.11.3", 143),
    ("2026.11.4", 158),
    ("2026.11.5", 165),
    ("2026.11.6", 167),
    ("2026.11.7", 170),
    ("2026.11.8", 171),
    ("2026.11.9", 186),
    ("2026.11.10", 188),
];

/// Every profile, oldest first: each `since` that a check of the library or a built-in check
/// names.
pub fn all() -> &'static [Profile] {
    static ALL: std::sync::OnceLock<Vec<Profile>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut names: Vec<String> = own()
            .values()
            .flatten()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        names.sort_by_key(|n| order(n));
        names.into_iter().map(|name| Profile { name }).collect()
    })
}

/// A profile name as numbers, for ordering (`2026.11.10` after `2026.11.9`).
fn order(name: &str) -> Vec<u64> {
    name.split('.')
        .map(|part| part.parse().unwrap_or(u64::MAX))
        .collect()
}

/// mcpcheck's own checks, as `id@source`, with the `since` each names.
fn own() -> &'static std::collections::HashMap<String, Option<String>> {
    static OWN: std::sync::OnceLock<std::collections::HashMap<String, Option<String>>> =
        std::sync::OnceLock::new();
    OWN.get_or_init(|| {
        crate::check::definitions(crate::scenario::load::library_ref().unwrap_or_default())
            .into_iter()
            .map(|def| (format!("{}@{}", def.id, def.source), def.since))
            .collect()
    })
}

/// The profile that first grades a check, if it is one of mcpcheck's own: a built-in wire
/// check, or a check of the scenario library compiled into this binary (its source names the
/// library file it came from). A user's check (even one loaded from a folder that happens to be
/// named `scenarios`) has none: every profile grades it.
fn since(id: &str, source: &str) -> Option<Option<&'static str>> {
    own()
        .get(&format!("{id}@{source}"))
        .map(|since| since.as_deref())
}

/// The newest profile, used when none is named.
pub fn latest() -> &'static Profile {
    all().last().expect("at least one profile")
}

/// Looks a profile up by name.
pub fn find(name: &str) -> Option<&'static Profile> {
    all().iter().find(|p| p.name == name)
}

impl Profile {
    /// Whether a check counts toward the verdict. Checks of the user's own scenarios always do
    /// (wherever their folder is, even one named `scenarios`); built-in ones if their `since`
    /// is this profile or an older one.
    pub fn grades(&self, id: &str, source: &str) -> bool {
        match since(id, source) {
            None => true,
            Some(since) => since.is_some_and(|since| order(since) <= order(&self.name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::CheckDef;

    #[test]
    fn every_own_check_names_a_profile_and_the_latest_grades_it() {
        let defs: Vec<CheckDef> =
            crate::check::definitions(&crate::scenario::load::library().unwrap());
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
                "`{}` names `since = {since}`, which is no profile",
                def.id
            );
            assert!(latest().grades(&def.id, &def.source), "{}", def.id);
        }
        // Every released profile grades what it graded when it was released.
        for (name, count) in RELEASED {
            let profile = find(name).unwrap_or_else(|| panic!("released profile {name} is gone"));
            let graded = defs
                .iter()
                .filter(|d| profile.grades(&d.id, &d.source))
                .count();
            assert_eq!(
                graded, *count,
                "profile {name} was released grading {count} checks and now grades {graded}: a new check names a new profile in its `since`"
            );
        }
        // A profile name is YYYY.MM or YYYY.MM.N.
        for profile in all() {
            let parts = order(&profile.name);
            assert!(
                (2..=3).contains(&parts.len()) && parts.iter().all(|p| *p != u64::MAX),
                "`since = {}` is no profile name (YYYY.MM or YYYY.MM.N)",
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
