//! What a scenario's steps leave for the checks to judge: one record per step (the exchange, or
//! why nothing was sent), and the readings of an exchange that queries and rules share.

use serde_json::Value;

use crate::record::{Exchange, Reply};

/// What one step did.
#[derive(Clone, Debug)]
pub struct StepRecord {
    /// The step's name.
    pub name: String,
    /// Whether it sent a request (so that silence is a timeout, not an observation).
    pub is_request: bool,
    /// The exchange, or why the step could not run.
    pub outcome: Result<Exchange, NotSent>,
    /// Why silence or a closed connection in this exchange says nothing about the step: the
    /// server had stopped answering (the connection had closed before the scenario began, or
    /// nothing sent after it was answered either). A check resting on such a reply is an error
    /// of the run, never a verdict.
    pub stopped: Option<Stopped>,
    /// The item of a `for_each` step the exchange was for (`{{each/…}}` in its rules).
    pub item: Option<Value>,
}

/// Why a step's silence is not the server's answer to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The connection had closed before the scenario began (the words say how).
    ClosedBefore(String),
    /// Nothing came back to the step, and nothing to what was sent after it either (the words
    /// say what showed it).
    Silent(String),
    /// The step was not sent: the server had stopped answering on its connection (the words say
    /// since when).
    NotSent(String),
}

impl Stopped {
    /// The reason of the error a check resting on the step's reply is.
    pub fn reason(&self) -> crate::record::Reason {
        use crate::record::Reason;
        match self {
            Stopped::ClosedBefore(gone) => Reason::Closed {
                text: format!("the connection had closed before the scenario began: {gone}"),
            },
            Stopped::Silent(why) => Reason::Stopped {
                sent: true,
                text: format!(
                    "the server stopped answering: nothing came back to this step, and {why}"
                ),
            },
            Stopped::NotSent(why) => Reason::Stopped {
                sent: false,
                text: format!("not sent: {why}"),
            },
        }
    }
}

/// Why a step sent nothing, in terms of what the server did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotSent {
    /// The reason ("the server lists no prompts, so none could be got").
    pub why: String,
    /// Whether it means the server has nothing of the kind (one page, no prompts), so that the
    /// step's checks do not apply, rather than could not be tested.
    pub not_applicable: bool,
    /// Whether it was not sent because the request that would have given a value it needs got
    /// no result (an error, or nothing): that request's checks judge why, and this step's
    /// checks could not be made as a consequence.
    pub unanswered: bool,
}

impl From<String> for NotSent {
    fn from(why: String) -> NotSent {
        NotSent {
            why,
            not_applicable: false,
            unanswered: false,
        }
    }
}

impl std::fmt::Display for NotSent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// The JSON-RPC message that answered, if one did.
pub fn reply_message(exchange: &Exchange) -> Option<&Value> {
    match &exchange.reply {
        Reply::Message { message, .. } => Some(message),
        _ => None,
    }
}

/// Whether the progress notifications received during an exchange are well-formed: at least
/// one, each for the token the request carried, with strictly increasing `progress`.
pub fn progress_ok(exchange: &Exchange) -> bool {
    let sent: Option<Value> = serde_json::from_str(&exchange.sent).ok();
    let Some(token) = sent
        .as_ref()
        .and_then(|s| s.pointer("/params/_meta/progressToken"))
    else {
        return false;
    };
    let progress: Vec<&Value> = exchange
        .notifications
        .iter()
        .filter(|n| n.get("method").and_then(Value::as_str) == Some("notifications/progress"))
        .collect();
    if progress.is_empty() {
        return false;
    }
    let mut last = f64::NEG_INFINITY;
    for note in progress {
        if note.pointer("/params/progressToken") != Some(token) {
            return false;
        }
        let Some(value) = note.pointer("/params/progress").and_then(Value::as_f64) else {
            return false;
        };
        if value <= last {
            return false;
        }
        last = value;
    }
    true
}
