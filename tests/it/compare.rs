use serde_json::Value;

use crate::support::{mcpcheck, reference_server, stdio_command, HttpServer};

fn matrix(args: &[&str]) -> (i32, Value, String) {
    let output = mcpcheck()
        .arg("compare")
        .args(args)
        .args(["--json", "-"])
        .output()
        .unwrap();
    let matrix = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (
        output.status.code().unwrap(),
        matrix,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_matrix_over_servers_puts_disagreements_first_with_what_was_observed() {
    let http = HttpServer::start(&["missing-resource-internal-error"]);
    let dir = tempfile::tempdir().unwrap();
    let (markdown, html) = (dir.path().join("m.md"), dir.path().join("m.html"));
    let (code, matrix, table) = matrix(&[
        "--stdio",
        &stdio_command(&[]),
        "--stdio",
        &stdio_command(&["unknown-tool-is-error"]),
        "--url",
        &http.url,
        "--name",
        "clean",
        "--name",
        "is-error",
        "--name",
        "http",
        "--markdown",
        markdown.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    // One server failed a MUST (-32603 for a missing resource): the comparison exits as `run`
    // would for it, and failures are counted apart from warnings.
    assert_eq!(code, 1);
    let counts = table
        .lines()
        .find(|l| l.trim_start().starts_with("failed / warnings"))
        .unwrap_or_else(|| panic!("no failed / warnings row:\n{table}"));
    assert!(
        counts.contains("0 / 0") && counts.contains("0 / 1") && counts.contains("1 / 0"),
        "{counts}"
    );
    let names: Vec<&str> = matrix["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["clean", "is-error", "http"]);
    assert_eq!(matrix["servers"][0]["score"], 100.0);
    let rows = matrix["rows"].as_array().unwrap();
    let disagreeing: Vec<&str> = rows
        .iter()
        .take_while(|r| r["disagree"] == true)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(
        disagreeing.contains(&"tools-call-unknown-tool")
            && disagreeing.contains(&"resources-read-missing-error"),
        "{disagreeing:?}"
    );
    assert!(
        !disagreeing.contains(&"stdio-framing"),
        "a check that does not apply to one transport is no disagreement"
    );
    let unknown = rows
        .iter()
        .find(|r| r["id"] == "tools-call-unknown-tool")
        .unwrap();
    assert_eq!(unknown["cells"][1]["status"], "warn");
    assert_eq!(unknown["cells"][1]["observed"], "isError");
    let missing = rows
        .iter()
        .find(|r| r["id"] == "resources-read-missing-error")
        .unwrap();
    assert_eq!(missing["cells"][2]["observed"], "HTTP 200 -32603");
    assert!(
        missing["cells"][2]["evidence"][0]["sent"]
            .as_str()
            .unwrap()
            .contains("resources/read"),
        "each cell leads to the exchange"
    );
    assert!(
        table.contains("! isError") && table.contains("✗ H200 -32603"),
        "{table}"
    );
    assert!(
        table.lines().all(|l| l.chars().count() <= 120),
        "the table fits 120 columns:\n{table}"
    );
    let md = std::fs::read_to_string(markdown).unwrap();
    assert!(md.contains("| [`tools-call-unknown-tool`](https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling) ⚡ | SHOULD | ✓ | ! `isError` | ✓ |"), "{md}");
    let page = std::fs::read_to_string(html).unwrap();
    assert!(page.contains("<details><summary>! isError</summary>") && !page.contains("<script"));
}

#[test]
fn a_servers_file_names_servers_and_shards_split_them() {
    let dir = tempfile::tempdir().unwrap();
    let servers = dir.path().join("servers.toml");
    let server = reference_server().display().to_string();
    std::fs::write(
        &servers,
        format!(
            "[[server]]\nname = \"a\"\nstdio = {server:?}\n\n[[server]]\nname = \"b\"\nstdio = \"{server} --quirk ping-error\"\n\n[[server]]\nname = \"c\"\nstdio = \"{server} --stateless\"\n"
        ),
    )
    .unwrap();
    let config = servers.to_str().unwrap();
    let names = |m: &Value| {
        m["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let (_, all, _) = matrix(&["--config", config, "--check", "ping-*"]);
    assert_eq!(names(&all), ["a", "b", "c"]);
    let ping = &all["rows"][0];
    assert_eq!(
        (
            ping["id"].as_str().unwrap(),
            ping["disagree"].as_bool().unwrap()
        ),
        ("ping-empty-result", true)
    );
    let (_, first, _) = matrix(&["--config", config, "--check", "ping-*", "--shard", "1/2"]);
    let (_, second, _) = matrix(&["--config", config, "--check", "ping-*", "--shard", "2/2"]);
    assert_eq!(names(&first), ["a", "c"]);
    assert_eq!(names(&second), ["b"]);
    std::fs::write(&servers, "[[server]]\nname = \"a\"\nstdoi = \"x\"\n").unwrap();
    let out = mcpcheck()
        .args(["compare", "--config", config])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("servers.toml:3: unknown key `stdoi`"));
}

#[test]
fn a_server_that_could_not_be_tested_agrees_with_nobody_and_the_comparison_exits_3() {
    let (code, matrix, table) = matrix(&[
        "--stdio",
        &stdio_command(&[]),
        "--stdio",
        "sh -c 'exit 7'",
        "--name",
        "clean",
        "--name",
        "dead",
    ]);
    assert_eq!(code, 3, "{table}");
    let rows = matrix["rows"].as_array().unwrap();
    let judged: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            r["cells"][0]["status"]
                .as_str()
                .is_some_and(|s| s != "skip")
        })
        .collect();
    assert!(!judged.is_empty());
    assert!(
        judged.iter().all(|r| r["disagree"] == true),
        "a row judged on the clean server agrees with the dead one"
    );
    assert!(!table.contains("all agree"), "{table}");
}

#[test]
fn servers_that_all_conform_compare_with_exit_0() {
    let (code, _, table) = matrix(&[
        "--stdio",
        &stdio_command(&[]),
        "--stdio",
        &stdio_command(&[]),
    ]);
    assert_eq!(code, 0, "{table}");
}
