//! The reference server fed arbitrary frames — random bytes, broken JSON, and JSON-RPC messages
//! with any id, any real or made-up method and any params — never panics and still answers the
//! ping that follows, over stdio and over HTTP. (Property tests of mcpcheck's own parsers are
//! in src/props.rs.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

use crate::support::{reference_server, HttpServer};

const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/list",
    "server/discover",
    "subscriptions/listen",
    "notifications/cancelled",
    "notifications/initialized",
    "made/up",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
        Just(json!("mcpcheck_echo")),
        Just(json!("mcpcheck://roots")),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("name".to_string()),
                    Just("uri".to_string()),
                    Just("arguments".to_string()),
                    Just("cursor".to_string()),
                    Just("_meta".to_string()),
                    Just("taskId".to_string()),
                    Just("level".to_string()),
                    "[a-z]{1,6}",
                ],
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// One frame on one line (no newline inside).
fn frame() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..48)
            .prop_map(|b| String::from_utf8_lossy(&b).replace(['\n', '\r'], " ")),
        (
            json_value(),
            prop::sample::select(METHODS),
            json_value(),
            any::<bool>()
        )
            .prop_map(|(id, method, params, request)| {
                let mut m = json!({"jsonrpc": "2.0", "method": method, "params": params});
                if request {
                    m["id"] = id;
                }
                m.to_string()
            }),
        json_value().prop_map(|v| v.to_string()),
        Just("{\"jsonrpc\":\"2.0\",".to_string()),
        Just("[]".to_string()),
    ]
}

fn frames() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(frame(), 1..60)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: 16,
        failure_persistence: None,
        ..Config::default()
    })
}

fn handshake() -> [String; 2] {
    [
        json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "1"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    ]
}

#[test]
fn the_reference_server_survives_arbitrary_frames_over_stdio() {
    runner()
        .run(&frames(), |frames| {
            let mut child = Command::new(reference_server())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let stdout = child.stdout.take().unwrap();
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if line.contains("\"after-fuzz\"") {
                        let _ = tx.send(line);
                    }
                }
            });
            for frame in handshake().iter().chain(&frames) {
                writeln!(stdin, "{frame}").unwrap();
            }
            let ping = json!({"jsonrpc": "2.0", "id": "after-fuzz", "method": "ping"});
            writeln!(stdin, "{ping}").unwrap();
            stdin.flush().unwrap();
            let answer = rx.recv_timeout(Duration::from_secs(10));
            drop(stdin);
            let deadline = Instant::now() + Duration::from_secs(10);
            let status = loop {
                if let Some(status) = child.try_wait().unwrap() {
                    break Some(status);
                }
                if Instant::now() > deadline {
                    let _ = child.kill();
                    break None;
                }
                std::thread::sleep(Duration::from_millis(20));
            };
            let mut stderr = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
            prop_assert!(!stderr.contains("panicked"), "{}", stderr);
            let answer = answer.map_err(|_| {
                TestCaseError::fail(format!(
                    "no answer to the ping after the frames; stderr: {stderr}"
                ))
            })?;
            let answer: Value = serde_json::from_str(&answer).unwrap();
            prop_assert_eq!(&answer["result"], &json!({}));
            prop_assert!(status.is_some_and(|s| s.success()), "{:?}", status);
            Ok(())
        })
        .unwrap();
}

/// POSTs one body to the server and returns the status and the response's text.
fn post(url: &str, body: &str, session: Option<&str>) -> (u16, String, Option<String>) {
    let address = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let mut stream = TcpStream::connect(&address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let session = session
        .map(|s| format!("mcp-session-id: {s}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-11-25\r\n{session}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    let _ = BufReader::new(stream).read_to_string(&mut response);
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let session = response.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_string())
    });
    (status, response, session)
}

#[test]
fn the_reference_server_survives_arbitrary_frames_over_http() {
    let server = HttpServer::start(&[]);
    runner()
        .run(&frames(), |frames| {
            let [init, initialized] = handshake();
            let (_, _, session) = post(&server.url, &init, None);
            let session = session.expect("a session id");
            post(&server.url, &initialized, Some(&session));
            for frame in &frames {
                let (status, response, _) = post(&server.url, frame, Some(&session));
                prop_assert!(status != 0, "no HTTP response to {}: {}", frame, response);
            }
            let ping = json!({"jsonrpc": "2.0", "id": "after-fuzz", "method": "ping"}).to_string();
            let (status, response, _) = post(&server.url, &ping, Some(&session));
            prop_assert_eq!(status, 200, "{}", response);
            prop_assert!(response.contains("\"after-fuzz\""), "{}", response);
            Ok(())
        })
        .unwrap();
}
