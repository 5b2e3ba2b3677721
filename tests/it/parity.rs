//! The official suite's known false results (spec-reference §1.4, §3) do not happen here.

use crate::support::{reference_server, run_json, statuses};

fn tools_only(extra: &str) -> String {
    format!(
        "{} --capabilities tools --no-official-fixtures {extra}",
        reference_server().display()
    )
}

/// #516: a server that declares only `tools` is not failed for the capabilities it never
/// declared; it scores 100 %, and the gated checks say why they were skipped.
#[test]
fn a_tools_only_server_scores_full_marks() {
    for era in ["", "--stateless"] {
        let (code, report, _) = run_json(&["--stdio", &tools_only(era), "-q"]);
        assert_eq!(code, 0, "{era}: {}", report["summary"]);
        assert_eq!(report["summary"]["fail"], 0);
        assert_eq!(report["summary"]["warn"], 0);
        let checks = report["checks"].as_array().unwrap();
        let find = |id: &str| checks.iter().find(|c| c["id"] == id).unwrap();
        assert_eq!(find("prompts-list-shape")["status"], "skip");
        assert!(find("prompts-list-shape")["message"]
            .as_str()
            .unwrap()
            .contains("does not declare the `prompts` capability"));
        assert_eq!(find("prompts-undeclared-not-served")["status"], "pass");
        assert_eq!(find("resources-undeclared-not-served")["status"], "pass");
        assert_eq!(find("tools-list-shape")["status"], "pass");
    }
}

/// #515 / #505: a fixture tool the server does not have is not passed because the server
/// answers every unknown tool with an `isError` result.
#[test]
fn a_missing_fixture_tool_answered_with_is_error_fails() {
    let command = tools_only("--quirk unknown-tool-is-error");
    let (code, report, _) = run_json(&["--stdio", &command, "--fixtures", "everything", "-q"]);
    assert_eq!(code, 1);
    let checks = report["checks"].as_array().unwrap();
    let content = checks
        .iter()
        .find(|c| c["id"] == "everything-tool-content")
        .unwrap();
    assert_eq!(content["status"], "fail");
    assert!(
        content["message"].as_str().unwrap().contains("isError"),
        "{}",
        content["message"]
    );
    let error = checks
        .iter()
        .find(|c| c["id"] == "everything-tool-error")
        .unwrap();
    assert_eq!(
        error["status"], "skip",
        "an isError from an unknown tool must not pass as the failing fixture"
    );
    // The same server with the fixtures passes them.
    let command = format!("{} --capabilities tools", reference_server().display());
    let (_, report, _) = run_json(&["--stdio", &command, "--fixtures", "everything", "-q"]);
    let all = statuses(&report);
    assert_eq!(all["everything-tool-content"], "pass");
    assert_eq!(all["everything-tool-error"], "pass");
}

/// #378: a server that processes a batch at 2025-06-18 or later fails.
#[test]
fn a_processed_batch_fails() {
    let command = format!("{} --quirk accept-batches", reference_server().display());
    let (_, report, _) = run_json(&["--stdio", &command, "-q"]);
    assert_eq!(statuses(&report)["jsonrpc-batch-rejected"], "fail");
}
