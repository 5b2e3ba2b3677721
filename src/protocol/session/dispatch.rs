//! The reading side of a stream-shaped link: every message the server sends is recorded, and
//! routed to the request waiting for it, to the notification list, or to [`super::answer`].

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::{mpsc, watch};

use super::{answer_server_request, Pipe, StreamLink, MAX_NOTIFICATIONS, VALUE_OVERHEAD};
use crate::record::{id_key, Direction, Transcript};
use crate::transport::legacy::Tagged;
use crate::transport::stdio::{Inbound, StdoutReader};

/// Where a stream-shaped link's incoming items come from.
pub(super) enum Source {
    /// A stdio server's stdout.
    Stdout(StdoutReader),
    /// The HTTP+SSE transport's stream (and POST bodies), tagged with their HTTP exchange.
    Sse(mpsc::UnboundedReceiver<Tagged>),
}

/// Routes what the server sends on a stream-shaped link: responses to their waiters, the server's
/// requests to [`answer_server_request`], notifications to the session's list, everything to the
/// transcript.
pub(super) async fn dispatch(
    link: std::sync::Weak<StreamLink>,
    mut source: Source,
    unmatched: mpsc::Sender<(Value, String)>,
    closed: watch::Sender<bool>,
    transcript: Arc<Mutex<Transcript>>,
) {
    'read: while let Some((events, post)) = source.next().await {
        // Buffered lines come back without touching the pipe; a flooding server must not keep
        // this task from yielding to the rest of the run.
        tokio::task::consume_budget().await;
        let Some(link) = link.upgrade() else { return };
        for event in events {
            if !matches!(event, Inbound::Closed) {
                link.received.fetch_add(1, Ordering::SeqCst);
            }
            match event {
                Inbound::Closed => break 'read,
                Inbound::Noise { text, issue } => {
                    transcript.lock().expect("transcript lock").push(
                        Direction::Received,
                        &text,
                        None,
                        Some(issue),
                        post,
                    );
                }
                Inbound::Message { value, text, issue } => {
                    let single = value.is_object().then(|| value.clone());
                    transcript.lock().expect("transcript lock").push(
                        Direction::Received,
                        &text,
                        single,
                        issue,
                        post,
                    );
                    let messages = match value {
                        Value::Array(items) => items,
                        other => vec![other],
                    };
                    for message in messages {
                        route(&link, message, &text, &unmatched, &transcript).await;
                    }
                }
            }
        }
    }
    let _ = closed.send(true);
    if let Some(link) = link.upgrade() {
        link.pending.lock().expect("pending lock").clear();
    }
}

pub(super) async fn route(
    link: &Arc<StreamLink>,
    message: Value,
    text: &str,
    unmatched: &mpsc::Sender<(Value, String)>,
    transcript: &Arc<Mutex<Transcript>>,
) {
    let has_method = message.get("method").is_some();
    let has_id = message.get("id").is_some();
    if has_method && has_id {
        let declared = link.declared.lock().expect("declared lock").clone();
        let answer = answer_server_request(&message, &declared).to_string();
        {
            let mut requests = link.server_requests.lock().expect("server requests lock");
            if requests.len() < MAX_NOTIFICATIONS && link.keep(text.len() + VALUE_OVERHEAD) {
                requests.push(message.clone());
            }
        }
        let parsed = serde_json::from_str::<Value>(&answer).ok();
        transcript.lock().expect("transcript lock").push(
            Direction::Sent,
            &answer,
            parsed,
            None,
            None,
        );
        match &link.pipe {
            Pipe::Process(..) => {
                let _ = link.pipe.write(&answer, &[], &[]).await;
            }
            // A POST may take its time; the stream must be read on meanwhile.
            Pipe::Sse(_) => {
                let link = link.clone();
                tokio::spawn(async move {
                    let _ = link.pipe.write(&answer, &[], &[]).await;
                });
            }
        }
    } else if has_method {
        let mut notes = link.notifications.lock().expect("notifications lock");
        if notes.len() < MAX_NOTIFICATIONS && link.keep(text.len() + VALUE_OVERHEAD) {
            notes.push(message);
        }
    } else {
        let waiter = message.get("id").and_then(|id| {
            link.pending
                .lock()
                .expect("pending lock")
                .remove(&id_key(id))
        });
        match waiter {
            Some(tx) => {
                if let Some(id) = message.get("id").filter(|id| !id.is_null()) {
                    link.delivered
                        .lock()
                        .expect("delivered lock")
                        .insert(id_key(id));
                }
                let _ = tx.send((message, text.to_string()));
            }
            None => {
                let late = message.get("id").is_some_and(|id| {
                    link.abandoned
                        .lock()
                        .expect("abandoned lock")
                        .remove(&id_key(id))
                });
                let duplicate = message.get("id").is_some_and(|id| {
                    !id.is_null()
                        && link
                            .delivered
                            .lock()
                            .expect("delivered lock")
                            .contains(&id_key(id))
                });
                // Late, taken by whichever step accepts an unclaimed reply, or a duplicate: from
                // now on another response with this id is a duplicate.
                let mut ours = false;
                if let Some(id) = message.get("id").filter(|id| !id.is_null()).map(id_key) {
                    if link.sent_ids.lock().expect("sent ids lock").contains(&id) {
                        ours = true;
                        link.delivered.lock().expect("delivered lock").insert(id);
                    }
                }
                // No id, id null or an id mcpcheck never sent, while requests of several steps
                // may be in flight: the reply cannot be tied to one, and the link turns strict.
                if !late && !duplicate && !ours {
                    link.strict.store(true, Ordering::SeqCst);
                }
                if !late && !duplicate {
                    let _ = unmatched.try_send((message, text.to_string()));
                }
            }
        }
    }
}
