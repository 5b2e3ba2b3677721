use serde_json::Value;

use crate::support::{run_json, HttpServer};

#[test]
fn sse_responses_and_their_notifications_are_read_over_http() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("slow.toml"),
        r#"
id = "slow-progress"
area = "it"
title = "a slow tool reports progress"

[requires]
tools = ["mcpcheck_slow"]

[[step]]
name = "slow"
request = { method = "tools/call", params = { name = "mcpcheck_slow", arguments = { steps = 3, delayMs = 10 }, _meta = { progressToken = "tok-1" } } }

[[check]]
id = "slow-progress-result"
title = "the call completes"
level = "MUST"
spec = [{ version = "2025-11-25", section = "basic/utilities/progress" }]
step = "slow"
expect = "a result"
rule = [{ when = { reply = "result" }, verdict = "pass" }]
"#,
    )
    .unwrap();
    let server = HttpServer::start(&[]);
    let (code, report, _) = run_json(&[
        "--url",
        &server.url,
        "--scenarios",
        dir.path().to_str().unwrap(),
        "--no-builtin",
        "-q",
    ]);
    assert_eq!(code, 0);
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "slow-progress-result")
        .unwrap();
    assert_eq!(check["status"], "pass", "{check}");
    let evidence = &check["evidence"][0];
    assert!(
        evidence["responseHeaders"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("content-type: text/event-stream")),
        "{evidence}"
    );
    let progress: Vec<&Value> = evidence["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3, "{evidence}");
    assert_eq!(progress[2]["params"]["progress"], 3);
}
