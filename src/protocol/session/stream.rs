//! stdio and the 2024-11-05 HTTP+SSE transport: one stream of messages from the server, matched
//! to requests as they come, with the waits (start-up allowance, holds, unclaimed replies) that
//! go with it.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::oneshot;

use super::{
    Outgoing, Pipe, SendOptions, Session, StreamLink, Unsent, BARRIER_GRACE, UNCLAIMED_GRACE,
};
use crate::record::{id_key, Direction, Exchange, HttpFacts, Reply};
use crate::transport::legacy::{LegacySse, StreamEnd};

impl Session {
    /// Sends one frame over a stream link (stdio, HTTP+SSE) and waits for what answers it.
    ///
    /// Long by design: one exchange on a shared stream as one state machine (the write bound, the barrier
    /// ping, claiming replies by id, the start-up allowance), whose parts share the same waits.
    pub(super) async fn send_stream(
        &self,
        link: &Arc<StreamLink>,
        outgoing: Outgoing,
        options: &SendOptions,
    ) -> Exchange {
        let started = Instant::now();
        let text = Self::render(&outgoing);
        if let (Pipe::Sse(sse), Some(_)) = (&link.pipe, &options.http_method) {
            return Self::probe_sse(sse, text, options, started).await;
        }
        // A step that takes an unclaimed reply takes one that comes after it was sent: whatever
        // nobody claimed before (a late or duplicated answer to an earlier step) is let go.
        let takes_unclaimed = options.accept_unmatched
            || options.hold.is_some()
            || !matches!(outgoing, Outgoing::Request { .. });
        if takes_unclaimed {
            let mut unmatched = link.unmatched.lock().await;
            while unmatched.try_recv().is_ok() {}
        }
        // The id of a request mcpcheck built is known; a raw frame's is read from its text.
        let sent_id = match &outgoing {
            Outgoing::Request { id, .. } => Some(id.clone()),
            Outgoing::Notification { .. } => None,
            Outgoing::Raw { text } => serde_json::from_str::<Value>(text)
                .ok()
                .filter(|m| m.get("method").is_some())
                .and_then(|m| m.get("id").cloned()),
        };
        if let Some(id) = sent_id.filter(|id| !id.is_null()).map(|id| id_key(&id)) {
            link.sent_ids.lock().expect("sent ids lock").insert(id);
        }
        let notes_before = link.notifications.lock().expect("notifications lock").len();
        // A wait that ends at a notification (`until_notified`) keeps the notifications up to it:
        // what came after, while this task was waiting to be scheduled, is not the step's.
        let mut notes_until: Option<usize> = None;
        let requests_before = link
            .server_requests
            .lock()
            .expect("server requests lock")
            .len();
        // Checks judge what the server sent; the frames mcpcheck sent are kept as text only as
        // they go, and parsed once the transcript is taken (`Transcript::parse_sent`).
        self.transcript.lock().expect("transcript lock").push(
            Direction::Sent,
            &text,
            None,
            None,
            None,
        );
        if options.accept_unmatched || !matches!(outgoing, Outgoing::Request { .. }) {
            // Replies that nobody claimed belong to earlier frames, not to this one.
            let mut unmatched = link.unmatched.lock().await;
            while unmatched.try_recv().is_ok() {}
        }
        let waiter = match &outgoing {
            Outgoing::Request { id, .. } => {
                let (tx, rx) = oneshot::channel();
                link.pending
                    .lock()
                    .expect("pending lock")
                    .insert(id_key(id), tx);
                Some(rx)
            }
            _ => None,
        };
        let written = link
            .pipe
            .write(
                text.strip_suffix('\n').unwrap_or(&text),
                &options.headers,
                &options.omit_headers,
            )
            .await;
        if let (Err(_), Outgoing::Request { id, .. }) = (&written, &outgoing) {
            link.pending
                .lock()
                .expect("pending lock")
                .remove(&id_key(id));
        }
        // HTTP+SSE: the status of a POST the server refused, as evidence.
        let mut http_facts = None;
        let reply = if let Err(unsent) = written {
            match unsent {
                Unsent::Closed(detail) => Reply::Closed {
                    detail: self.closed_detail(link, Some(&detail)).await,
                },
                Unsent::Rejected { status, body } => {
                    http_facts = Some(HttpFacts {
                        status,
                        ..HttpFacts::default()
                    });
                    Reply::Rejected { status, body }
                }
            }
        } else {
            match (waiter, &outgoing) {
                (Some(rx), Outgoing::Request { id, .. }) => {
                    let timeout = options.timeout.unwrap_or(self.limits.request_timeout);
                    // A server not heard from yet may still be starting: it gets up to the
                    // start-up allowance, and `timeout` from its first output.
                    let allowance = (!link.heard() && !link.allowance_spent.load(Ordering::SeqCst))
                        .then_some(self.limits.startup_timeout);
                    let awaited = async {
                        match options.until_notified.as_deref() {
                            None => (
                                self.await_response(
                                    link,
                                    rx,
                                    timeout,
                                    allowance,
                                    options.accept_unmatched,
                                )
                                .await,
                                None,
                            ),
                            Some(until) => {
                                let started = Instant::now();
                                tokio::select! {
                                    reply = self.await_response(link, rx, timeout, allowance, options.accept_unmatched) => (reply, None),
                                    at = notified_since(link, notes_before, until) => (Reply::Nothing {
                                        waited_ms: started.elapsed().as_millis() as u64,
                                    }, Some(at + 1)),
                                }
                            }
                        }
                    };
                    // A background request signals the steps after it once its notification came.
                    let ready = async {
                        let Some((method, notify)) = &options.ready else {
                            return std::future::pending().await;
                        };
                        notified_since(link, notes_before, method).await;
                        notify.notify_one();
                        std::future::pending::<()>().await
                    };
                    let (reply, cut) = tokio::select! {
                        awaited = awaited => awaited,
                        () = ready => unreachable!("the ready signal never ends"),
                    };
                    notes_until = cut;
                    link.pending
                        .lock()
                        .expect("pending lock")
                        .remove(&id_key(id));
                    if matches!(reply, Reply::Nothing { .. }) {
                        link.abandoned
                            .lock()
                            .expect("abandoned lock")
                            .insert(id_key(id));
                    }
                    if let Reply::Message { message, .. } = &reply {
                        // A response without its id answers no request: judged like id null.
                        let got = message.get("id").cloned().unwrap_or(Value::Null);
                        self.transcript
                            .lock()
                            .expect("transcript lock")
                            .id_pairs
                            .push((id.clone(), got));
                    }
                    reply
                }
                _ if options.hold.is_some() => {
                    self.await_hold(link, options.hold.unwrap_or_default())
                        .await
                }
                (_, Outgoing::Raw { .. }) => {
                    self.await_unmatched(link, options.wait.unwrap_or(self.limits.request_timeout))
                        .await
                }
                _ => {
                    self.await_unmatched(link, options.wait.unwrap_or(Duration::from_millis(300)))
                        .await
                }
            }
        };
        let notifications = link
            .notifications
            .lock()
            .expect("notifications lock")
            .get(notes_before..)
            .unwrap_or_default()
            .iter()
            .take(notes_until.map_or(usize::MAX, |end| end.saturating_sub(notes_before)))
            .cloned()
            .collect();
        let server_requests = link
            .server_requests
            .lock()
            .expect("server requests lock")
            .get(requests_before..)
            .unwrap_or_default()
            .to_vec();
        // HTTP+SSE: the step's own headers went with the POST.
        let sent_headers = match &link.pipe {
            Pipe::Sse(_) => options.headers.clone(),
            Pipe::Process(..) => Vec::new(),
        };
        Exchange {
            sent: text,
            sent_headers,
            reply,
            notifications,
            server_requests,
            http: http_facts,
            elapsed_ms: started.elapsed().as_millis() as u64,
        }
    }

    /// HTTP+SSE: a `GET` step opens the SSE endpoint once more with the step's headers (a
    /// probe, outside the conversation), reads what comes for its `hold` (half a second unless
    /// given), and closes it.
    pub(super) async fn probe_sse(
        sse: &LegacySse,
        text: String,
        options: &SendOptions,
        started: Instant,
    ) -> Exchange {
        let hold = options.hold.unwrap_or(Duration::from_millis(500));
        let (reply, http) = match sse
            .probe(&options.headers, &options.omit_headers, hold)
            .await
        {
            Ok(response) => {
                let reply = if response.status >= 400 {
                    Reply::Rejected {
                        status: response.status,
                        body: response.body.clone(),
                    }
                } else {
                    Reply::Nothing {
                        waited_ms: started.elapsed().as_millis() as u64,
                    }
                };
                let facts = HttpFacts {
                    status: response.status,
                    headers: response.headers,
                    events: response.events,
                    ..HttpFacts::default()
                };
                (reply, Some(facts))
            }
            Err(error) => (
                Reply::Closed {
                    detail: error.to_string(),
                },
                None,
            ),
        };
        Exchange {
            sent: text,
            sent_headers: options.headers.clone(),
            reply,
            notifications: Vec::new(),
            server_requests: Vec::new(),
            http,
            elapsed_ms: started.elapsed().as_millis() as u64,
        }
    }

    pub(super) async fn await_response(
        &self,
        link: &Arc<StreamLink>,
        rx: oneshot::Receiver<(Value, String)>,
        timeout: Duration,
        allowance: Option<Duration>,
        accept_unmatched: bool,
    ) -> Reply {
        enum Got {
            Message(Value, String),
            Unclaimed(Value, String),
            Dropped,
            Eof,
            Timeout(Duration),
        }
        let mut closed = link.closed.clone();
        let mut rx = rx;
        let received = link.received.load(Ordering::SeqCst);
        let asked = Instant::now();
        let got = {
            let mut unmatched = if accept_unmatched {
                Some(link.unmatched.lock().await)
            } else {
                None
            };
            tokio::select! {
                biased;
                got = &mut rx => match got {
                    Ok((message, text)) => Got::Message(message, text),
                    Err(_) => Got::Dropped,
                },
                Some((message, text)) = async { match unmatched.as_mut() { Some(u) => u.recv().await, None => std::future::pending().await } } => {
                    Got::Unclaimed(message, text)
                }
                _ = async { let _ = closed.wait_for(|c| *c).await; } => Got::Eof,
                waited = time_limit(link, timeout, allowance) => Got::Timeout(waited),
            }
        };
        match got {
            Got::Message(message, text) => Reply::Message { message, text },
            Got::Unclaimed(message, text) => {
                // An unclaimed reply (another id, or none) may be the late or duplicated answer
                // to an earlier step: the request's own answer, if it follows at once, wins.
                if let Ok(Ok((own, own_text))) =
                    tokio::time::timeout(UNCLAIMED_GRACE, &mut rx).await
                {
                    return Reply::Message {
                        message: own,
                        text: own_text,
                    };
                }
                Reply::Message { message, text }
            }
            Got::Timeout(waited) => {
                // Nothing at all since the request went out: the silence dates from it (the
                // earliest such request, until the server says anything).
                link.note_silence(received, asked, waited >= self.limits.request_timeout);
                Reply::Nothing {
                    waited_ms: waited.as_millis() as u64,
                }
            }
            Got::Dropped => Reply::Closed {
                detail: self.closed_detail(link, None).await,
            },
            Got::Eof => {
                // A response that came just before EOF may still be on its way to the waiter.
                if let Ok(Ok((message, text))) =
                    tokio::time::timeout(Duration::from_millis(50), &mut rx).await
                {
                    return Reply::Message { message, text };
                }
                Reply::Closed {
                    detail: self.closed_detail(link, None).await,
                }
            }
        }
    }

    /// Waits the whole of `hold` for the next response nobody else claims (a late answer).
    pub(super) async fn await_hold(&self, link: &Arc<StreamLink>, hold: Duration) -> Reply {
        let mut closed = link.closed.clone();
        let mut unmatched = link.unmatched.lock().await;
        tokio::select! {
            got = unmatched.recv() => match got {
                Some((message, text)) => Reply::Message { message, text },
                None => Reply::Closed { detail: self.closed_detail(link, None).await },
            },
            _ = async { let _ = closed.wait_for(|c| *c).await; } => Reply::Closed {
                detail: self.closed_detail(link, None).await,
            },
            _ = tokio::time::sleep(hold) => Reply::Nothing { waited_ms: hold.as_millis() as u64 },
        }
    }

    /// Waits for a reply to a frame that has no id of ours (a notification, a raw frame): the
    /// next response nobody else claims. A `ping` is sent behind the frame as a barrier: a
    /// server answers in order, so once the ping is answered (and a short grace has passed for
    /// servers that answer concurrently), any reply to the frame would have come.
    pub(super) async fn await_unmatched(&self, link: &Arc<StreamLink>, wait: Duration) -> Reply {
        let started = Instant::now();
        let received = link.received.load(Ordering::SeqCst);
        let mut closed = link.closed.clone();
        let barrier_id = self.next_id();
        let (tx, barrier) = oneshot::channel();
        link.pending
            .lock()
            .expect("pending lock")
            .insert(id_key(&barrier_id), tx);
        link.sent_ids
            .lock()
            .expect("sent ids lock")
            .insert(id_key(&barrier_id));
        let ping = Self::render(&self.barrier_request(barrier_id.clone()));
        let ping = ping.strip_suffix('\n').unwrap_or(&ping).to_string();
        self.transcript.lock().expect("transcript lock").push(
            Direction::Sent,
            &ping,
            serde_json::from_str(&ping).ok(),
            None,
            None,
        );
        let barrier_sent = link.pipe.write(&ping, &[], &[]).await.is_ok();
        // A server not heard from yet may still be starting: its answers (to the frame and to
        // the barrier, in order) may come only once it has, so it gets the start-up allowance.
        let allowance = (!link.heard() && !link.allowance_spent.load(Ordering::SeqCst))
            .then_some(self.limits.startup_timeout);
        let limit = time_limit(link, wait, allowance);
        tokio::pin!(limit);
        let got = {
            let mut unmatched = link.unmatched.lock().await;
            let barrier = async move {
                if barrier_sent {
                    let _ = barrier.await;
                } else {
                    std::future::pending::<()>().await;
                }
            };
            tokio::pin!(barrier);
            let mut until: Option<tokio::time::Instant> = None;
            let mut barrier_done = false;
            let got = loop {
                tokio::select! {
                    biased;
                    got = unmatched.recv() => break got,
                    _ = &mut barrier, if !barrier_done => {
                        barrier_done = true;
                        // The grace, never longer than the frame's own wait (a frame sent
                        // without waiting is not held up by its barrier's answer at all).
                        until = Some(tokio::time::Instant::now() + BARRIER_GRACE.min(wait));
                    }
                    _ = async { let _ = closed.wait_for(|c| *c).await; } => {
                        // The server may have answered just before it went away.
                        break tokio::time::timeout(Duration::from_millis(50), unmatched.recv()).await.ok().flatten();
                    }
                    _ = async { match until { Some(until) => tokio::time::sleep_until(until).await, None => { (&mut limit).await; } } } => {
                        if !barrier_done {
                            link.abandoned.lock().expect("abandoned lock").insert(id_key(&barrier_id));
                            // Neither the frame nor the barrier behind it got anything back
                            // within a whole request bound.
                            if started.elapsed() >= self.limits.request_timeout {
                                link.note_silence(received, started, true);
                            }
                        }
                        link.pending.lock().expect("pending lock").remove(&id_key(&barrier_id));
                        return Reply::Nothing { waited_ms: started.elapsed().as_millis() as u64 };
                    }
                }
            };
            if !barrier_done {
                // The barrier's answer may still come; it must not pass for a later reply.
                link.abandoned
                    .lock()
                    .expect("abandoned lock")
                    .insert(id_key(&barrier_id));
            }
            got
        };
        link.pending
            .lock()
            .expect("pending lock")
            .remove(&id_key(&barrier_id));
        match got {
            Some((message, text)) => Reply::Message { message, text },
            None => Reply::Closed {
                detail: self.closed_detail(link, None).await,
            },
        }
    }

    /// Why a stream connection was lost: the server's exit (stdio), else how its stdout or SSE
    /// stream ended, or (`unwritten`) what a write that failed said.
    pub(super) async fn closed_detail(&self, link: &StreamLink, unwritten: Option<&str>) -> String {
        match &link.pipe {
            Pipe::Process(process, _) => {
                for _ in 0..20 {
                    if let Some(status) = process.try_status().await {
                        return format!("the server exited ({status})");
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                format!(
                    "the server stopped talking: {}",
                    unwritten.unwrap_or("stdout closed")
                )
            }
            Pipe::Sse(sse) => match (unwritten, sse.ended()) {
                (Some(what), _) => what.to_string(),
                (None, ended) => ended.unwrap_or(StreamEnd::Ended).to_string(),
            },
        }
    }
}

/// stdio and HTTP+SSE: returns once a notification of `method` has arrived on the link, counting
/// from its `from`-th notification, with the position of the first such one.
pub(super) async fn notified_since(link: &StreamLink, from: usize, method: &str) -> usize {
    let arrived = || {
        link.notifications
            .lock()
            .expect("notifications lock")
            .get(from..)
            .unwrap_or_default()
            .iter()
            .position(|n| n.get("method").and_then(Value::as_str) == Some(method))
            .map(|at| from + at)
    };
    loop {
        if let Some(at) = arrived() {
            return at;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Ends when a reply's time is up, and says after how long by the rule: after `timeout`, or, for
/// a server that may still be starting (`allowance`), `timeout` after its first output and at the
/// latest when the allowance ends. A server that talks at once (even junk, even a flood) gets no
/// more than `timeout`.
pub(super) async fn time_limit(
    link: &StreamLink,
    timeout: Duration,
    allowance: Option<Duration>,
) -> Duration {
    let Some(allowance) = allowance else {
        tokio::time::sleep(timeout).await;
        return timeout;
    };
    const POLL: Duration = Duration::from_millis(10);
    let heard_then_timeout = async {
        let mut silent = Duration::ZERO;
        while !link.heard() {
            tokio::time::sleep(POLL).await;
            silent += POLL;
        }
        tokio::time::sleep(timeout).await;
        silent + timeout
    };
    let cap = allowance.max(timeout);
    tokio::select! {
        waited = heard_then_timeout => waited.min(cap),
        () = tokio::time::sleep(cap) => {
            if !link.heard() {
                link.allowance_spent.store(true, Ordering::SeqCst);
            }
            cap
        }
    }
}
