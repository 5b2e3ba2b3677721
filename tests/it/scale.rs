use std::collections::{BTreeMap, BTreeSet};

use crate::support::{mcpcheck, run_json, statuses, stdio_command};

#[test]
fn shards_split_the_scenarios_and_merge_rebuilds_the_full_run() {
    let dir = tempfile::tempdir().unwrap();
    let command = stdio_command(&["ping-error", "stdout-banner"]);
    let (_, full, _) = run_json(&["--stdio", &command, "-q"]);
    let full = statuses(&full);
    let mut paths = Vec::new();
    let mut owner: BTreeMap<String, usize> = BTreeMap::new();
    for k in 1..=3 {
        let path = dir.path().join(format!("shard-{k}.json"));
        let out = mcpcheck()
            .args([
                "run",
                "--stdio",
                &command,
                "-q",
                "--shard",
                &format!("{k}/3"),
                "--json",
                path.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(out.status.code().unwrap() <= 1);
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for check in report["checks"].as_array().unwrap() {
            if check["source"] != "built-in" {
                let previous = owner.insert(check["id"].as_str().unwrap().to_string(), k);
                assert!(previous.is_none(), "{} ran in two shards", check["id"]);
            }
        }
        paths.push(path.display().to_string());
    }
    let scenario_checks: BTreeSet<&String> = full
        .keys()
        .filter(|id| !mcpcheck::check::wire::ids().contains(&id.as_str()))
        .collect();
    assert_eq!(
        owner.keys().collect::<BTreeSet<_>>(),
        scenario_checks,
        "every scenario check ran in exactly one shard"
    );

    let merged_path = dir.path().join("merged.json");
    let out = mcpcheck()
        .arg("merge")
        .args(&paths)
        .args(["-q", "--json", merged_path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the merged run fails like the full run"
    );
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged_path).unwrap()).unwrap();
    assert_eq!(
        statuses(&merged),
        full,
        "merged verdicts equal the full run's"
    );
}

#[test]
fn reports_of_different_targets_do_not_merge() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    for (path, quirks) in [(&a, vec![]), (&b, vec!["ping-error"])] {
        mcpcheck()
            .args([
                "run",
                "--stdio",
                &stdio_command(&quirks),
                "-q",
                "--check",
                "jsonrpc-method-not-found",
                "--json",
                path.to_str().unwrap(),
            ])
            .output()
            .unwrap();
    }
    let out = mcpcheck()
        .args(["merge", a.to_str().unwrap(), b.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different targets"));
    let out = mcpcheck()
        .args(["run", "--stdio", "x", "--shard", "4/3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A loopback TCP relay to `target` that counts the connections made to it and the POSTs that
/// crossed them; it runs until the test ends.
fn counting_relay(
    target: std::net::SocketAddr,
) -> (
    String,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    use std::io::{Read, Write};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let (connections, posts) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (counted, posted) = (connections.clone(), posts.clone());
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            let Ok(server) = std::net::TcpStream::connect(target) else {
                continue;
            };
            let (mut up_in, mut up_out) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (mut down_in, mut down_out) = (server, client);
            let posted = posted.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 16384];
                while let Ok(n) = up_in.read(&mut buf) {
                    if n == 0 || up_out.write_all(&buf[..n]).is_err() {
                        break;
                    }
                    // A request line starts a chunk read from the client (requests are small
                    // and each is written whole).
                    if buf[..n].starts_with(b"POST ") {
                        posted.fetch_add(1, Ordering::SeqCst);
                    }
                }
                let _ = up_out.shutdown(std::net::Shutdown::Write);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut down_in, &mut down_out);
                let _ = down_out.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    (format!("http://{address}/mcp"), connections, posts)
}

#[test]
fn a_session_s_posts_take_turns_on_keep_alive_connections() {
    let server = crate::support::HttpServer::start(&[]);
    let target: std::net::SocketAddr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let (url, connections, posts) = counting_relay(target);
    let (code, report, stderr) = run_json(&["--url", &url, "--check", "tools-*"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(report["summary"]["fail"], 0);
    let (connections, posts) = (
        connections.load(std::sync::atomic::Ordering::SeqCst),
        posts.load(std::sync::atomic::Ordering::SeqCst),
    );
    // One connection per request was the rule; the session's POSTs now share a few.
    assert!(posts >= 10, "{posts} POSTs");
    assert!(
        connections * 2 < posts,
        "{connections} connections for {posts} POSTs"
    );
}
