//! Evidence: what a verdict shows of the wire (an exchange, a frame, a remark), cut to a size a
//! report can carry.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::exchange::{Exchange, Reply};
use super::transcript::cut;

/// How much of one message is kept as evidence.
pub const EVIDENCE_TEXT: usize = 4096;

/// How much of one string inside a notification is kept as evidence.
const EVIDENCE_STRING: usize = 512;

/// A JSON value with every string longer than `max` bytes cut (marked with what was left out):
/// the shape of a message kept as evidence without its bulk.
pub fn compact(value: &Value, max: usize) -> Value {
    match value {
        Value::String(s) if s.len() > max => Value::String(cut(s, max)),
        Value::Array(items) => Value::Array(items.iter().map(|v| compact(v, max)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), compact(v, max)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What answered a request or notification, as a kind (what `received` and `remark` say in
/// words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Replied {
    /// A JSON-RPC message.
    Message,
    /// An HTTP status of 300 or more with no JSON-RPC message in the body (a refusal, a redirect).
    Rejected,
    /// Nothing within the wait.
    Nothing,
    /// The connection closed (or its stream ended) first.
    Closed,
}

/// One piece of evidence: an exchange, a frame, or a remark.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// The step or thing it is about.
    pub label: String,
    /// What mcpcheck sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent: Option<String>,
    /// HTTP request headers sent (`Name: value`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub sent_headers: Vec<String>,
    /// What came back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received: Option<String>,
    /// The HTTP status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// HTTP response headers (`Name: value`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub response_headers: Vec<String>,
    /// Notifications received meanwhile.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub notifications: Vec<Value>,
    /// How long it took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    /// What answered, for an exchange.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reply: Option<Replied>,
    /// A remark.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
    /// Set on a step the check does not judge but turns on (a bare connection's own
    /// `initialize` before the judged step): shown and replayed, never read as the observation.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub context: bool,
}

impl Evidence {
    /// Evidence of a step's exchange.
    pub fn exchange(label: &str, exchange: &Exchange) -> Evidence {
        let received = match &exchange.reply {
            Reply::Message { text, .. } => Some(cut(text, EVIDENCE_TEXT)),
            Reply::Rejected { body, .. } if !body.is_empty() => Some(cut(body, EVIDENCE_TEXT)),
            _ => None,
        };
        let remark = match &exchange.reply {
            Reply::Nothing { waited_ms } => {
                // A request's timeout is a setting; the wait after a notification depends on
                // how fast the server answered the barrier ping behind it, so it is not shown.
                let request = serde_json::from_str::<Value>(&exchange.sent)
                    .is_ok_and(|m| m.get("id").is_some() && m.get("method").is_some());
                Some(if request && *waited_ms > 0 {
                    format!("no reply within {waited_ms} ms")
                } else {
                    "no reply".to_string()
                })
            }
            Reply::Closed { detail } => Some(detail.clone()),
            _ => None,
        };
        let headers = |h: &[(String, String)]| h.iter().map(|(n, v)| format!("{n}: {v}")).collect();
        Evidence {
            label: label.into(),
            sent: Some(cut(&exchange.sent, EVIDENCE_TEXT)),
            sent_headers: headers(&exchange.sent_headers),
            received,
            http_status: exchange.http.as_ref().map(|h| h.status),
            response_headers: exchange
                .http
                .as_ref()
                .map(|h| headers(&h.headers))
                .unwrap_or_default(),
            notifications: exchange
                .notifications
                .iter()
                .take(20)
                .map(|n| compact(n, EVIDENCE_STRING))
                .collect(),
            elapsed_ms: Some(exchange.elapsed_ms),
            reply: Some(match &exchange.reply {
                Reply::Message { .. } => Replied::Message,
                Reply::Rejected { .. } => Replied::Rejected,
                Reply::Nothing { .. } => Replied::Nothing,
                Reply::Closed { .. } => Replied::Closed,
            }),
            remark,
            context: false,
        }
    }

    /// The exchange as lines of text: `→ step: sent`, `← HTTP 200 received`, `· step: remark`.
    pub fn wire(&self) -> String {
        let mut lines = Vec::new();
        if let Some(sent) = &self.sent {
            lines.push(format!("→ {}: {sent}", self.label));
        }
        if let Some(received) = &self.received {
            let status = self
                .http_status
                .map(|s| format!("HTTP {s} "))
                .unwrap_or_default();
            lines.push(format!("← {status}{received}"));
        }
        if let Some(remark) = &self.remark {
            lines.push(format!("· {}: {remark}", self.label));
        }
        lines.join("\n")
    }

    /// Evidence of one received frame and what is wrong with it.
    pub fn frame(text: &str, issue: &str) -> Evidence {
        Evidence {
            label: "frame".into(),
            received: Some(cut(text, EVIDENCE_TEXT)),
            remark: Some(issue.into()),
            ..Evidence::default()
        }
    }

    /// A remark.
    pub fn remark(label: &str, text: String) -> Evidence {
        Evidence {
            label: label.into(),
            remark: Some(text),
            ..Evidence::default()
        }
    }
}
