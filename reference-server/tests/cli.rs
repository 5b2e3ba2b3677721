//! The reference server as a program: its command line and its stdio loop, run as mcpcheck's
//! tests run it.
//!
//! Being an integration test, this file also makes `cargo test --workspace` build the
//! `reference-server` binary itself (cargo builds a package's binaries only for its integration
//! tests), with the features the workspace build gives its dependencies. Without it, mcpcheck's
//! tests found no binary on a fresh checkout and built one on first use, compiling the server's
//! dependencies a second time while every other test waited for it (about a minute in CI).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn server() -> Command {
    Command::new(env!("CARGO_BIN_EXE_reference-server"))
}

#[test]
fn an_unknown_quirk_is_a_usage_error_that_names_it() {
    let output = server()
        .args(["--quirk", "no-such-quirk"])
        .stdin(Stdio::null())
        .output()
        .expect("the reference server starts");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.starts_with("reference-server: unknown quirk `no-such-quirk` (see --list-quirks)"),
        "{said}"
    );
}

#[test]
fn every_listed_quirk_is_accepted_by_name() {
    let output = server().arg("--list-quirks").output().expect("starts");
    assert!(output.status.success());
    let listing = String::from_utf8(output.stdout).expect("UTF-8");
    let names: Vec<&str> = listing
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(names.len() > 100, "{} quirks listed", names.len());
    let mut command = server();
    for name in &names {
        command.args(["--quirk", name]);
    }
    // Every name parses: the arguments are read in order, so an unknown one would end the run
    // with a usage error before `--list-quirks` is reached.
    let status = command
        .arg("--list-quirks")
        .stdout(Stdio::null())
        .status()
        .expect("starts");
    assert!(status.success(), "{status}");
}

#[test]
fn over_stdio_it_answers_a_request_and_ends_at_the_end_of_its_input() {
    let mut child = server()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("piped");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
    .expect("written");
    drop(stdin);
    // Read on a thread of its own, so that a server that never answers fails the test after a
    // bound instead of hanging it.
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let Ok(line) = rx.recv_timeout(Duration::from_secs(10)) else {
        child.kill().ok();
        child.wait().ok();
        panic!("no answer to initialize within 10 s");
    };
    let reply: serde_json::Value = serde_json::from_str(&line).expect("one JSON line");
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["protocolVersion"], "2025-06-18");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waits") {
            assert!(status.success(), "{status}");
            break;
        }
        if started.elapsed() > Duration::from_secs(10) {
            child.kill().ok();
            child.wait().ok();
            panic!("the server did not end within 10 s of the end of its input");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
