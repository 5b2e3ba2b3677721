use std::path::Path;

use mcpcheck::report::Report;
use serde_json::Value;

use crate::support::{mcpcheck, run_json, stdio_command, HttpServer};

/// The quirks that give a run one failure and one warning.
const FAIL_AND_WARN: &[&str] = &["missing-resource-empty-contents", "unknown-tool-is-error"];

/// Runs the whole library against the reference server with these quirks, writing every format
/// into `dir`.
fn run_all_formats(dir: &Path, quirks: &[&str]) -> (i32, Value) {
    run_all_formats_with(dir, quirks, &[])
}

/// The same with more flags (the snapshot library).
fn run_all_formats_with(dir: &Path, quirks: &[&str], flags: &[&str]) -> (i32, Value) {
    let command = stdio_command(quirks);
    let d = |name: &str| dir.join(name).display().to_string();
    let mut args = vec!["run", "--stdio", &command, "-q", "--json", "-"];
    args.extend(flags);
    let (junit, markdown, html, badge, official) = (
        d("junit.xml"),
        d("report.md"),
        d("report.html"),
        d("badge.json"),
        d("official"),
    );
    args.extend([
        "--junit",
        &junit,
        "--markdown",
        &markdown,
        "--html",
        &html,
        "--badge",
        &badge,
        "--official-json",
        &official,
    ]);
    let output = mcpcheck().args(&args).output().unwrap();
    (
        output.status.code().unwrap(),
        serde_json::from_slice(&output.stdout).unwrap(),
    )
}

#[test]
fn every_format_is_written_and_junit_counts_match_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let (code, report) = run_all_formats(dir.path(), FAIL_AND_WARN);
    assert_eq!(code, 1);
    let summary = &report["summary"];
    let xml = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    let junit = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    assert_eq!(junit.tests as u64, summary["total"].as_u64().unwrap());
    assert_eq!(junit.failures as u64, summary["fail"].as_u64().unwrap());
    assert_eq!(junit.errors as u64, summary["error"].as_u64().unwrap());
    let skipped: usize = junit
        .test_suites
        .iter()
        .flat_map(|s| s.test_cases.iter())
        .filter(|c| matches!(c.status, quick_junit::TestCaseStatus::Skipped { .. }))
        .count();
    assert_eq!(
        skipped as u64,
        summary["skip"].as_u64().unwrap() + summary["notTestable"].as_u64().unwrap()
    );
    let failing: Vec<&str> = junit
        .test_suites
        .iter()
        .flat_map(|s| s.test_cases.iter())
        .filter(|c| matches!(c.status, quick_junit::TestCaseStatus::NonSuccess { .. }))
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(failing, ["resources-read-missing-error"]);

    let markdown = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(
        markdown.starts_with("## ❌ mcpcheck: does not conform to MCP 2025-11-25"),
        "{markdown}"
    );
    assert!(markdown.find("### Failures").unwrap() < markdown.find("### Warnings").unwrap());
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("<details class=\"check fail\" open>") && !html.contains("<script"));
    let badge: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("badge.json")).unwrap())
            .unwrap();
    assert_eq!(badge["color"], "red");
    assert_eq!(badge["schemaVersion"], 1);
    let official: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("official/checks.json")).unwrap(),
    )
    .unwrap();
    let statuses: Vec<&str> = official
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert!(
        statuses.contains(&"FAILURE")
            && statuses.contains(&"WARNING")
            && statuses.contains(&"SUCCESS")
    );
}

#[test]
fn strict_makes_warnings_fail_the_run() {
    let command = stdio_command(&["unknown-tool-is-error"]);
    let (code, _, _) = run_json(&["--stdio", &command, "-q"]);
    assert_eq!(code, 0);
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("j.xml");
    let (code, report, _) = run_json(&[
        "--stdio",
        &command,
        "-q",
        "--strict",
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        report["grading"]["failing"],
        serde_json::json!(["tools-call-unknown-tool"])
    );
    assert!(std::fs::read_to_string(junit)
        .unwrap()
        .contains("warning (--strict)"));
}

#[test]
fn baselines_accept_listed_failures_refuse_new_ones_and_go_stale() {
    let dir = tempfile::tempdir().unwrap();
    let broken = stdio_command(&["missing-resource-empty-contents"]);
    let report_path = dir.path().join("report.json");
    let (code, _, _) = run_json(&["--stdio", &broken, "-q"]);
    assert_eq!(code, 1);
    let out = mcpcheck()
        .args([
            "run",
            "--stdio",
            &broken,
            "-q",
            "--json",
            report_path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let baseline = mcpcheck()
        .args(["baseline", report_path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(baseline.status.success());
    let baseline_path = dir.path().join("baseline.toml");
    std::fs::write(&baseline_path, &baseline.stdout).unwrap();
    let text = String::from_utf8_lossy(&baseline.stdout);
    assert!(
        text.contains("[checks.resources-read-missing-error]"),
        "{text}"
    );

    // Listed and still failing: the run passes.
    let (code, report, _) = run_json(&[
        "--stdio",
        &broken,
        "-q",
        "--baseline",
        baseline_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{}", report["grading"]);
    assert_eq!(
        report["grading"]["expectedFailures"],
        serde_json::json!(["resources-read-missing-error"])
    );

    // A new, unlisted failure fails the run.
    let worse = stdio_command(&["missing-resource-empty-contents", "ping-error"]);
    let (code, report, _) = run_json(&[
        "--stdio",
        &worse,
        "-q",
        "--baseline",
        baseline_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        report["grading"]["failing"],
        serde_json::json!(["lifecycle-ping-before-initialized", "ping-empty-result"])
    );

    // Fixed: the listed check passes, the entry is stale, and the run fails until it is removed.
    let (code, report, _) = run_json(&[
        "--stdio",
        &stdio_command(&[]),
        "-q",
        "--baseline",
        baseline_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        report["grading"]["stale"],
        serde_json::json!(["resources-read-missing-error"])
    );
}

#[test]
fn secrets_are_redacted_from_every_format() {
    let server = HttpServer::start(&["missing-resource-empty-contents"]);
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).display().to_string();
    let (junit, markdown, html, badge, official, json) = (
        d("j.xml"),
        d("r.md"),
        d("r.html"),
        d("b.json"),
        d("official"),
        d("r.json"),
    );
    let output = mcpcheck()
        .env("MCPCHECK_IT_SECRET", "hush-hush-31337")
        .args([
            "run",
            "--url",
            &server.url,
            "-H",
            "Authorization: Bearer $MCPCHECK_IT_SECRET",
            "-v",
        ])
        .args([
            "--json",
            &json,
            "--junit",
            &junit,
            "--markdown",
            &markdown,
            "--html",
            &html,
            "--badge",
            &badge,
            "--official-json",
            &official,
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let mut seen = 0;
    for path in [
        &junit,
        &markdown,
        &html,
        &badge,
        &json,
        &format!("{official}/checks.json"),
    ] {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            !text.contains("hush-hush-31337"),
            "the secret leaked into {path}"
        );
        seen += usize::from(text.contains("[redacted]"));
    }
    assert!(
        seen >= 3,
        "the redacted header shows in the evidence of the detailed formats"
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(!stdout.contains("hush-hush-31337") && !stderr.contains("hush-hush-31337"));
    assert!(
        stderr.contains("→ {\"jsonrpc\":\"2.0\"") && stderr.contains("← {\"jsonrpc\":\"2.0\""),
        "--verbose prints frames"
    );
}

#[test]
fn a_config_file_makes_the_ci_job_just_mcpcheck_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpcheck.toml"),
        format!(
            "stdio = {:?}\nstrict = true\nchecks = [\"jsonrpc-*\", \"tools-*\"]\n\n[output]\njunit = \"out/junit.xml\"\nmarkdown = \"out/summary.md\"\n",
            stdio_command(&["unknown-tool-is-error"])
        ),
    )
    .unwrap();
    let output = mcpcheck()
        .current_dir(dir.path())
        .args(["run", "-q"])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "strict from the file makes the warning fail: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(
        dir.path().join("out/junit.xml").exists() && dir.path().join("out/summary.md").exists()
    );
    let output = mcpcheck()
        .current_dir(dir.path())
        .args(["run", "-q", "--check", "jsonrpc-*"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "flags override the file");
}

/// The report of a run, with the fields that vary between runs fixed.
fn stable_report() -> Report {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut report) =
        run_all_formats_with(dir.path(), FAIL_AND_WARN, crate::support::SNAPSHOT_LIBRARY);
    crate::support::scrub_volatile(&mut report);
    report["startedAt"] = "2026-11-22T00:00:00Z".into();
    report["durationMs"] = 500.into();
    report["grading"]["profile"] = "latest".into();
    report["target"]["command"] = serde_json::json!([
        "reference-server",
        "--quirk",
        "missing-resource-empty-contents",
        "--quirk",
        "unknown-tool-is-error"
    ]);
    report["server"]["stderrTail"] = "reference-server: stdin closed\n".into();
    report["server"]["exit"]["exitMs"] = 1.into();
    for check in report["checks"].as_array_mut().unwrap() {
        if check["id"] == "stdio-exit-on-stdin-eof" {
            check["message"] = "exited 1 ms after stdin closed (exit 0)".into();
            check["evidence"][0]["remark"] = "stopped by stdin-eof; exit 0 after 1 ms".into();
        }
        for evidence in check["evidence"].as_array_mut().unwrap() {
            if evidence.get("elapsedMs").is_some() {
                evidence["elapsedMs"] = 1.into();
            }
        }
    }
    serde_json::from_value(report).unwrap()
}

/// The whole library's reports, checked by what must hold of them rather than by snapshot: every
/// check in the Markdown and the HTML, every problem with its evidence.
#[test]
fn whole_library_reports_show_every_check_and_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let (code, report) = run_all_formats(dir.path(), FAIL_AND_WARN);
    assert_eq!(code, 1);
    let markdown = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    let checks = report["checks"].as_array().unwrap();
    assert!(checks.len() > 150, "{} checks", checks.len());
    let mut tally = std::collections::BTreeMap::<String, u64>::new();
    for check in checks {
        let id = check["id"].as_str().unwrap();
        let status = check["status"].as_str().unwrap();
        *tally.entry(status.to_string()).or_default() += 1;
        assert!(markdown.contains(id), "{id} is not in the Markdown");
        assert!(html.contains(id), "{id} is not in the HTML");
        assert!(
            ["MUST", "SHOULD", "MAY"].contains(&check["level"].as_str().unwrap()),
            "{id}"
        );
        let spec = check["spec"].as_array().unwrap();
        assert!(!spec.is_empty(), "{id} cites nothing");
        assert!(
            spec.iter()
                .all(|s| s["url"].as_str().is_some_and(|u| u.starts_with("https://"))),
            "{id}: {spec:?}"
        );
        assert!(!check["source"].as_str().unwrap().is_empty(), "{id}");
        if status == "fail" || status == "warn" {
            let expected = check["expected"].as_str().unwrap();
            assert!(
                markdown.contains(expected),
                "{id}: expected not in the Markdown"
            );
            assert!(
                !check["evidence"].as_array().unwrap().is_empty(),
                "{id}: no evidence"
            );
        }
    }
    let summary = &report["summary"];
    for (status, key) in [
        ("pass", "pass"),
        ("fail", "fail"),
        ("warn", "warn"),
        ("skip", "skip"),
    ] {
        assert_eq!(
            summary[key].as_u64().unwrap_or(0),
            tally.get(status).copied().unwrap_or(0),
            "summary.{key}"
        );
    }
    assert_eq!(tally["fail"], 1, "{tally:?}");
    assert!(tally["warn"] >= 1, "{tally:?}");
}

#[test]
fn markdown_and_html_snapshots() {
    let report = stable_report();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::assert_snapshot!(
            "report-markdown",
            mcpcheck::report::markdown::render(&report)
        );
        insta::assert_snapshot!("report-html", mcpcheck::report::html::render(&report));
    });
}

#[test]
fn the_html_reports_render_in_headless_chromium_and_read_like_the_terminal() {
    let Some(chromium) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| which(c))
    else {
        crate::support::fixture_missing("chromium", "no chromium on PATH (.ci/run installs Debian's `chromium`); the HTML is still checked by snapshot");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    run_all_formats(dir.path(), FAIL_AND_WARN);
    let dom = render_in(chromium, dir.path(), &dir.path().join("report.html"));
    assert!(
        dom.contains("<h2 id=\"problems\">Problems</h2>"),
        "chromium did not render the report"
    );
    assert!(dom.contains("resources-read-missing-error"));
    // The verdict is marked in the heading.
    assert!(
        dom.contains("<h1 id=\"verdict\" class=\"fails\"><span class=\"mark\">✗</span>does not conform to MCP 2025-11-25"),
        "{dom}"
    );
    // Problems, then a line per area, the checks judged by area, then what did not apply by
    // reason; one word for it everywhere.
    let at = |needle: &str| dom.find(needle).unwrap_or_else(|| panic!("no {needle}"));
    assert!(at("id=\"problems\"") < at("id=\"areas\""));
    assert!(at("id=\"areas\"") < at("id=\"area-resources\""));
    assert!(at("id=\"area-resources\"") < at("id=\"not-applicable\""));
    assert!(
        dom.contains("<details class=\"reason\"><summary>46 are for the stateless era</summary>"),
        "{dom}"
    );
    assert!(!dom.contains(">skip<"), "the word is not applicable");
    // A derived level's star is explained where it appears, and in the legend.
    assert!(dom.contains("MUST<abbr title=\"derived: "), "{dom}");
    assert!(dom.contains("A level with a star (MUST*, SHOULD*) is derived"));
    // Code spans in titles are code (a server's own text keeps its backticks).
    let raw: Vec<&str> = dom
        .lines()
        .filter(|l| l.contains("<summary>") && l.contains('`'))
        .collect();
    assert!(raw.is_empty(), "raw backticks in titles: {raw:#?}");
    assert!(dom.contains("<code>completions</code>"), "{dom}");

    // The comparison: the legend above the table, a header that stays, disagreements apart.
    let compare = dir.path().join("compare.html");
    let out = mcpcheck()
        .args(["compare", "--stdio", &stdio_command(&[]), "--stdio"])
        .arg(stdio_command(&["unknown-tool-is-error"]))
        .args(["--check", "tools-*", "--html"])
        .arg(&compare)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = render_in(chromium, dir.path(), &compare);
    let at = |needle: &str| {
        dom.find(needle)
            .unwrap_or_else(|| panic!("no {needle} in {dom}"))
    };
    assert!(at("<p class=\"legend\">") < at("<table>"));
    assert!(at("<tr class=\"score\"><th>score</th>") < at("<tbody class=\"disagree\">"));
    assert!(at("1 check where the servers disagree") < at("where the servers agree"));
    assert!(at("tools-call-unknown-tool") < at("<tbody class=\"agree\">"));
}

/// The DOM headless Chromium builds from a page.
fn render_in(chromium: &str, dir: &Path, page: &Path) -> String {
    let profile = dir.join("chromium-profile");
    let output = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--virtual-time-budget=2000", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        dom.contains("</body>"),
        "chromium did not render {}: {}",
        page.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    dom
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

#[test]
fn a_clean_run_writes_every_format_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).display().to_string();
    let (junit, markdown, html, badge, official) = (
        d("junit.xml"),
        d("report.md"),
        d("report.html"),
        d("badge.json"),
        d("official"),
    );
    let (code, report) = run_all_formats(dir.path(), &[]);
    assert_eq!(code, 0);
    let junit = quick_junit::Report::deserialize_from_str(&std::fs::read_to_string(junit).unwrap())
        .unwrap();
    assert_eq!((junit.failures, junit.errors), (0, 0));
    assert_eq!(
        junit.tests as u64,
        report["summary"]["total"].as_u64().unwrap()
    );
    assert!(std::fs::read_to_string(markdown)
        .unwrap()
        .starts_with(&format!(
            "## ✅ mcpcheck: conforms to MCP 2025-11-25: {} passed",
            report["summary"]["pass"]
        )));
    assert!(!std::fs::read_to_string(html)
        .unwrap()
        .contains("id=\"problems\""));
    let badge: Value = serde_json::from_str(&std::fs::read_to_string(badge).unwrap()).unwrap();
    assert_eq!(
        (
            badge["message"].as_str().unwrap(),
            badge["color"].as_str().unwrap()
        ),
        (
            format!("{0}/{0} passed", report["summary"]["pass"]).as_str(),
            "brightgreen"
        )
    );
    assert!(Path::new(&official).join("checks.json").exists());
}

/// The SARIF 2.1.0 schema as the serde-sarif crate ships it (its source, unpacked into cargo's
/// registry; .ci/run fetches it with `cargo info serde-sarif@0.8.0`, nothing compiles it).
fn sarif_schema() -> Option<Value> {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let registries = std::fs::read_dir(home.join("registry/src")).ok()?;
    registries
        .flatten()
        .map(|r| r.path().join("serde-sarif-0.8.0/src/schema.json"))
        .find(|p| p.is_file())
        .and_then(|p| serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok())
}

#[test]
fn the_sarif_log_validates_and_carries_one_result_per_failure_or_warning() {
    let Some(schema) = sarif_schema() else {
        crate::support::fixture_missing(
            "sarif",
            "no SARIF 2.1.0 schema (cargo info serde-sarif@0.8.0 fetches it)",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("results.sarif");
    let out = mcpcheck()
        .args(["run", "--stdio", &stdio_command(FAIL_AND_WARN), "--sarif"])
        .arg(&sarif)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    // The published schema's `language` patterns have a stray `]` (an erratum of the schema:
    // `^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`), which the check of the schema's own regexes
    // refuses; they are read as meant. mcpcheck's log sets no `language`.
    let mut schema = schema;
    let patched = erratum(&mut schema);
    assert!(patched > 0, "the erratum is gone: drop this patch");
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The validation has teeth: a level SARIF does not know is refused.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&broken));
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "mcpcheck");
    let results = run["results"].as_array().unwrap();
    let levels: Vec<(&str, &str)> = results
        .iter()
        .map(|r| (r["ruleId"].as_str().unwrap(), r["level"].as_str().unwrap()))
        .collect();
    assert!(
        levels.contains(&("resources-read-missing-error", "error")),
        "{levels:?}"
    );
    assert!(
        levels.contains(&("tools-call-unknown-tool", "warning")),
        "{levels:?}"
    );
    assert_eq!(
        results.len(),
        2,
        "one per failed or warned check: {levels:?}"
    );
    // Each points at the scenario line that defines it, in mcpcheck's repository; each rule
    // index names its rule.
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for result in results {
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uriBaseId"], "MCPCHECK");
        assert!(location["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .starts_with("scenarios/"));
        assert!(location["region"]["startLine"].as_u64().unwrap() > 0);
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }
    assert!(run["originalUriBaseIds"]["MCPCHECK"]["uri"]
        .as_str()
        .unwrap()
        .starts_with("https://github.com/mcpcheck/mcpcheck/blob/v"));
}

/// Replaces the SARIF schema's broken `language` pattern wherever it appears; how many times.
fn erratum(value: &mut Value) -> usize {
    const BROKEN: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    match value {
        Value::String(s) if s == BROKEN => {
            *s = "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".into();
            1
        }
        Value::Array(items) => items.iter_mut().map(erratum).sum(),
        Value::Object(map) => map.values_mut().map(erratum).sum(),
        _ => 0,
    }
}
