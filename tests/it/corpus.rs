//! The hostile-server corpus: small servers on loopback (threads of this test, or shell
//! commands) that stall, flood, redirect, crash or ignore signals. Each case asserts its bound —
//! wall time, exit code, message, peak memory of mcpcheck — and that nothing is left running.
//! The README's robustness table lists these cases; keep the two together.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{mcpcheck, reference_server};

/// The peak memory every hostile case must stay under.
const MAX_RSS_MIB: f64 = 100.0;

/// One finished run of mcpcheck, measured.
struct Measured {
    code: i32,
    report: Value,
    stderr: String,
    elapsed: Duration,
    max_rss_mib: f64,
}

/// Starts a command, waits for it and writes its peak RSS (KiB) and exit code (-1 when a signal
/// ended it) to the file named first. mcpcheck is measured as the child of this small process,
/// not of the test binary: on Linux a process's peak RSS includes that of the memory it was
/// spawned from, so a child of the (large, multi-threaded) test binary would be charged for it.
const LAUNCHER: &str = "import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
open(sys.argv[1], 'w').write(f'{usage.ru_maxrss} {code}')
";

/// Runs `mcpcheck run ARGS --json -`, measuring its wall time and peak resident memory (through
/// [`LAUNCHER`], which reaps it with wait4 and so learns its peak RSS).
fn measured(args: &[&str]) -> Measured {
    let started = Instant::now();
    let facts = tempfile::NamedTempFile::new().expect("a temporary file");
    let mcpcheck_command = mcpcheck();
    let output = std::process::Command::new("python3")
        .args(["-c", LAUNCHER])
        .arg(facts.path())
        .arg(mcpcheck_command.get_program())
        .arg("run")
        .args(args)
        .args(["--json", "-"])
        .envs(
            mcpcheck_command
                .get_envs()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
        )
        .env_remove("NO_COLOR")
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .output()
        .expect("python3 starts mcpcheck");
    let elapsed = started.elapsed();
    let facts = std::fs::read_to_string(facts.path()).unwrap_or_default();
    let (max_rss_kib, code) = facts
        .split_once(' ')
        .and_then(|(rss, code)| Some((rss.parse::<f64>().ok()?, code.parse::<i32>().ok()?)))
        .unwrap_or_else(|| {
            panic!(
                "the launcher reported nothing ({facts:?}); stderr:\n{}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("no JSON report ({e}), exit {code}; stderr:\n{stderr}");
    });
    Measured {
        code,
        report,
        stderr,
        elapsed,
        max_rss_mib: max_rss_kib / 1024.0,
    }
}

impl Measured {
    /// Asserts the run's bounds: exit code, wall time, memory.
    fn within(&self, code: i32, seconds: u64) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code; fatal: {}\nstderr: {}",
            self.report["fatal"], self.stderr
        );
        assert!(
            self.elapsed < Duration::from_secs(seconds),
            "took {:?}, bound {seconds} s",
            self.elapsed
        );
        assert!(
            self.max_rss_mib < MAX_RSS_MIB,
            "peak RSS {:.1} MiB, bound {MAX_RSS_MIB} MiB",
            self.max_rss_mib
        );
        self
    }

    fn fatal(&self) -> &str {
        self.report["fatal"].as_str().unwrap_or_default()
    }
}

/// Whether a process runs whose whole command line is `command`, or (for a `yes` flood) one
/// that starts with `yes ` and holds it.
fn running(command: &str) -> bool {
    let output = std::process::Command::new("ps")
        .args(["-eo", "args"])
        .output()
        .expect("ps runs");
    String::from_utf8_lossy(&output.stdout).lines().any(|l| {
        let l = l.trim();
        l == command || (l.starts_with("yes ") && l.contains(command))
    })
}

/// A number unlikely to be in any other process's arguments (see hostile.rs).
fn marker(offset: u32) -> u32 {
    60_000 + (std::process::id() % 1000) * 20 + offset
}

/// One HTTP request as a hostile server reads it.
struct Request {
    head: String,
    body: Vec<u8>,
}

impl Request {
    fn method(&self) -> &str {
        self.head.split(' ').next().unwrap_or_default()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    fn is_initialize(&self) -> bool {
        self.json()["method"] == "initialize"
    }
}

fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line.trim().is_empty() {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0; length.min(1 << 20)];
    reader.read_exact(&mut body).ok()?;
    Some(Request { head, body })
}

/// A loopback HTTP server that hands every connection's first request to `handle` on a thread
/// of its own; returns its base URL (`http://127.0.0.1:PORT`).
fn http_fixture(handle: fn(TcpStream, Request)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                if let Some(request) = read_request(&mut stream) {
                    handle(stream, request);
                }
            });
        }
    });
    base
}

fn respond(stream: &mut TcpStream, status: &str, headers: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// A notification event logging `data`, as an SSE event.
fn log_event(data: &str) -> String {
    format!(
        "event: message\ndata: {}\n\n",
        json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": data}})
    )
}

/// Answers with an SSE stream that repeats `events` for 30 s (or until the client goes away),
/// never carrying the response.
fn flood_with(stream: TcpStream, events: &str) {
    flood_then_hold(stream, events, usize::MAX);
}

/// Answers with an SSE stream that repeats `events` as fast as the client reads them, for 30 s
/// or until `bytes` are sent; the stream then stays open without another byte until the client
/// goes away (or 30 s): it never ends and never carries the response.
fn flood_then_hold(mut stream: TcpStream, events: &str, bytes: usize) {
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"
    );
    let started = Instant::now();
    let mut sent = 0;
    while sent < bytes && started.elapsed() < Duration::from_secs(30) {
        if stream.write_all(events.as_bytes()).is_err() {
            return;
        }
        sent += events.len();
    }
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let _ = stream.read(&mut [0; 64]);
}

/// How many bytes a stream that floods and then holds sends: four times the largest byte bound
/// of mcpcheck (what the bodies being read may hold together), so that no bound is left
/// untried, however many streams share it.
const FLOODED_BYTES: usize = 4 * mcpcheck::transport::http::IN_FLIGHT_BYTES;

/// An SSE stream of 64 KiB notifications that never ends.
fn flood_sse(stream: TcpStream) {
    flood_with(stream, &log_event(&"y".repeat(64 << 10)));
}

/// Answers initialize (see [`initialized`]); false for any other request.
fn answered_initialize(stream: &mut TcpStream, request: &Request) -> bool {
    if !request.is_initialize() {
        return false;
    }
    let body = initialized(request);
    respond(
        stream,
        "200 OK",
        "content-type: application/json\r\n",
        &body,
    );
    true
}

/// The answer to initialize, as the lifecycle says: a version the server knows is echoed, any
/// other answered with the newest (these servers break only what each case is about).
fn initialized(request: &Request) -> String {
    let asked = request.json()["params"]["protocolVersion"].clone();
    let known = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
    let version = match asked.as_str() {
        Some(v) if known.contains(&v) => asked.clone(),
        _ => json!("2025-11-25"),
    };
    json!({"jsonrpc": "2.0", "id": request.json()["id"], "result": {
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "hostile", "version": "1"}
    }})
    .to_string()
}

#[test]
fn an_http_server_that_stalls_after_issuing_a_session_ends_within_the_run_bound() {
    fn handle(mut stream: TcpStream, request: Request) {
        if request.is_initialize() {
            let body = initialized(&request);
            respond(
                &mut stream,
                "200 OK",
                "content-type: application/json\r\nmcp-session-id: s-1\r\n",
                &body,
            );
        } else {
            // Every other request (the session's DELETE too) is read and never answered.
            std::thread::sleep(Duration::from_secs(60));
        }
    }
    let url = format!("{}/mcp", http_fixture(handle));
    let run = measured(&["--url", &url, "--timeout", "1", "--run-timeout", "6"]);
    // Every request timed out: harness trouble (error), never the server's failure.
    run.within(4, 20);
    assert_eq!(
        run.report["summary"]["fail"], 0,
        "{}",
        run.report["summary"]
    );
    assert!(run.report["summary"]["error"].as_u64().unwrap() > 0);
}

#[test]
fn a_stdio_server_that_never_reads_and_floods_requests_ends_in_time() {
    let m = marker(1);
    let command = format!(
        "sh -c 'yes {{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":{m},\\\"method\\\":\\\"roots/list\\\"}}'"
    );
    let run = measured(&["--stdio", &command, "--timeout", "1", "--run-timeout", "10"]);
    run.within(3, 20);
    assert!(
        run.fatal().contains("stopped reading its stdin"),
        "{}",
        run.fatal()
    );
    assert!(
        !running(&format!("\"id\":{m}")),
        "the server was left running"
    );
}

#[test]
fn a_stdio_flood_of_large_notifications_stays_bounded_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let line = dir.path().join("line.json");
    let big = json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": "x".repeat(1 << 20)}});
    std::fs::write(&line, format!("{big}\n")).unwrap();
    let command = format!("sh -c 'while :; do cat {}; done'", line.display());
    let run = measured(&[
        "--stdio",
        &command,
        "--timeout",
        "1",
        "--startup-timeout",
        "2",
        "--run-timeout",
        "10",
    ]);
    run.within(3, 20);
    assert!(run.fatal().contains("initialize"), "{}", run.fatal());
}

/// A run against a server whose every stream floods, at `--timeout 2`: within its peak memory
/// and `seconds` of wall time, whatever `--jobs` is.
fn flooded(url: &str, jobs: &str, run_timeout: &str, seconds: u64) -> Measured {
    let run = measured(&[
        "--url",
        url,
        "--timeout",
        "2",
        "--run-timeout",
        run_timeout,
        "--jobs",
        jobs,
    ]);
    assert!(
        run.max_rss_mib < MAX_RSS_MIB,
        "--jobs {jobs}: peak RSS {:.1} MiB",
        run.max_rss_mib
    );
    assert!(
        run.elapsed < Duration::from_secs(seconds),
        "{:?}",
        run.elapsed
    );
    run
}

#[test]
fn an_endless_sse_response_stays_bounded_in_memory() {
    fn handle(mut stream: TcpStream, request: Request) {
        if answered_initialize(&mut stream, &request) {
            return;
        }
        if request.method() != "POST" {
            return respond(&mut stream, "405 Method Not Allowed", "", "");
        }
        flood_then_hold(stream, &log_event(&"y".repeat(64 << 10)), FLOODED_BYTES);
    }
    let url = format!("{}/mcp", http_fixture(handle));
    // However many requests run at once, what their bodies hold is bounded together. (The runs
    // are side by side: each is its own process, measured on its own, ended by its run bound.)
    // Each stream floods past every byte bound of mcpcheck, then holds: the peak memory is the
    // same as under a flood to each request's bound (69 and 47 MiB at --jobs 16 and 4, measured
    // both ways), for a third of the CPU, which the other tests then have.
    side_by_side(&["4", "16"], |jobs| {
        let run = flooded(&url, jobs, "20", 40);
        assert!(matches!(run.code, 1 | 4), "exit {}", run.code);
    });
}

/// Runs `each` for every value at once, each on a thread of its own (a run of mcpcheck mostly
/// waits on its bounds); a panic of any is the test's.
fn side_by_side(values: &[&str], each: impl Fn(&str) + Sync) {
    std::thread::scope(|scope| {
        let runs: Vec<_> = values
            .iter()
            .map(|value| {
                let each = &each;
                scope.spawn(move || each(value))
            })
            .collect();
        for run in runs {
            if let Err(panic) = run.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

/// An SSE stream of small notifications that never ends and never carries the response: cheap
/// for the server, and each event costs far more than its bytes once parsed.
fn flood_small_events(stream: TcpStream) {
    flood_with(stream, &log_event("x").repeat(64));
}

/// How many bytes of small events a stream that floods and then holds sends: about 100,000
/// events, far past the events an SSE body keeps, and eight times the bytes.
const SMALL_EVENTS_BYTES: usize = 8 * mcpcheck::transport::http::KEPT_BYTES;

#[test]
fn an_endless_stream_of_small_events_is_bounded_and_named_on_initialize_and_after() {
    fn everything(stream: TcpStream, request: Request) {
        if request.method() != "POST" {
            let mut stream = stream;
            return respond(&mut stream, "405 Method Not Allowed", "", "");
        }
        flood_small_events(stream);
    }
    fn after_initialize(mut stream: TcpStream, request: Request) {
        if answered_initialize(&mut stream, &request) {
            return;
        }
        if request.method() != "POST" {
            return respond(&mut stream, "405 Method Not Allowed", "", "");
        }
        // After initialize, each stream floods and then holds (its memory is that of a flood
        // to the run's bound, 22 MiB measured both ways): the flood to the bound is above.
        flood_then_hold(stream, &log_event("x").repeat(64), SMALL_EVENTS_BYTES);
    }
    // On initialize: the run ends at --timeout per request (discover, then initialize) and
    // says what came instead of the answer.
    let url = format!("{}/mcp", http_fixture(everything));
    side_by_side(&["1", "4", "16"], |jobs| {
        let run = measured(&["--url", &url, "--timeout", "2", "--jobs", jobs]);
        run.within(3, 15);
        let fatal = run.fatal();
        assert!(
            fatal.contains("no answer to initialize within") && fatal.contains("events,"),
            "{fatal}"
        );
        assert!(fatal.contains("an SSE stream of"), "{fatal}");
    });
    // After a good initialize: every request floods, then holds; memory stays bounded at any
    // --jobs.
    let url = format!("{}/mcp", http_fixture(after_initialize));
    side_by_side(&["1", "4", "16"], |jobs| {
        flooded(&url, jobs, "8", 30);
    });
}

#[test]
fn an_http_sse_stream_that_floods_without_an_endpoint_is_untestable_and_bounded() {
    fn handle(stream: TcpStream, _: Request) {
        flood_sse(stream);
    }
    let url = format!("{}/sse", http_fixture(handle));
    let run = measured(&[
        "--url",
        &url,
        "--legacy-sse",
        "--timeout",
        "1",
        "--startup-timeout",
        "2",
    ]);
    run.within(3, 20);
}

#[test]
fn redirects_are_reported_and_never_followed() {
    fn found(mut stream: TcpStream, _: Request) {
        respond(
            &mut stream,
            "302 Found",
            "location: http://127.0.0.1:9/elsewhere\r\n",
            "",
        );
    }
    fn temporary(mut stream: TcpStream, _: Request) {
        respond(
            &mut stream,
            "307 Temporary Redirect",
            "location: http://127.0.0.1:9/elsewhere\r\n",
            "",
        );
    }
    fn looping(mut stream: TcpStream, _: Request) {
        respond(&mut stream, "302 Found", "location: /mcp\r\n", "");
    }
    for (handle, status, location) in [
        (
            found as fn(TcpStream, Request),
            302,
            "http://127.0.0.1:9/elsewhere",
        ),
        (temporary, 307, "http://127.0.0.1:9/elsewhere"),
        (looping, 302, "/mcp"),
    ] {
        let url = format!("{}/mcp", http_fixture(handle));
        let run = measured(&["--url", &url, "--timeout", "2"]);
        run.within(3, 10);
        assert!(
            run.fatal().contains(&format!(
                "HTTP {status} redirect to {location}, not followed"
            )),
            "{}",
            run.fatal()
        );
    }
}

#[test]
fn an_html_error_page_to_everything_is_untestable() {
    fn handle(mut stream: TcpStream, _: Request) {
        respond(
            &mut stream,
            "500 Internal Server Error",
            "content-type: text/html\r\n",
            "<html><body><h1>Internal Server Error</h1></body></html>",
        );
    }
    let url = format!("{}/mcp", http_fixture(handle));
    let run = measured(&["--url", &url, "--timeout", "2"]);
    run.within(3, 10);
    assert!(
        run.fatal().contains("rejected with HTTP 500"),
        "{}",
        run.fatal()
    );
}

#[test]
fn headers_then_a_stalled_body_time_out() {
    fn handle(mut stream: TcpStream, _: Request) {
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"jsonrpc\""
        );
        std::thread::sleep(Duration::from_secs(60));
    }
    let url = format!("{}/mcp", http_fixture(handle));
    let run = measured(&["--url", &url, "--timeout", "1", "--run-timeout", "10"]);
    run.within(3, 15);
    assert!(run.fatal().contains("initialize"), "{}", run.fatal());
}

#[test]
fn a_server_that_crashes_after_five_requests_is_gone_not_failing() {
    let command = format!(
        "sh -c 'stdbuf -oL head -n 5 | {}'",
        reference_server().display()
    );
    let run = measured(&["--stdio", &command, "--timeout", "2"]);
    assert!(
        matches!(run.code, 1 | 4),
        "exit {}: {}",
        run.code,
        run.fatal()
    );
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
    assert!(run.max_rss_mib < MAX_RSS_MIB);
    // What the main session could not do after the crash is an error of the run, saying why.
    let gone = run.report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "error")
        .filter(|c| c["message"].as_str().unwrap().contains("the server exited"))
        .count();
    assert!(gone > 10, "{}", run.report["summary"]);
}

#[test]
fn a_server_that_never_answers_gets_the_startup_allowance_per_process() {
    // head holds what it reads in its buffer: the server behind it never sees a request.
    let command = format!("sh -c 'head -n 5 | {}'", reference_server().display());
    let run = measured(&[
        "--stdio",
        &command,
        "--timeout",
        "1",
        "--startup-timeout",
        "4",
    ]);
    // server/discover waits out the allowance. The server never said a word, so it may still
    // be starting: initialize goes to a fresh process (where a late answer to the probe cannot
    // pose as its reply), whose start gets the allowance once more.
    run.within(3, 14);
    assert!(run.elapsed >= Duration::from_secs(8), "{:?}", run.elapsed);
    assert!(
        run.fatal()
            .contains("no answer to initialize within 4000 ms"),
        "{}",
        run.fatal()
    );
}

#[test]
fn a_server_that_ignores_stdin_eof_and_sigterm_is_killed() {
    let m = marker(3);
    let command = format!(
        "sh -c 'trap \"\" TERM; {} ; sleep {m}'",
        reference_server().display()
    );
    let run = measured(&[
        "--stdio",
        &command,
        "--check",
        "ping-empty-result",
        "--exit-grace",
        "0.2",
    ]);
    run.within(0, 20);
    assert_eq!(run.report["server"]["exit"]["stoppedBy"], "sigkill");
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !running(&format!("sleep {m}")),
        "the server was left running"
    );
}

#[test]
fn a_server_whose_ids_never_match_is_untestable() {
    let command =
        "sh -c 'yes {\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":987654,\\\"result\\\":{}} | head -n 1000; sleep 30'";
    let run = measured(&[
        "--stdio",
        command,
        "--timeout",
        "1",
        "--startup-timeout",
        "1",
    ]);
    run.within(3, 15);
    assert!(
        run.fatal().contains("no answer to initialize"),
        "{}",
        run.fatal()
    );
}

/// Waits (up to 10 s) until a process whose command line is `needle` runs.
fn await_running(needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !running(needle) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(running(needle), "`{needle}` never started");
}

/// Waits (up to 3 s) until no process whose command line is `needle` runs.
fn gone(needle: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(3);
    while running(needle) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    !running(needle)
}

#[test]
fn a_grandchild_that_leaves_the_process_group_is_stopped_too() {
    let m = marker(5);
    let command = format!(
        "sh -c 'setsid sleep {m} & exec {}'",
        reference_server().display()
    );
    let run = measured(&["--stdio", &command, "--check", "ping-empty-result"]);
    run.within(0, 20);
    assert!(
        gone(&format!("sleep {m}")),
        "a grandchild that ran setsid was left running"
    );
}

#[test]
fn a_killed_mcpcheck_takes_its_stdio_server_with_it() {
    let m = marker(6);
    let mut child = mcpcheck()
        .args(["run", "--stdio", &format!("sleep {m}"), "--timeout", "30"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    await_running(&format!("sleep {m}"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        gone(&format!("sleep {m}")),
        "the server outlived a SIGKILLed mcpcheck"
    );
}

#[test]
fn every_command_stops_its_servers_on_sigterm_and_sighup() {
    for (offset, command, signal) in [
        (7, "compare", libc::SIGTERM),
        (8, "compare", libc::SIGHUP),
        (9, "run", libc::SIGHUP),
    ] {
        let m = marker(offset);
        let server = format!("sh -c 'sleep {} & sleep {m}'", m + 100);
        let mut child = mcpcheck()
            .args([command, "--stdio", &server, "--timeout", "30"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        await_running(&format!("sleep {m}"));
        // SAFETY: signals our own child process.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let started = Instant::now();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "{command} on signal {signal}");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(
            gone(&format!("sleep {m}")),
            "{command}: the server was left"
        );
        assert!(
            gone(&format!("sleep {}", m + 100)),
            "{command}: its grandchild was left"
        );
    }
}

#[test]
fn a_wedged_server_gets_the_same_verdicts_and_exit_code_every_time() {
    // It answers initialize (rightly), then nothing: its silence is never a failure or a
    // warning, and the run exits 4 (errors of the run), on every run, whatever the scheduling.
    // Which checks the run bound leaves unjudged (an error) and which a handshake of a new
    // process reached first (a pass) may differ with the machine's load; no verdict may.
    let command = format!("{} --wedged", crate::untrusted::hostile_strings().display());
    let args = [
        "--stdio",
        command.as_str(),
        "--timeout",
        "1",
        "--startup-timeout",
        "1",
        "--run-timeout",
        "5",
    ];
    let first = measured(&args);
    first.within(4, 20);
    assert_eq!(
        first.report["summary"]["fail"], 0,
        "{}",
        first.report["summary"]
    );
    let second = measured(&args);
    second.within(4, 20);
    for run in [&first, &second] {
        for (id, status) in crate::support::statuses(&run.report) {
            assert!(
                ["error", "skip", "not-testable", "pass"].contains(&status.as_str()),
                "{id}: {status}"
            );
        }
    }
    let (a, b) = (
        crate::support::statuses(&first.report),
        crate::support::statuses(&second.report),
    );
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    // What does not apply does not apply on either run.
    for (id, status) in &a {
        assert_eq!(
            status == "skip",
            b[id] == "skip",
            "{id}: {status} / {}",
            b[id]
        );
    }
}

#[test]
fn a_server_that_exits_at_once_with_success_is_untestable() {
    let run = measured(&["--stdio", "true", "--timeout", "1"]);
    run.within(3, 10);
    assert!(run.fatal().contains("exit 0"), "{}", run.fatal());
}

#[test]
fn a_frame_that_is_not_utf8_is_judged_not_fatal() {
    let command = format!(
        "sh -c 'printf \"\\377\\376 not utf-8\\n\"; exec {}'",
        reference_server().display()
    );
    let run = measured(&["--stdio", &command, "--check", "stdio-*"]);
    run.within(1, 20);
    assert_eq!(
        crate::support::statuses(&run.report)["stdio-framing"],
        "fail"
    );
}

#[test]
fn serve_with_an_https_url_without_a_port_waits_on_443() {
    let run = measured(&[
        "--url",
        "https://127.0.0.1/mcp",
        "--serve",
        "sleep 5",
        "--serve-timeout",
        "0.3",
    ]);
    run.within(3, 10);
    assert!(run.fatal().contains("127.0.0.1:443"), "{}", run.fatal());
}

#[test]
fn a_server_request_whose_answer_is_never_acknowledged_ends_within_the_run_bound() {
    // Every request but initialize is answered with an SSE stream that asks mcpcheck a question
    // and then stalls; the POST that carries mcpcheck's answer is read and never answered.
    fn handle(mut stream: TcpStream, request: Request) {
        if answered_initialize(&mut stream, &request) {
            return;
        }
        if request.method() != "POST" || request.json().get("method").is_none() {
            // mcpcheck's answer (or a GET, or a DELETE): never answered.
            std::thread::sleep(Duration::from_secs(60));
            return;
        }
        if request.json().get("id").is_none() {
            // A notification is accepted as the spec says (202): what this server breaks is
            // only the answers to its own question.
            return respond(&mut stream, "202 Accepted", "", "");
        }
        // A new id each time: a server never reuses its request ids in a session.
        static ASKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = ASKED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let ask = json!({"jsonrpc": "2.0", "id": format!("server-asks-{n}"), "method": "ping"});
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nevent: message\ndata: {ask}\n\n"
        );
        std::thread::sleep(Duration::from_secs(60));
    }
    let url = format!("{}/mcp", http_fixture(handle));
    let run = measured(&["--url", &url, "--timeout", "1", "--run-timeout", "6"]);
    run.within(4, 20);
    assert_eq!(
        run.report["summary"]["fail"], 0,
        "{}",
        run.report["summary"]
    );
}
