//! The stdio transport of the reference server: one JSON-RPC message per line on stdin and stdout.
//!
//! Tool calls are handled concurrently and can be cancelled (`notifications/cancelled` stops the
//! call: no further progress, no response); the notifications a request produces are written
//! before its response. Logs go to stderr only. The server exits when stdin closes.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};

use crate::quirks::{Demand, Waiver};
use crate::server::{Server, Session};

/// Serves one client on stdin/stdout until stdin closes.
pub async fn serve(server: Arc<Server>) -> std::io::Result<()> {
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
    let silent_after = server.silent_after.unwrap_or(usize::MAX);
    let writing = Arc::clone(&server);
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut written = 0;
        while let Some(line) = out_rx.recv().await {
            if written >= silent_after {
                continue;
            }
            written += 1;
            let mut bytes = line.into_bytes();
            writing.quirks.encoded("stdio", &mut bytes);
            if stdout.write_all(&bytes).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    for line in server.quirks.greeting() {
        let _ = out_tx.send(line);
    }
    let (frames_tx, frames_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let reader = tokio::spawn(async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        loop {
            let mut line = Vec::new();
            match stdin.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if frames_tx.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let ended = converse(server.clone(), frames_rx, out_tx.clone()).await;
    reader.abort();
    if ended == Ended::Stopped {
        return stop(out_tx, writer, 1).await;
    }
    eprintln!("reference-server: stdin closed");
    if server.quirks.waives(Waiver::StdinEof) {
        loop {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
    }
    stop(out_tx, writer, 0).await
}

/// How a conversation ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// The client's frames ran out (stdin closed, the SSE stream went away).
    Eof,
    /// The server stopped serving (a quirk that crashes).
    Stopped,
}

/// One client's conversation, whatever carries it: each frame from `frames` (a line, with or
/// without its newline) is handled, and every message the server sends goes to `out` as a line.
/// Tool calls run concurrently and can be cancelled; when the frames run out, calls in flight get
/// two seconds to finish.
pub async fn converse(
    server: Arc<Server>,
    mut frames: mpsc::UnboundedReceiver<Vec<u8>>,
    out_tx: mpsc::UnboundedSender<String>,
) -> Ended {
    let session = Arc::new(Session::default());
    let mut tasks = JoinSet::new();
    let (stop_tx, mut stop_rx) = mpsc::unbounded_channel::<()>();
    // Tool calls in flight, by their request id as JSON text, for cancellation.
    let mut in_flight: HashMap<String, AbortHandle> = HashMap::new();
    loop {
        let line = tokio::select! {
            line = frames.recv() => match line {
                Some(line) => line,
                None => break,
            },
            _ = stop_rx.recv() => return Ended::Stopped,
        };
        let frame = line.strip_suffix(b"\n").unwrap_or(&line);
        let frame = frame.strip_suffix(b"\r").unwrap_or(frame).to_vec();
        if frame.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (server, session, out, stop_tx) = (
            server.clone(),
            session.clone(),
            out_tx.clone(),
            stop_tx.clone(),
        );
        // Requests that may take a while run concurrently; everything else is answered in the
        // order it arrived.
        let parsed = serde_json::from_slice::<Value>(&frame).ok();
        let method = parsed
            .as_ref()
            .and_then(|v| v.get("method"))
            .and_then(Value::as_str);
        // Tool calls, subscriptions and tasks/result (which waits for its task) run
        // concurrently, and can be cancelled.
        let concurrent = matches!(
            method,
            Some("tools/call" | "subscriptions/listen" | "tasks/result")
        );
        in_flight.retain(|_, task| !task.is_finished());
        if method == Some("notifications/cancelled") {
            let id = parsed
                .as_ref()
                .and_then(|v| v.pointer("/params/requestId"))
                .map(Value::to_string)
                .unwrap_or_default();
            let ignore = server.quirks.waives(Waiver::Cancel);
            match in_flight.remove(&id) {
                // The call stops where it is: no further progress, no response.
                Some(task) if !ignore => task.abort(),
                Some(_) => {}
                None if server.quirks.demands(Demand::KnownCancel) => {
                    let _ = out_tx.send(format!(
                        "{}\n",
                        serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32602, "message": format!("Unknown request id {id}")}})
                    ));
                }
                None => {}
            }
        }
        let call_id = concurrent
            .then(|| {
                parsed
                    .as_ref()
                    .and_then(|v| v.get("id"))
                    .map(Value::to_string)
            })
            .flatten();
        let work = async move {
            if handle_line(&server, &session, &frame, &out, concurrent).await {
                let _ = stop_tx.send(());
            }
        };
        if concurrent {
            let task = tasks.spawn(work);
            if let Some(id) = call_id {
                in_flight.insert(id, task);
            }
        } else {
            work.await;
        }
        while tasks.try_join_next().is_some() {}
    }
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    Ended::Eof
}

/// Handles one line; returns whether the server must stop serving.
async fn handle_line(
    server: &Server,
    session: &Session,
    frame: &[u8],
    out: &mpsc::UnboundedSender<String>,
    streaming: bool,
) -> bool {
    let (sink, mut notes) = mpsc::unbounded_channel::<Value>();
    if streaming {
        // Notifications of a long request (progress) are written as they come.
        let forward = {
            let out = out.clone();
            tokio::spawn(async move {
                while let Some(note) = notes.recv().await {
                    let _ = out.send(format!("{note}\n"));
                }
            })
        };
        let handled = server.handle_frame(session, frame, &sink).await;
        drop(sink);
        let _ = forward.await;
        return write_replies(server, frame, handled, out);
    }
    // A quick request's notifications are written after it, before its response.
    let handled = server.handle_frame(session, frame, &sink).await;
    drop(sink);
    while let Ok(note) = notes.try_recv() {
        let _ = out.send(format!("{note}\n"));
    }
    write_replies(server, frame, handled, out)
}

/// Writes a frame's replies; returns whether the server must stop serving.
fn write_replies(
    server: &Server,
    frame: &[u8],
    handled: crate::server::Handled,
    out: &mpsc::UnboundedSender<String>,
) -> bool {
    if handled.batch {
        if !handled.replies.is_empty() {
            let _ = out.send(format!("{}\n", Value::Array(handled.replies.clone())));
        }
    } else {
        for mut reply in handled.replies {
            server.quirks.written(&mut reply);
            for line in server.quirks.printed(frame, &reply) {
                let _ = out.send(format!("{line}\n"));
            }
        }
    }
    handled.stop
}

async fn stop(
    out: mpsc::UnboundedSender<String>,
    writer: tokio::task::JoinHandle<()>,
    code: i32,
) -> std::io::Result<()> {
    drop(out);
    // In-flight requests may still hold the writer open; what was queued before the stop is written.
    let _ = tokio::time::timeout(Duration::from_millis(500), writer).await;
    std::process::exit(code)
}
