use crate::support::{output, run_json, stdio_command};

#[test]
fn a_bad_scenario_file_is_reported_with_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("broken.toml"),
        "id = \"mine\"\narea = \"tools\"\ntitle = \"x\"\n\n[[step]]\nname = \"call\"\nrequest = { method = \"tools/call\" }\n\n[[check]]\nid = \"mine-check\"\ntitle = \"t\"\nlevel = \"MUST\"\nspec = [{ version = \"2025-11-25\", section = \"server/tools\" }]\nstep = \"call\"\nexpect = \"x\"\nrule = [{ when = { reply = \"sucess\" }, verdict = \"pass\" }]\n",
    )
    .unwrap();
    let out = output(&["list", "--scenarios", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("broken.toml:16:18: `reply`: unknown reply kind `sucess`"),
        "{stderr}"
    );
    assert!(stderr.contains("16 | rule = "), "{stderr}");
}

#[test]
fn every_bad_scenario_file_of_a_run_is_reported_at_once() {
    // Three mistakes in three files: one run names them all, each at its line and column.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.toml"), "id = \"a\"\nbogus = 1\n").unwrap();
    std::fs::write(dir.path().join("b.toml"), "id = = \"b\"\n").unwrap();
    std::fs::write(
        dir.path().join("c.toml"),
        "id = \"c\"\narea = \"tools\"\ntitle = \"t\"\n[[step]]\nname = \"s\"\nrequest = { method = \"ping\" }\nwat = 2\n",
    )
    .unwrap();
    let out = output(&["list", "--scenarios", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for at in ["a.toml:2:1", "b.toml:1:6", "c.toml:7:1"] {
        assert!(stderr.contains(at), "{at} missing:\n{stderr}");
    }
}

#[test]
fn scenarios_takes_one_file_and_refuses_a_folder_without_any() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.toml");
    std::fs::write(&file, "id = \"x\"\narea = [\n").unwrap();
    // One file: read as the folder's files are (here its error, with its position).
    let out = output(&["list", "--scenarios", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.toml:2:"), "{stderr}");
    assert!(!stderr.contains("Not a directory"), "{stderr}");
    // A folder without a scenario file is a mistake, not an empty library.
    let empty = tempfile::tempdir().unwrap();
    let out = output(&["list", "--scenarios", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("holds no *.toml file"), "{stderr}");
}

#[test]
fn no_builtin_runs_only_the_given_scenarios() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mine.toml");
    std::fs::write(
        &file,
        "id = \"mine\"\narea = \"tools\"\ntitle = \"x\"\n\n[[step]]\nname = \"list\"\nrequest = { method = \"tools/list\" }\n\n[[check]]\nid = \"mine-list\"\ntitle = \"t\"\nlevel = \"MUST\"\nspec = [{ version = \"2025-11-25\", section = \"server/tools\" }]\nstep = \"list\"\nexpect = \"a result\"\nrule = [{ when = { reply = \"result\" }, verdict = \"pass\" }]\n",
    )
    .unwrap();
    let (code, report, _) = run_json(&[
        "--stdio",
        &stdio_command(&[]),
        "--no-builtin",
        "--scenarios",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["mine-list"]);
}

#[test]
fn a_toml_syntax_error_is_reported_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("syntax.toml"), "id = \"x\"\narea = [\n").unwrap();
    let out = output(&[
        "run",
        "--stdio",
        "true",
        "--scenarios",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("syntax.toml:2:9: unclosed array"),
        "{stderr}"
    );
}

#[test]
fn duplicate_check_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/jsonrpc/method-not-found.toml"
    ))
    .unwrap();
    std::fs::write(
        dir.path().join("copy.toml"),
        text.replace(
            "id = \"jsonrpc-method-not-found\"\narea",
            "id = \"my-copy\"\narea",
        ),
    )
    .unwrap();
    let out = output(&["list", "--scenarios", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("check id `jsonrpc-method-not-found` is already used"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["run"][..],
        &["run", "--stdio", "x", "--url", "http://127.0.0.1:1/"],
        &["run", "--stdio", "x", "--spec-version", "2025-02-30"],
        &["run", "--url", "not a url"],
        &["run", "--stdio", "x", "--timeout", "-1"],
        // A --check that selects nothing would give a green run that checked nothing.
        &["run", "--stdio", "x", "--check", "*-undeclared-*"],
        &["run", "--stdio", "x", "--check", "no-such-check"],
        &["run", "--stdio", "x", "--fixtures", "nothing"],
        &["frobnicate"],
    ] {
        let out = output(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn list_prints_a_table_and_survives_a_closed_pipe() {
    let out = output(&["list"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("resources-read-missing-error") && text.contains("stdio-framing"),
        "{text}"
    );
    // Its reader goes away before it writes (as `| head -1` may): mcpcheck's own exit status,
    // not the reader's, says it survived the broken pipe.
    let mut piped = std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .arg("list")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(piped.stdout.take());
    let ended = piped.wait_with_output().unwrap();
    assert_eq!(ended.status.code(), Some(0), "{ended:?}");
    assert!(!String::from_utf8_lossy(&ended.stderr).contains("panicked"));
}

#[test]
fn a_user_scenario_calls_a_named_tool_and_checks_its_structured_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sum.toml"),
        r#"
id = "my-sum"
area = "my-tools"
title = "my structured tool adds"

[requires]
tools = ["mcpcheck_structured"]
versions = ">=2025-06-18"

[[step]]
name = "add"
request = { method = "tools/call", params = { name = "mcpcheck_structured", arguments = { a = 2, b = 3 } } }

[[check]]
id = "my-sum-structured"
title = "the sum comes back as structured content matching the output schema"
level = "MUST"
spec = [{ version = "2025-11-25", section = "server/tools#structured-content" }]
step = "add"
expect = "structuredContent {sum: 5}"
rule = [
  { when = { reply = "result", "/result/isError" = { not_equals = true }, "/result/structuredContent" = { schema = { type = "object", properties = { sum = { type = "number", const = 5 } }, required = ["sum"] } } }, verdict = "pass" },
]
"#,
    )
    .unwrap();
    let (code, report, _) = run_json(&[
        "--stdio",
        &stdio_command(&[]),
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
        .find(|c| c["id"] == "my-sum-structured")
        .unwrap();
    assert_eq!(check["status"], "pass", "{check}");
    assert!(
        check["source"].as_str().unwrap().ends_with("sum.toml:15"),
        "{}",
        check["source"]
    );
    assert!(check["evidence"][0]["received"]
        .as_str()
        .unwrap()
        .contains("\"structuredContent\":{\"sum\":5"));

    // The same check fails when the tool answers differently.
    let (code, report, _) = run_json(&[
        "--stdio",
        &stdio_command(&[]),
        "--scenarios",
        dir.path().to_str().unwrap(),
        "--no-builtin",
        "--spec-version",
        "2025-03-26",
        "-q",
    ]);
    assert_eq!(code, 0);
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "my-sum-structured")
        .unwrap();
    assert_eq!(check["status"], "skip", "{check}");
}

#[test]
fn a_user_scenario_runs_only_where_its_fixture_prompt_and_resource_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = |id: &str, requires: &str| {
        format!(
            r#"
id = "{id}"
area = "my-prompts"
title = "a fixture prompt and resource"

[requires]
{requires}

[[step]]
name = "get"
request = {{ method = "prompts/get", params = {{ name = "greeting", arguments = {{ name = "Ada" }} }} }}

[[check]]
id = "{id}-get"
title = "the greeting prompt is produced"
level = "MUST"
spec = [{{ version = "2025-11-25", section = "server/prompts#getting-a-prompt" }}]
step = "get"
expect = "messages"
rule = [{{ when = {{ reply = "result", "/result/messages" = {{ type = "array" }} }}, verdict = "pass" }}]
"#
        )
    };
    let files = [
        (
            "listed",
            r#"prompts = ["greeting"]
resources = ["ref://docs/readme"]"#,
        ),
        ("no-prompt", r#"prompts = ["nowhere"]"#),
        ("no-resource", r#"resources = ["ref://nowhere"]"#),
    ];
    for (id, requires) in files {
        std::fs::write(
            dir.path().join(format!("{id}.toml")),
            scenario(id, requires),
        )
        .unwrap();
    }
    let (code, report, _) = run_json(&[
        "--stdio",
        &stdio_command(&[]),
        "--scenarios",
        dir.path().to_str().unwrap(),
        "--no-builtin",
        "-q",
    ]);
    assert_eq!(code, 0);
    let check = |id: &str| crate::support::check(&report, id).clone();
    assert_eq!(
        check("listed-get")["status"],
        "pass",
        "{}",
        check("listed-get")
    );
    let skipped = check("no-prompt-get");
    assert_eq!(skipped["status"], "skip", "{skipped}");
    assert_eq!(
        skipped["message"],
        "the server lists no prompt `nowhere`, the fixture this scenario uses"
    );
    let skipped = check("no-resource-get");
    assert_eq!(skipped["status"], "skip", "{skipped}");
    assert_eq!(
        skipped["message"],
        "the server lists no resource `ref://nowhere`, the fixture this scenario uses"
    );
}

#[test]
fn check_selection_runs_only_the_named_checks() {
    let (code, report, _) = run_json(&[
        "--stdio",
        &stdio_command(&[]),
        "--check",
        "jsonrpc-method-not-found",
        "--check",
        "stdio-*",
        "-q",
    ]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "jsonrpc-method-not-found",
            "stdio-framing",
            "stdio-exit-before-initialize",
            "stdio-exit-on-stdin-eof"
        ]
    );
}

#[test]
fn an_older_version_can_be_forced() {
    let (code, report, _) = run_json(&[
        "--stdio",
        &stdio_command(&[]),
        "--spec-version",
        "2024-11-05",
        "-q",
    ]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["protocol"]["version"], "2024-11-05");
    assert_eq!(report["protocol"]["detection"], "--spec-version 2024-11-05");
}

#[test]
fn explain_says_what_a_check_sends_expects_and_why() {
    let out = output(&["explain", "resources-read-missing-error"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("level:     MUST"), "{text}");
    assert!(text.contains("read: request resources/read {\"uri\":\"mcpcheck://nonexistent/resource-that-does-not-exist\"} ← judged"), "{text}");
    assert!(text.contains("why:       SEP-2164"), "{text}");
    let polled = output(&["explain", "tasks-ext-result-inlined"]);
    let polled = String::from_utf8_lossy(&polled.stdout);
    assert!(
        polled.contains(r#", again until /result/status = { one_of = ["completed", "failed", "cancelled"] } (at most 10 s) ← judged"#),
        "{polled}"
    );
    assert!(
        String::from_utf8_lossy(&output(&["explain", "stdio-framing"]).stdout).contains("built-in")
    );
    assert_eq!(output(&["explain", "no-such-check"]).status.code(), Some(2));
}

#[test]
fn a_concurrent_step_is_checked_where_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = |concurrent: &str, send: &str| {
        format!(
            "id = \"my-burst\"\narea = \"it\"\ntitle = \"t\"\nsession = \"fresh\"\n\n[[step]]\nname = \"burst\"\nconcurrent = {concurrent}\n{send}\n\n[[check]]\nid = \"my-burst-ok\"\ntitle = \"t\"\nlevel = \"MUST\"\nspec = [{{ version = \"2025-11-25\", section = \"basic/index\" }}]\nstep = \"burst\"\nexpect = \"results\"\nrule = [{{ when = {{ reply = \"result\" }}, verdict = \"pass\" }}]\n"
        )
    };
    for (concurrent, send, message) in [
        (
            "1",
            "request = { method = \"ping\" }",
            "8:14: `concurrent` is 2 to 16 copies",
        ),
        (
            "3",
            "notification = { method = \"notifications/x\" }",
            "8:14: step `burst`: `concurrent` goes with a `request` without a fixed `id`",
        ),
    ] {
        std::fs::write(dir.path().join("burst.toml"), scenario(concurrent, send)).unwrap();
        let out = output(&["list", "--scenarios", dir.path().to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{stderr}");
    }
    // A valid one: every copy is sent and judged (ping, five at once, each with its own id).
    std::fs::write(
        dir.path().join("burst.toml"),
        scenario("5", "request = { method = \"ping\" }"),
    )
    .unwrap();
    let command = crate::support::reference_server().display().to_string();
    let (code, report, _) = crate::support::run_json(&[
        "--stdio",
        &command,
        "--no-builtin",
        "--scenarios",
        dir.path().to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, 0);
    let check = &report["checks"].as_array().unwrap()[0];
    assert_eq!(check["status"], "pass");
    let ids: std::collections::BTreeSet<String> = check["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let sent: serde_json::Value =
                serde_json::from_str(e["sent"].as_str().unwrap()).unwrap();
            sent["id"].to_string()
        })
        .collect();
    assert_eq!(ids.len(), 5, "{ids:?}");
}

#[test]
fn http_only_flags_with_a_stdio_server_are_refused() {
    for (flag, value) in [("--legacy-sse", None), ("--serve", Some("true"))] {
        let mut args = vec!["run", "--stdio", "true", flag];
        args.extend(value);
        let out = output(&args);
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("{flag} goes with --url")),
            "{stderr}"
        );
    }
}

#[test]
fn the_config_file_selects_the_legacy_sse_transport() {
    let server = crate::support::HttpServer::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcpcheck.toml");
    std::fs::write(
        &config,
        format!(
            "url = \"{}\"\nlegacy-sse = true\n",
            server.url.replace("/mcp", "/sse")
        ),
    )
    .unwrap();
    let (code, report, stderr) = run_json(&[
        "--config",
        config.to_str().unwrap(),
        "--check",
        "legacy-sse-*",
        "--check",
        "ping-empty-result",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(report["target"]["transport"], "sse");
    for check in report["checks"].as_array().unwrap() {
        assert_eq!(check["status"], "pass", "{check}");
    }
    assert_eq!(report["checks"].as_array().unwrap().len(), 5);
}

#[test]
fn a_step_that_cannot_be_sent_says_what_the_server_did_not_give() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("absent.toml"),
        r#"
id = "my-absent"
area = "it"
title = "a value the server does not give"

[[step]]
name = "first"
request = { method = "ping" }
capture = { said = { from = "/result/nothing", absent = "the server's ping result is empty, so there is nothing to echo" }, plain = "/result/nothing" }

[[step]]
name = "echo-said"
request = { method = "tools/call", params = { name = "{{capture.said}}" } }

[[step]]
name = "echo-plain"
request = { method = "tools/call", params = { name = "{{capture.plain}}" } }

[[check]]
id = "my-absent-said"
title = "t"
level = "MUST"
spec = [{ version = "2025-11-25", section = "basic" }]
step = "echo-said"
expect = "x"
rule = [{ when = { reply = "result" }, verdict = "pass" }]

[[check]]
id = "my-absent-plain"
title = "t"
level = "MUST"
spec = [{ version = "2025-11-25", section = "basic" }]
step = "echo-plain"
expect = "x"
rule = [{ when = { reply = "result" }, verdict = "pass" }]
"#,
    )
    .unwrap();
    let (_, report, _) = run_json(&[
        "--stdio",
        &stdio_command(&[]),
        "--no-builtin",
        "--scenarios",
        dir.path().to_str().unwrap(),
        "--check",
        "my-absent-*",
    ]);
    let message = |id: &str| {
        let check = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()
            .clone();
        assert_eq!(check["status"], "not-testable", "{check}");
        check["message"].as_str().unwrap().to_string()
    };
    assert_eq!(
        message("my-absent-said"),
        "the server's ping result is empty, so there is nothing to echo"
    );
    assert_eq!(
        message("my-absent-plain"),
        "the answer to ping had nothing at /result/nothing, so the request that needs it was not sent"
    );
}

#[test]
fn completions_and_the_man_page_come_from_the_command_line_definitions() {
    let bash = output(&["completions", "bash"]);
    assert_eq!(bash.status.code(), Some(0));
    let script = String::from_utf8(bash.stdout).unwrap();
    assert!(
        script.contains("repro") && script.contains("--spec-version"),
        "{script}"
    );
    // The script is valid bash.
    let checked = std::process::Command::new("bash")
        .args(["-n", "-c", &script])
        .output()
        .expect("bash runs");
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = output(&["completions", shell]);
        assert!(out.status.success() && out.stdout.len() > 100, "{shell}");
    }
    assert_eq!(output(&["completions", "tcsh"]).status.code(), Some(2));
    let man = String::from_utf8(output(&["man"]).stdout).unwrap();
    assert!(
        man.starts_with(".ie") || man.contains(".TH mcpcheck 1"),
        "{man}"
    );
    assert!(man.contains("repro") && man.contains("compare"), "{man}");
}

/// Every key of the scenario file's JSON Schema (`mcpcheck scenario-schema`) is documented in the
/// README's "Writing a scenario", as a TOML key (`KEY =`, `[KEY]`, `[[KEY]]`) or in code (`` `KEY` ``).
#[test]
fn every_key_of_the_scenario_schema_is_documented_in_the_readme() {
    fn keys(value: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match value {
            serde_json::Value::Object(members) => {
                if let Some(serde_json::Value::Object(properties)) = members.get("properties") {
                    out.extend(properties.keys().cloned());
                }
                members.values().for_each(|v| keys(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }
    let printed = output(&["scenario-schema"]);
    assert!(printed.status.success());
    let schema: serde_json::Value = serde_json::from_slice(&printed.stdout).unwrap();
    let mut all = std::collections::BTreeSet::new();
    keys(&schema, &mut all);
    assert!(all.len() > 50, "{all:?}");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("## Writing a scenario").expect("the section");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let undocumented: Vec<&String> = all
        .iter()
        .filter(|key| {
            ![
                format!("{key} ="),
                format!("[{key}]"),
                format!("[[{key}]]"),
                format!("`{key}`"),
                format!("{{ {key} ="),
            ]
            .iter()
            .any(|form| section.contains(form.as_str()))
        })
        .collect();
    assert!(
        undocumented.is_empty(),
        "scenario keys the README's \"Writing a scenario\" does not document: {undocumented:?}"
    );
}

/// The README's example scenario loads as it is written, comments and all.
#[test]
fn the_readme_example_scenario_loads() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = &readme[readme.find("## Writing a scenario").expect("the section")..];
    let start = section.find("```toml\n").expect("an example") + "```toml\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("my-search.toml"), example).unwrap();
    let listed = output(&[
        "list",
        "--no-builtin",
        "--scenarios",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    assert!(String::from_utf8_lossy(&listed.stdout).contains("my-search-structured"));
}

#[test]
fn a_server_script_without_a_shebang_line_is_run_by_the_shell() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("server");
    std::fs::write(
        &script,
        format!("exec {}\n", crate::support::reference_server().display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, report, stderr) = run_json(&[
        "--stdio",
        script.to_str().unwrap(),
        "--check",
        "ping-empty-result",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        crate::support::check(&report, "ping-empty-result")["status"],
        "pass"
    );
}
