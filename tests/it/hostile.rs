use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{check, mcpcheck, reference_server, run_json, statuses};

/// Whether a process runs whose whole command line is `command`.
fn running(command: &str) -> bool {
    let output = Command::new("ps")
        .args(["-eo", "args"])
        .output()
        .expect("ps runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .any(|l| l.trim() == command)
}

/// A number unlikely to be in any other process's arguments.
///
/// Tests run in separate processes with nearby pids: each pid gets its own block of 20 numbers,
/// and each test its own offset inside the block.
fn marker(offset: u32) -> u32 {
    40_000 + (std::process::id() % 1000) * 20 + offset
}

#[test]
fn a_server_that_prints_a_banner_on_stdout_is_told_where_it_went_wrong() {
    let (code, report, stderr) = run_json(&[
        "--stdio",
        "sh -c 'echo Server starting on stdio; sleep 30'",
        "--startup-timeout",
        "1",
        "--timeout",
        "1",
    ]);
    assert_eq!(code, 3, "{stderr}");
    let fatal = report["fatal"].as_str().unwrap();
    assert!(fatal.contains("`Server starting on stdio`"), "{fatal}");
    assert!(fatal.contains("log to stderr"), "{fatal}");
}

#[test]
fn a_server_that_exits_at_once_is_untestable_with_its_stderr() {
    let started = Instant::now();
    let (code, report, stderr) = run_json(&[
        "--stdio",
        "sh -c 'echo boom-on-stderr >&2; exit 7'",
        "--timeout",
        "2",
    ]);
    assert_eq!(code, 3, "{stderr}");
    let fatal = report["fatal"].as_str().unwrap();
    assert!(fatal.contains("exit 7"), "{fatal}");
    assert!(report["server"]["stderrTail"]
        .as_str()
        .unwrap()
        .contains("boom-on-stderr"));
    assert!(stderr.contains("could not be tested"), "{stderr}");
    // The command as it can be pasted back into a shell.
    assert!(
        stderr.contains("stdio: sh -c 'echo boom-on-stderr >&2; exit 7'"),
        "{stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn every_server_started_ahead_is_shut_down_with_its_group() {
    // Each server (the main one and those started ahead for isolated scenarios, a rolling window
    // of them) leaves a marked grandchild in its process group; none may outlive the run.
    let m = marker(17);
    let command = format!("sh -c 'sleep {m} & exec {}'", reference_server().display());
    let (code, report, stderr) = run_json(&["--stdio", &command]);
    assert_eq!(code, 0, "{stderr}\n{}", report["fatal"]);
    assert_eq!(report["summary"]["error"], 0);
    assert!(
        !running(&format!("sleep {m}")),
        "a server's process group was left running"
    );
}

#[test]
fn a_server_that_hangs_times_out_and_its_group_is_killed() {
    let m = marker(0);
    let command = format!("sh -c 'sleep {m} & sleep {}'", m + 1);
    let started = Instant::now();
    let (code, report, _) = run_json(&[
        "--stdio",
        &command,
        "--timeout",
        "1",
        "--startup-timeout",
        "1",
        "--exit-grace",
        "0.2",
    ]);
    assert_eq!(code, 3);
    assert!(
        report["fatal"]
            .as_str()
            .unwrap()
            .contains("no answer to initialize within 1000 ms, the start-up bound (--startup-timeout); before it, server/discover went unanswered for 1000 ms"),
        "{}",
        report["fatal"]
    );
    assert_eq!(report["server"]["exit"]["stoppedBy"], "sigterm");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        !running(&format!("sleep {m}")),
        "the grandchild was left running"
    );
    assert!(
        !running(&format!("sleep {}", m + 1)),
        "the server was left running"
    );
}

#[test]
fn a_server_that_floods_stdout_with_lines_ends_within_bounds() {
    let started = Instant::now();
    let (code, report, _) = run_json(&[
        "--stdio",
        "yes '{not json'",
        "--timeout",
        "1",
        "--exit-grace",
        "0.2",
    ]);
    assert_eq!(code, 3);
    assert!(
        report["fatal"].as_str().unwrap().contains("initialize"),
        "{}",
        report["fatal"]
    );
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "took {:?}",
        started.elapsed()
    );
    assert!(!running("yes {not json"));
}

#[test]
fn a_server_that_floods_stdout_without_newlines_ends_within_bounds() {
    let started = Instant::now();
    let (code, _, _) = run_json(&[
        "--stdio",
        "cat /dev/zero",
        "--timeout",
        "1",
        "--exit-grace",
        "0.2",
        "--max-frame-bytes",
        "65536",
    ]);
    assert_eq!(code, 3);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "took {:?}",
        started.elapsed()
    );
    assert!(!running("cat /dev/zero"));
}

#[test]
fn an_unreachable_url_is_untestable() {
    let (code, report, _) = run_json(&["--url", "http://127.0.0.1:9/mcp", "--timeout", "2"]);
    assert_eq!(code, 3);
    assert!(
        report["fatal"].as_str().unwrap().contains("cannot connect"),
        "{}",
        report["fatal"]
    );
}

#[test]
fn ctrl_c_stops_the_server_and_exits_130() {
    let m = marker(10);
    let mut child = mcpcheck()
        .args([
            "run",
            "--stdio",
            &format!("sh -c 'sleep {m} & sleep {}'", m + 1),
            "--timeout",
            "30",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !running(&format!("sleep {}", m + 1)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: sending SIGINT to our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !running(&format!("sleep {m}")),
        "the grandchild was left running"
    );
    assert!(
        !running(&format!("sleep {}", m + 1)),
        "the server was left running"
    );
}

#[test]
fn https_to_a_plain_http_server_fails_the_tls_handshake_cleanly() {
    let server = crate::support::HttpServer::start(&[]);
    let url = server.url.replace("http://", "https://");
    let (code, report, _) = run_json(&["--url", &url, "--timeout", "2"]);
    assert_eq!(code, 3);
    let fatal = report["fatal"].as_str().unwrap();
    assert!(
        fatal.contains("TLS handshake with 127.0.0.1 failed"),
        "{fatal}"
    );
}

#[test]
fn a_slow_starting_server_gets_the_startup_allowance() {
    // The start takes longer than --timeout; the per-request timeout stays roomy enough for a
    // loaded machine.
    let command = format!("sh -c 'sleep 2.5; exec {}'", reference_server().display());
    let (code, report, stderr) = run_json(&["--stdio", &command, "--timeout", "2"]);
    assert_eq!(code, 0, "{stderr}\n{}", report["fatal"]);
    assert_eq!(report["summary"]["fail"], 0);
    assert_eq!(report["summary"]["error"], 0);
    // Without the allowance the first answer comes too late.
    let command = format!("sh -c 'sleep 2.5; exec {}'", reference_server().display());
    let (code, report, _) = run_json(&[
        "--stdio",
        &command,
        "--timeout",
        "0.5",
        "--startup-timeout",
        "0.5",
    ]);
    assert_eq!(code, 3);
    assert!(report["fatal"]
        .as_str()
        .unwrap()
        .contains("no answer to initialize"));
}

#[test]
fn serve_starts_an_http_server_on_a_free_port_and_stops_it() {
    let serve = format!("{} --http 127.0.0.1:{{port}}", reference_server().display());
    let (code, report, stderr) =
        run_json(&["--url", "http://127.0.0.1:{port}/mcp", "--serve", &serve]);
    assert_eq!(code, 0, "{stderr}\n{}", report["fatal"]);
    let url = report["target"]["url"].as_str().unwrap();
    let port: u16 = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .expect("a numeric port replaced {port}");
    assert!(port > 0);
    assert_eq!(report["protocol"]["version"], "2025-11-25");
    assert_eq!(report["summary"]["fail"], 0);
    assert_eq!(report["summary"]["error"], 0);
    let args = report["target"]["command"].as_array().unwrap();
    assert!(args
        .iter()
        .any(|a| a.as_str().unwrap().contains(&port.to_string())));
    std::thread::sleep(Duration::from_millis(100));
    let leftover = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&leftover.stdout).contains(&format!("--http 127.0.0.1:{port}")),
        "the served server was left running"
    );
}

#[test]
fn a_serve_command_that_never_listens_is_untestable_with_its_stderr() {
    let started = Instant::now();
    let (code, report, stderr) = run_json(&[
        "--url",
        "http://127.0.0.1:{port}/mcp",
        "--serve",
        "sh -c 'echo cannot-bind >&2; echo second-line >&2; exit 4'",
    ]);
    assert_eq!(code, 3);
    let fatal = report["fatal"].as_str().unwrap();
    assert!(fatal.contains("exit 4"), "{fatal}");
    assert_eq!(
        report["server"]["stderrTail"], "cannot-bind\nsecond-line\n",
        "{report}"
    );
    // Shown as a stdio server's stderr is: a block of indented lines.
    assert!(
        stderr.contains("server stderr (tail):\n  cannot-bind\n  second-line\n"),
        "{stderr}"
    );
    // A sleep of its own (its fraction is this test's marker), so that no other leaves a match.
    let sleeper = format!("sleep 30.{}", marker(15));
    let (code, report, _) = run_json(&[
        "--url",
        "http://127.0.0.1:{port}/mcp",
        "--serve",
        &sleeper,
        "--serve-timeout",
        "0.5",
    ]);
    assert_eq!(code, 3);
    assert!(report["fatal"]
        .as_str()
        .unwrap()
        .contains("did not listen on 127.0.0.1:"));
    assert!(report["fatal"]
        .as_str()
        .unwrap()
        .contains("within 0.5 s (--serve-timeout)"));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(!running(&sleeper), "the --serve command was left running");
}

#[test]
fn a_legacy_sse_url_that_is_no_stream_is_untestable() {
    let server = crate::support::HttpServer::start(&[]);
    let (code, report, _) = run_json(&["--url", &server.url, "--legacy-sse", "--timeout", "2"]);
    assert_eq!(code, 3);
    let fatal = report["fatal"].as_str().unwrap();
    assert!(
        fatal.contains("was answered HTTP 400 (application/json), not with an SSE stream"),
        "{fatal}"
    );
}

#[test]
fn a_legacy_sse_stream_that_names_no_endpoint_is_untestable_in_time() {
    // A stream that only ever sends keep-alive comments.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/sse", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                use std::io::{Read, Write};
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n: waiting\n\n",
                );
                std::thread::sleep(Duration::from_secs(30));
            });
        }
    });
    let started = Instant::now();
    let (code, report, _) = run_json(&[
        "--url",
        &url,
        "--legacy-sse",
        "--timeout",
        "1",
        "--startup-timeout",
        "1",
    ]);
    assert_eq!(code, 3);
    let fatal = report["fatal"].as_str().unwrap();
    assert!(fatal.contains("named no endpoint within 1 s"), "{fatal}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_server_that_takes_two_seconds_of_cpu_to_start_is_judged_in_both_eras_with_a_core_busy() {
    // Like a Python SDK server: about 2 s of CPU before it reads stdin. Another process keeps
    // one core busy, as on a CI runner doing two things. Default flags: the run paces its
    // starts to the machine, so no start runs past its bound and every check is judged.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let busy = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        })
    };
    let command = format!(
        "{} --dual-era --startup-cpu 2000",
        reference_server().display()
    );
    let (code, report, stderr) = run_json(&["--stdio", &command]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    busy.join().unwrap();
    assert_eq!(code, 0, "{stderr}\n{}", report["fatal"]);
    assert_eq!(report["protocol"]["version"], "2026-07-28");
    assert_eq!(report["otherEras"][0]["version"], "2025-11-25");
    for status in ["fail", "warn", "error", "notTestable"] {
        assert_eq!(report["summary"][status], 0, "{status}: {stderr}");
    }
    assert!(report["eras_note"].is_null() && report["erasNote"].is_null());
}

#[test]
fn a_server_that_stops_answering_early_is_an_error_of_the_run_never_a_failure() {
    let report = stops_answering("", 3);
    // Its connections fall silent for good: once one has been for a bound and one --timeout past
    // it, what would be sent on it is not (the main connection's scenarios, a lane's later
    // steps), rather than each waiting out its own bound.
    let not_sent: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            c["status"] == "error" && c["reason"] == json!({"kind": "stopped", "sent": false})
        })
        .filter_map(|c| c["message"].as_str())
        .collect();
    assert!(not_sent.len() > 5, "{not_sent:?}");
}

#[test]
fn a_server_that_stops_answering_mid_session_is_an_error_of_the_run_never_a_failure() {
    stops_answering("", 12);
}

#[test]
fn a_stateless_server_that_stops_answering_early_is_an_error_of_the_run_never_a_failure() {
    stops_answering("--stateless", 5);
}

#[test]
fn a_stateless_server_that_stops_answering_mid_run_is_an_error_of_the_run_never_a_failure() {
    stops_answering("--stateless", 30);
}

/// The server writes `n` lines, then nothing more, while it keeps reading and running: a check
/// resting on silence after that holds only if a later request is answered, so none fails,
/// wherever in the run the server stopped (before the handshake's end, in the middle of the
/// shared session, on either era). Four tests, so that the test runner runs them side by side.
/// Returns the report.
fn stops_answering(era: &str, n: usize) -> Value {
    let command = format!(
        "{} {era} --stop-answering-after {n}",
        reference_server().display()
    );
    let (code, report, stderr) = run_json(&["--stdio", &command, "--timeout", "1"]);
    assert_eq!(code, 4, "{era} {n}: {stderr}\n{}", report["summary"]);
    assert_eq!(report["summary"]["fail"], 0, "{era} {n}");
    assert_eq!(report["summary"]["warn"], 0, "{era} {n}");
    let stopped = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "error")
        .filter(|c| ["stopped", "no-response"].contains(&c["reason"]["kind"].as_str().unwrap()))
        .count();
    assert!(stopped > 0, "{era} {n}: {}", report["summary"]);
    report
}

/// On a fresh connection whose fourth line is the prompts listing (after `initialize` and the two
/// barriers of its start), and then nothing: two requests left unanswered for a whole `--timeout`
/// each say the server has stopped answering, and what follows is not sent (an error of the run),
/// except a step that would not be sent anyway (the server listed no prompts: not applicable, as
/// on a connection that answers). A second request with a shorter bound of its own confirms
/// nothing (a server may answer such a step late): what follows it is still sent.
#[test]
fn a_silent_connection_is_known_by_two_unanswered_requests_and_what_would_not_apply_stays_so() {
    let command = format!(
        "{} --empty-lists --stop-answering-after 4",
        reference_server().display()
    );
    let scenarios = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/scenarios");
    let (_, report, _) = run_json(&[
        "--stdio",
        &command,
        "--scenarios",
        scenarios,
        "--no-builtin",
        "--timeout",
        "1",
    ]);
    for id in ["stuck-get", "short-get"] {
        let get = check(&report, id);
        assert_eq!(get["status"], "skip", "{get}");
        assert_eq!(get["reason"]["kind"], "absent", "{get}");
    }
    // Not sent once two requests went unanswered: a step, and a background step (which would
    // otherwise have stayed open for its bound).
    for id in ["stuck-after", "stuck-background"] {
        let stuck = check(&report, id);
        assert_eq!(stuck["status"], "error", "{stuck}");
        assert_eq!(
            stuck["reason"],
            json!({"kind": "stopped", "sent": false}),
            "{stuck}"
        );
    }
    let short = check(&report, "short-after");
    assert_eq!(short["status"], "error", "{short}");
    assert_eq!(
        short["reason"],
        json!({"kind": "stopped", "sent": true}),
        "{short}"
    );
}

#[test]
fn a_server_with_nothing_listed_gets_no_hollow_pass() {
    // It declares tools, resources and prompts but lists none: a check of every listed item
    // examined nothing, so it does not apply (it is never a pass), and nothing fails.
    let command = format!("{} --empty-lists", reference_server().display());
    let (code, report, stderr) = run_json(&["--stdio", &command]);
    assert_eq!(code, 0, "{stderr}\n{}", report["summary"]);
    let status = statuses(&report);
    for id in ["resources-uri-scheme", "tools-name-format"] {
        assert_eq!(status[id], "skip", "{id}");
    }
    let examined_nothing = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "resources-uri-scheme")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        examined_nothing.contains("lists no resources"),
        "{examined_nothing}"
    );
}

/// What the small Python stdio servers below start with: the imports, and `send`, which writes
/// one message as a line (under a lock: a timer thread may send too).
const PYTHON_PRELUDE: &str = r#"
import json, sys, threading
lock = threading.Lock()
def send(message):
    with lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()
"#;

/// Writes a small Python stdio server (the prelude, then `body`) to a file that is removed when
/// the returned path is dropped; the command that runs it.
fn python_server(body: &str) -> (tempfile::TempPath, String) {
    let mut file = tempfile::Builder::new()
        .prefix("mcpcheck-server-")
        .suffix(".py")
        .tempfile()
        .unwrap();
    std::io::Write::write_all(&mut file, format!("{PYTHON_PRELUDE}{body}").as_bytes()).unwrap();
    let path = file.into_temp_path();
    let command = format!("python3 {}", path.display());
    (path, command)
}

/// A stdio server that serves initialize and ping, answers other requests -32601 and what is no
/// request with the JSON-RPC error for it, and exits at the third frame it reads that is not a
/// request with an id (a notification, a response, a batch, a malformed frame): which probe
/// meets the exit hangs on the order the probes come in.
const EXITS_AT_THE_THIRD_ODD_FRAME: &str = r#"
odd = 0
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        m = None
    if isinstance(m, dict) and isinstance(m.get("method"), str) and isinstance(m.get("id"), (str, int)):
        if m["method"] == "initialize":
            result = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {}, "serverInfo": {"name": "odd", "version": "1"}}
            send({"jsonrpc": "2.0", "id": m["id"], "result": result})
        elif m["method"] == "ping":
            send({"jsonrpc": "2.0", "id": m["id"], "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "Method not found"}})
        continue
    if isinstance(m, dict) and m.get("method") == "notifications/initialized":
        continue
    odd += 1
    if odd == 3:
        sys.exit(1)
    if m is None:
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
    elif not (isinstance(m, dict) and "method" in m and "id" not in m) and not (isinstance(m, dict) and ("result" in m or "error" in m)):
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}})
"#;

/// A check's verdict: its id, version and status.
type Verdict = (String, String, String);

#[test]
fn probes_take_the_probe_connection_in_the_library_order_whatever_the_scheduling() {
    // Which probe ends a probe connection, and so every probe's verdict, must not hang on the
    // order the probe tasks happened to start in: three runs, the same verdicts.
    let (_script, command) = python_server(EXITS_AT_THE_THIRD_ODD_FRAME);
    let runs: Vec<(Value, Vec<Verdict>)> = (0..3)
        .map(|_| {
            let (_, report, _) = run_json(&[
                "--stdio",
                &command,
                "--no-builtin",
                "--scenarios",
                "scenarios/jsonrpc",
                "--scenarios",
                "scenarios/cancellation",
            ]);
            let verdicts = report["checks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    let field = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                    (field("id"), field("version"), field("status"))
                })
                .collect();
            (report["probesEnded"].clone(), verdicts)
        })
        .collect();
    let ended = runs[0].0.as_array().expect("probesEnded");
    assert!(!ended.is_empty(), "{:?}", runs[0].1);
    for run in &runs[1..] {
        assert_eq!(run.0, runs[0].0);
        assert_eq!(run.1, runs[0].1);
    }
}

/// A 2026-07-28 stdio server whose subscription sends, right after its acknowledgement, an
/// untagged tool list change and then a tagged one, before anything has changed the list.
const UNTAGGED_THEN_TAGGED: &str = r#"
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if not isinstance(m, dict) or not isinstance(m.get("method"), str) or "id" not in m:
        continue
    method, id = m["method"], m["id"]
    if method == "server/discover":
        send({"jsonrpc": "2.0", "id": id, "result": {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": True}}, "serverInfo": {"name": "untagged", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": id, "result": {"tools": [{"name": "test_trigger_tool_change", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "changed"}]}})
    elif method == "subscriptions/listen":
        tag = {"io.modelcontextprotocol/subscriptionId": id}
        send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {"notifications": {"toolsListChanged": True}, "_meta": tag}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": tag}})
        threading.Timer(0.5, send, [{"jsonrpc": "2.0", "id": id, "result": {"_meta": tag}}]).start()
    else:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
"#;

#[test]
fn a_wait_for_a_notification_keeps_what_came_up_to_it_and_not_what_came_while_it_woke() {
    // The listen step waits for the first tool list change, which is untagged: the tagged one
    // right behind it belongs to no wait, however late the waiting task is scheduled (it was
    // kept, and the check passed, when both had arrived by the time the wait noticed).
    let (_script, command) = python_server(UNTAGGED_THEN_TAGGED);
    for _ in 0..3 {
        let (code, report, _) = run_json(&[
            "--stdio",
            &command,
            "--fixtures",
            "everything",
            "--no-builtin",
            "--scenarios",
            "scenarios/everything/listen-tool-change.toml",
        ]);
        let check = &report["checks"][0];
        assert_eq!(check["id"], "stateless-listen-tool-change", "{report}");
        assert_eq!(check["status"], "fail", "{check}");
        assert_eq!(code, 1);
    }
}
