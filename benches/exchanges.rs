//! Exchanges per second through mcpcheck's own stdio, HTTP and HTTP+SSE transports, against the
//! reference server: `ping` after `ping`, one at a time and with several in flight. Not a
//! pass/fail test; `bench/run` calls it and records the figures.
//!
//! Usage: `cargo bench --bench exchanges -- [COUNT]` (default 20000 exchanges per measurement).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use mcpcheck::protocol::Session;
use mcpcheck::transport::{HttpSpec, Limits, StdioSpec, Target};

fn reference_server() -> PathBuf {
    if let Some(path) = std::env::var_os("MCPCHECK_REFERENCE_SERVER") {
        return PathBuf::from(path);
    }
    // target/release/deps/exchanges-… → target/release/reference-server
    let exe = std::env::current_exe().expect("current exe");
    let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    let path = dir.join("reference-server");
    assert!(
        path.exists(),
        "build it first: cargo build --release -p reference-server (looked for {})",
        path.display()
    );
    path
}

async fn measure(session: Arc<Session>, count: usize, in_flight: usize) -> f64 {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..in_flight {
        let session = session.clone();
        let share = count / in_flight + usize::from(worker < count % in_flight);
        tasks.push(tokio::spawn(async move {
            for _ in 0..share {
                let exchange = session.request("ping", None).await;
                assert!(
                    matches!(exchange.reply, mcpcheck::record::Reply::Message { .. }),
                    "ping failed: {:?}",
                    exchange.reply
                );
            }
        }));
    }
    for task in tasks {
        task.await.expect("worker");
    }
    count as f64 / started.elapsed().as_secs_f64()
}

async fn bench(name: &str, target: Target, count: usize) {
    let session = Arc::new(Session::open(&target, &Limits::default()).expect("open"));
    session
        .handshake("2025-11-25")
        .await
        .map_err(|(e, _)| e)
        .expect("handshake");
    measure(session.clone(), count / 10, 1).await; // warm-up
    for in_flight in [1, 16, 64] {
        let rate = measure(session.clone(), count, in_flight).await;
        println!("{name:5} in-flight={in_flight:<3} {rate:>10.0} exchanges/s ({count} pings)");
    }
    session.close().await;
}

fn main() {
    let count: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let server = reference_server();
    let runtime = match std::env::var("MCPCHECK_BENCH_RUNTIME").as_deref() {
        Ok("current") => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    }
    .enable_all()
    .build()
    .expect("runtime");
    runtime.block_on(bench(
        "stdio",
        Target::Stdio(StdioSpec {
            argv: vec![server.display().to_string()],
            env: Vec::new(),
            cwd: None,
        }),
        count,
    ));
    let mut child = Command::new(&server)
        .args(["--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("http server");
    let mut url = String::new();
    BufReader::new(child.stdout.as_mut().expect("stdout"))
        .read_line(&mut url)
        .expect("url");
    runtime.block_on(bench(
        "http",
        Target::Http(HttpSpec {
            serve: None,
            url: url.trim().to_string(),
            legacy_sse: false,
            headers: Vec::new(),
        }),
        count / 4,
    ));
    runtime.block_on(bench(
        "sse",
        Target::Http(HttpSpec {
            serve: None,
            url: url.trim().replace("/mcp", "/sse"),
            legacy_sse: true,
            headers: Vec::new(),
        }),
        count / 4,
    ));
    let _ = child.kill();
    let _ = child.wait();
}
