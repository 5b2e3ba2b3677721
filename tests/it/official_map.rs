//! tests/official/parity.toml maps every check of the official conformance suite (per server
//! scenario) to the mcpcheck checks that judge the same requirement. Here it is held to
//! mcpcheck's library (every check it names exists) and rendered into docs/coverage.md, which
//! must match it (`MCPCHECK_UPDATE_DOCS=1 cargo test --test it official_map` rewrites the
//! table). The official-suite test (`official.rs`) holds it to the suite: every check id a run
//! of the pinned suite reports must be listed.

use std::collections::BTreeSet;

use serde::Deserialize;

/// One official check and its counterparts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The official scenario, as `conformance list --server` names it.
    pub scenario: String,
    /// The official check id.
    pub id: String,
    /// The mcpcheck checks that judge the same requirement (none: the note says why).
    pub mcpcheck: Vec<String>,
    /// How mcpcheck's judgment differs, or why there is no counterpart.
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    check: Vec<Entry>,
}

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/official/parity.toml");
const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/coverage.md");
const START: &str = "<!-- official-checks:start -->";
const END: &str = "<!-- official-checks:end -->";

/// The map, as written.
pub fn entries() -> Vec<Entry> {
    let text = std::fs::read_to_string(FILE).unwrap();
    toml::from_str::<File>(&text)
        .unwrap_or_else(|e| panic!("tests/official/parity.toml: {e}"))
        .check
}

/// The official scenario a folder of the suite's `--output-dir` holds: `server-NAME-TIMESTAMP`.
pub fn scenario_of_folder(folder: &str) -> Option<&str> {
    let name = folder.strip_prefix("server-")?;
    // The timestamp is `YYYY-MM-DDTHH-MM-SS-mmmZ`, 24 characters after its dash.
    let cut = name.len().checked_sub(25)?;
    (name.as_bytes().get(cut) == Some(&b'-')).then(|| &name[..cut])
}

fn render(entries: &[Entry]) -> String {
    let mut out = String::from(
        "| official scenario | official check | mcpcheck check(s) | note |\n|---|---|---|---|\n",
    );
    for e in entries {
        let ours = if e.mcpcheck.is_empty() {
            "—".to_string()
        } else {
            e.mcpcheck
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.push_str(&format!(
            "| `{}` | `{}` | {ours} | {} |\n",
            e.scenario,
            e.id,
            e.note.as_deref().unwrap_or("").replace('|', "\\|")
        ));
    }
    out
}

#[test]
fn every_official_check_is_mapped_to_checks_that_exist_and_the_coverage_table_is_current() {
    let entries = entries();
    let ours: BTreeSet<String> = mcpcheck::scenario::load::library()
        .unwrap()
        .iter()
        .flat_map(|s| s.checks.iter().map(|c| c.def.id.clone()))
        .chain(
            mcpcheck::check::wire::definitions()
                .into_iter()
                .map(|d| d.id),
        )
        .collect();
    let mut seen = BTreeSet::new();
    for e in &entries {
        assert!(
            seen.insert((e.scenario.clone(), e.id.clone())),
            "{} / {} is listed twice",
            e.scenario,
            e.id
        );
        for c in &e.mcpcheck {
            assert!(
                ours.contains(c),
                "{} / {}: no mcpcheck check `{c}`",
                e.scenario,
                e.id
            );
        }
        assert!(
            !e.mcpcheck.is_empty() || e.note.as_deref().is_some_and(|n| !n.is_empty()),
            "{} / {}: no counterpart, and no note saying why",
            e.scenario,
            e.id
        );
    }
    let scenarios: BTreeSet<&str> = entries.iter().map(|e| e.scenario.as_str()).collect();
    assert_eq!(scenarios.len(), 65, "alpha.12 has 65 server scenarios");
    assert_eq!(entries.len(), 266, "alpha.12's runs report 266 check ids");

    let doc = std::fs::read_to_string(DOC).unwrap();
    let (head, rest) = doc
        .split_once(START)
        .expect("docs/coverage.md has the start marker");
    let (_, tail) = rest
        .split_once(END)
        .expect("docs/coverage.md has the end marker");
    let fresh = format!("{head}{START}\n{}{END}{tail}", render(&entries));
    if std::env::var_os("MCPCHECK_UPDATE_DOCS").is_some() {
        std::fs::write(DOC, &fresh).unwrap();
    } else {
        assert!(
            doc == fresh,
            "docs/coverage.md's table of official checks is not tests/official/parity.toml's: run MCPCHECK_UPDATE_DOCS=1 cargo test --test it official_map"
        );
    }
}

#[test]
fn output_folders_name_their_scenario() {
    assert_eq!(
        scenario_of_folder("server-server-initialize-2026-11-27T05-53-47-291Z"),
        Some("server-initialize")
    );
    assert_eq!(
        scenario_of_folder("server-caching-2026-11-27T05-53-47-291Z"),
        Some("caching")
    );
    assert_eq!(scenario_of_folder("client-x"), None);
}
