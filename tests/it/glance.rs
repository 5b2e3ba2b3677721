use serde_json::Value;

use crate::support::{mcpcheck, output, reference_server, run_json, stdio_command};

const FAIL_AND_WARN: &[&str] = &["missing-resource-empty-contents", "unknown-tool-is-error"];

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn ids(report: &Value, status: Option<&str>) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| status.is_none_or(|s| c["status"] == s))
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_clean_run_fits_one_screen_and_counts_what_did_not_apply_by_reason() {
    let out = output(&["run", "--stdio", &stdio_command(&[])]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() <= 40, "{} lines:\n{text}", lines.len());
    assert!(lines.iter().all(|l| l.chars().count() <= 120), "{text}");
    assert!(
        text.contains(" jsonrpc ") && text.contains(" passed"),
        "{text}"
    );
    assert!(text.contains("\nnot applicable ("), "{text}");
    assert!(text.contains(" need the http transport"), "{text}");
    assert!(
        text.contains(" need the `everything` fixtures (--fixtures everything)"),
        "{text}"
    );
    // No row per check: no check id of a passing check is printed.
    assert!(!text.contains("ping-empty-result"), "{text}");
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("conforms to MCP 2025-11-25: "),
        "{text}"
    );
}

#[test]
fn show_all_brings_back_every_check_and_show_skipped_each_that_did_not_apply() {
    let (_, report, _) = run_json(&["--stdio", &stdio_command(&[]), "-q"]);
    let all = stdout(&output(&[
        "run",
        "--stdio",
        &stdio_command(&[]),
        "--show",
        "all",
    ]));
    for id in ids(&report, None) {
        assert!(all.contains(&id), "--show all lacks {id}");
    }
    let skipped = stdout(&output(&[
        "run",
        "--stdio",
        &stdio_command(&[]),
        "--show",
        "skipped",
    ]));
    for id in ids(&report, Some("skip")) {
        assert!(
            skipped.contains(&format!("       {id}: ")),
            "--show skipped lacks {id}"
        );
    }
    assert!(!skipped.contains("ping-empty-result"), "{skipped}");
}

#[test]
fn each_problem_takes_at_most_five_lines_and_verbose_shows_the_exchange() {
    let out = output(&["run", "--stdio", &stdio_command(FAIL_AND_WARN)]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let problems = text.find("\nproblems\n").expect("a problems section");
    let areas = text.find("\n resources ").expect("an area line");
    assert!(problems < areas, "problems come first:\n{text}");
    for part in [
        "fail resources-read-missing-error (MUST)",
        "    a resource that does not exist was read as empty contents",
        "    expected: JSON-RPC error -32602",
        "    actual:   result {\"contents\":[]}",
        "    see:      scenarios/resources/read-missing.toml:",
        "warn tools-call-unknown-tool (SHOULD)",
    ] {
        assert!(text.contains(part), "{part}\n{text}");
    }
    // Each problem: its header and at most four lines under it, then a blank line.
    let section = &text[problems + 1..areas];
    for block in section
        .split("\n\n")
        .skip(1)
        .filter(|b| !b.trim().is_empty())
    {
        if block.starts_with("derived:") {
            continue;
        }
        assert!(block.lines().count() <= 5, "{block}");
        let header = block.lines().next().unwrap();
        assert!(
            ["fail ", "warn ", "error ", "not-testable "]
                .iter()
                .any(|s| header.starts_with(s)),
            "{block}"
        );
    }
    // A message that only restates the expectation is not printed twice.
    assert!(!text.contains("    expected JSON-RPC"), "{text}");
    let line = |area: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!(" {area} ")))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        line("resources").contains(" 1 failed, 1 not testable, "),
        "{text}"
    );
    assert!(line("tools").contains(" 1 warning, "), "{text}");
    // The areas where everything passed share a line.
    assert!(text.contains("\n all passed in "), "{text}");
    // -v: every problem in full, with the exchange.
    let verbose = stdout(&output(&[
        "run",
        "--stdio",
        &stdio_command(FAIL_AND_WARN),
        "-v",
    ]));
    for part in [
        "    → read: {\"jsonrpc\":\"2.0\"",
        "    ← {\"jsonrpc\":\"2.0\"",
        "    spec:     https://modelcontextprotocol.io/specification/",
    ] {
        assert!(verbose.contains(part), "{part}\n{verbose}");
    }
}

#[test]
fn a_problem_found_in_both_eras_is_shown_once_naming_both() {
    let command = format!("{} --dual-era", stdio_command(&["unknown-tool-is-error"]));
    let out = output(&["run", "--stdio", &command]);
    assert_eq!(out.status.code(), Some(0), "a SHOULD warns");
    let text = stdout(&out);
    let headers: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("warn tools-call-unknown-tool"))
        .collect();
    assert_eq!(headers.len(), 1, "{text}");
    assert!(
        headers[0].ends_with(" · at 2026-07-28 and 2025-11-25")
            || headers[0].ends_with(" · at 2025-11-25 and 2026-07-28"),
        "{text}"
    );
    // The JSON report keeps one result per era, each citing its own version's pages.
    let (_, report, _) = run_json(&["--stdio", &command, "-q"]);
    let cited: Vec<(String, String)> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["id"] == "tools-call-unknown-tool")
        .map(|c| {
            (
                c["version"].as_str().unwrap().to_string(),
                c["spec"][0]["url"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(cited.len(), 2, "{cited:?}");
    for (version, url) in cited {
        assert!(
            url.contains(&format!("/specification/{version}/")),
            "{version}: {url}"
        );
    }
}

#[test]
fn every_pass_names_what_it_examined() {
    // A pass rests on an exchange (its evidence) or, for a check over the whole run, on a count
    // of what it examined, never on nothing: on a server with full lists and on one whose every
    // list is empty.
    for extra in ["", " --empty-lists", " --dual-era"] {
        let command = format!("{}{extra}", stdio_command(&[]));
        let (_, report, _) = run_json(&["--stdio", &command, "-q"]);
        for check in report["checks"].as_array().unwrap() {
            if check["status"] != "pass" {
                continue;
            }
            let evidence = check["evidence"].as_array().is_some_and(|e| !e.is_empty());
            let counted = check["message"]
                .as_str()
                .and_then(|m| m.split_once(" examined"))
                .and_then(|(n, _)| n.parse::<usize>().ok())
                .is_some_and(|n| n > 0);
            assert!(
                evidence || counted,
                "{}{extra}: a pass that names nothing it examined: {check}",
                check["id"]
            );
        }
    }
}

#[test]
fn failures_and_warnings_are_github_annotations_under_github_actions() {
    let args = [
        "run",
        "--stdio",
        &stdio_command(FAIL_AND_WARN),
        "--check",
        "resources-read-missing-*",
        "--check",
        "tools-call-unknown-tool",
    ];
    let expected = [
        "::error title=resources-read-missing-error (MUST)::a missing resource is a JSON-RPC error -32602, never empty contents — a resource that does not exist was read as empty contents, which SEP-2164 forbids%0Aexpected: JSON-RPC error -32602 (Invalid params); -32002 is accepted from a server on 2025-11-25 or earlier%0Aactual: result {\"contents\":[]}%0Aspec: https://modelcontextprotocol.io/specification/2026-07-28/server/resources#error-handling",
        "::warning title=tools-call-unknown-tool (SHOULD)::an unknown tool is a protocol error (-32602), not a tool result — answered with a tool result marked isError instead of a protocol error%0Aexpected: JSON-RPC error -32602 (Invalid params)%0Aactual: result {\"content\":[{\"type\":\"text\",\"text\":\"Unknown tool: mcpcheck_no_such_tool_e3b0c442\"}],\"isError\":true}%0Aspec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling",
    ];
    let annotations = |out: std::process::Output| -> Vec<String> {
        stdout(&out)
            .lines()
            .filter(|l| l.starts_with("::"))
            .map(str::to_string)
            .collect()
    };
    let github = mcpcheck()
        .args(args)
        .env("GITHUB_ACTIONS", "true")
        .output()
        .unwrap();
    assert_eq!(github.status.code(), Some(1));
    assert_eq!(annotations(github), expected);
    let flag = mcpcheck()
        .args(args)
        .args(["--annotations", "github", "-q"])
        .output()
        .unwrap();
    assert_eq!(annotations(flag), expected);
    assert!(annotations(output(&args)).is_empty(), "none outside GitHub");
    let off = mcpcheck()
        .args(args)
        .args(["--annotations", "none"])
        .env("GITHUB_ACTIONS", "true")
        .output()
        .unwrap();
    assert!(annotations(off).is_empty());
}

#[test]
fn outside_a_terminal_progress_is_a_start_and_an_end_line_unless_asked() {
    let command = stdio_command(&[]);
    let stderr = |extra: &[&str]| {
        let mut args = vec!["run", "--stdio", &command as &str];
        args.extend(extra);
        String::from_utf8_lossy(&output(&args).stderr).into_owned()
    };
    let quiet = stderr(&[]);
    let lines: Vec<&str> = quiet.lines().collect();
    assert_eq!(lines.len(), 2, "{quiet}");
    assert!(
        lines[0].starts_with("mcpcheck: running ")
            && lines[0].ends_with(" scenarios at 2025-11-25"),
        "{quiet}"
    );
    assert!(lines[1].starts_with("mcpcheck: ran ") && lines[1].ends_with(" s"));
    let each = stderr(&["--progress"]);
    assert!(each.lines().count() > 50, "{each}");
    assert!(
        each.lines()
            .any(|l| l.starts_with("mcpcheck: [1/") && l.contains(" at 2025-11-25: ")),
        "{each}"
    );
    // Two eras run side by side: every line says which pass it belongs to.
    let dual = format!("{} --dual-era", reference_server().display());
    let both = String::from_utf8_lossy(&output(&["run", "--stdio", &dual, "--progress"]).stderr)
        .into_owned();
    for version in ["2026-07-28", "2025-11-25"] {
        assert!(
            both.lines().any(|l| l.starts_with("mcpcheck: running ")
                && l.ends_with(&format!(" scenarios at {version}"))),
            "{both}"
        );
        assert!(
            both.lines()
                .any(|l| l.starts_with("mcpcheck: [") && l.contains(&format!(" at {version}: "))),
            "{both}"
        );
    }
}

#[test]
fn derived_warn_grades_derived_failures_as_warnings_and_says_so() {
    let command = stdio_command(&["parse-error-wrong-code", "ping-error"]);
    let base = [
        "--stdio",
        command.as_str(),
        "--check",
        "jsonrpc-parse-error",
        "--check",
        "ping-empty-result",
        "-q",
    ];
    let (code, report, _) = run_json(&base);
    assert_eq!(code, 1);
    let status = |report: &Value, id: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(status(&report, "jsonrpc-parse-error"), "fail");
    let mut args = base.to_vec();
    args.extend(["--derived", "warn"]);
    let (code, report, _) = run_json(&args);
    // The derived check is a warning now; the stated MUST (ping answered) still fails.
    assert_eq!(status(&report, "jsonrpc-parse-error"), "warn");
    assert_eq!(status(&report, "ping-empty-result"), "fail");
    assert_eq!(code, 1);
    assert_eq!(report["grading"]["derivedAsWarnings"], true);
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "jsonrpc-parse-error")
        .unwrap();
    assert!(
        check["note"].as_str().unwrap().contains("--derived warn"),
        "{check}"
    );
    let only_derived = output(&[
        "run",
        "--stdio",
        &stdio_command(&["parse-error-wrong-code"]),
        "--check",
        "jsonrpc-parse-error",
        "--derived",
        "warn",
    ]);
    assert_eq!(only_derived.status.code(), Some(0));
    assert!(
        stdout(&only_derived).contains("derived checks graded as warnings (--derived warn)"),
        "{}",
        stdout(&only_derived)
    );
}

#[test]
fn a_probe_through_a_method_the_server_lacks_or_removed_says_so_or_does_not_apply() {
    // A 2026-07-28 server without tools: the clientInfo probe goes through server/discover, and
    // the _meta and version probes riding on tools/list never fail for the -32601 of a method
    // the server lacks (this server checks _meta first, so they pass; one that looks the method
    // up first makes them not applicable).
    let command = format!(
        "{} --stateless --capabilities prompts,resources",
        stdio_command(&[])
    );
    let (code, report, _) = run_json(&["--stdio", &command, "-q"]);
    assert_eq!(code, 0, "{report}");
    let status = |id: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .map(|c| (c["status"].clone(), c["message"].clone()))
            .unwrap_or_else(|| panic!("no {id}"))
    };
    assert_eq!(status("stateless-meta-client-info-optional").0, "pass");
    for id in ["stateless-meta-required", "stateless-unsupported-version"] {
        let (status, message) = status(id);
        assert!(status == "pass" || status == "skip", "{id}: {message}");
    }
    // ping, removed at 2026-07-28: a -32601 answered by id shows the id accepted, and says so.
    let dual = format!("{} --dual-era", stdio_command(&[]));
    let (_, report, _) = run_json(&["--stdio", &dual, "-q"]);
    let stateless = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "jsonrpc-id-types" && c["version"] == "2026-07-28")
        .expect("judged at 2026-07-28");
    assert_eq!(stateless["status"], "pass");
    assert!(
        stateless["message"]
            .as_str()
            .unwrap()
            .contains("removed at 2026-07-28"),
        "{stateless}"
    );
}

/// The README's sample output is this run's (the reference server failing a MUST and warning a
/// SHOULD), shown as if it were `python -m my_server`: it cannot drift from what mcpcheck prints.
/// `MCPCHECK_UPDATE_README=1` rewrites the sample from the run.
#[test]
fn the_readme_sample_output_is_a_real_run() {
    const PROMPT: &str = "$ mcpcheck run --stdio \"python -m my_server\"\n";
    let out = output(&["run", "--stdio", &stdio_command(FAIL_AND_WARN)]);
    assert_eq!(out.status.code(), Some(1));
    let shown = as_my_server(&stdout(&out));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let start = readme.find(PROMPT).expect("the README shows a run") + PROMPT.len();
    let end = start
        + readme[start..]
            .find("```")
            .expect("the sample's block ends");
    if std::env::var_os("MCPCHECK_UPDATE_README").is_some() {
        let updated = format!("{}{shown}{}", &readme[..start], &readme[end..]);
        std::fs::write(path, updated).unwrap();
        return;
    }
    assert_eq!(
        masked(&readme[start..end]),
        masked(&shown),
        "the README's sample output is not what the run prints; MCPCHECK_UPDATE_README=1 rewrites it"
    );
}

/// The run's terminal output as the README shows it: another server's command and name.
fn as_my_server(text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let stdio = lines[0].find("· stdio: ").expect("the target line") + "· stdio: ".len();
    lines[0].replace_range(stdio.., "python -m my_server");
    lines[1] = lines[1].replace("mcpcheck-reference-server 0.1.0", "my-server 1.2.0");
    lines.join("\n") + "\n"
}

/// The run's duration, which no two runs share.
fn masked(text: &str) -> String {
    let Some(at) = text.rfind(" ms)") else {
        return text.to_string();
    };
    let digits = text[..at].rfind(' ').map_or(at, |s| s + 1);
    format!("{}N{}", &text[..digits], &text[at..])
}
