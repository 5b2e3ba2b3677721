use std::collections::{BTreeMap, BTreeSet};

use crate::support::{mcpcheck, run_json, statuses, stdio_command};

#[test]
fn shards_split_the_scenarios_and_merge_rebuilds_the_full_run() {
    let dir = tempfile::tempdir().unwrap();
    let command = stdio_command(&["ping-error", "stdout-banner"]);
    let (_, full, _) = run_json(&["--stdio", &command, "-q"]);
    let full = statuses(&full);
    let mut paths = Vec::new();
    let mut owner: BTreeMap<String, usize> = BTreeMap::new();
    for k in 1..=3 {
        let path = dir.path().join(format!("shard-{k}.json"));
        let out = mcpcheck()
            .args([
                "run",
                "--stdio",
                &command,
                "-q",
                "--shard",
                &format!("{k}/3"),
                "--json",
                path.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(out.status.code().unwrap() <= 1);
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for check in report["checks"].as_array().unwrap() {
            if check["source"] != "built-in" {
                let previous = owner.insert(check["id"].as_str().unwrap().to_string(), k);
                assert!(previous.is_none(), "{} ran in two shards", check["id"]);
            }
        }
        paths.push(path.display().to_string());
    }
    let scenario_checks: BTreeSet<&String> = full
        .keys()
        .filter(|id| !mcpcheck::check::wire::ids().contains(&id.as_str()))
        .collect();
    assert_eq!(
        owner.keys().collect::<BTreeSet<_>>(),
        scenario_checks,
        "every scenario check ran in exactly one shard"
    );

    let merged_path = dir.path().join("merged.json");
    let out = mcpcheck()
        .arg("merge")
        .args(&paths)
        .args(["-q", "--json", merged_path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the merged run fails like the full run"
    );
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged_path).unwrap()).unwrap();
    assert_eq!(
        statuses(&merged),
        full,
        "merged verdicts equal the full run's"
    );
}

#[test]
fn reports_of_different_targets_do_not_merge() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    for (path, quirks) in [(&a, vec![]), (&b, vec!["ping-error"])] {
        mcpcheck()
            .args([
                "run",
                "--stdio",
                &stdio_command(&quirks),
                "-q",
                "--check",
                "jsonrpc-method-not-found",
                "--json",
                path.to_str().unwrap(),
            ])
            .output()
            .unwrap();
    }
    let out = mcpcheck()
        .args(["merge", a.to_str().unwrap(), b.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different targets"));
    let out = mcpcheck()
        .args(["run", "--stdio", "x", "--shard", "4/3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
