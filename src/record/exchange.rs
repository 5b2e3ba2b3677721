//! One exchange: a frame mcpcheck sent and what came back, as the session recorded it, and how
//! a stdio server ended. Written by the session; read by checks and reports.

use serde_json::{json, Value};

use super::challenge::challenges;
use super::transcript::cut;
use super::SseEvent;

/// The client capabilities mcpcheck declares: roots (answered with an empty list), nothing else.
pub fn client_capabilities() -> Value {
    json!({"roots": {"listChanged": false}})
}

/// How mcpcheck introduces itself.
pub fn client_info() -> Value {
    json!({"name": "mcpcheck", "version": env!("CARGO_PKG_VERSION")})
}

/// What came back for one frame.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A JSON-RPC response.
    Message {
        /// The message.
        message: Value,
        /// The text it came in.
        text: String,
    },
    /// Nothing within the wait (for a request: a timeout).
    Nothing {
        /// How long mcpcheck waited.
        waited_ms: u64,
    },
    /// HTTP: an error status with no JSON-RPC message in the body.
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The body, as text.
        body: String,
    },
    /// The server is gone: the process exited, or the connection was refused or reset.
    Closed {
        /// What is known of why.
        detail: String,
    },
}

/// Whether an HTTP answer is the authorization layer's refusal: 401 or 403 with a
/// `WWW-Authenticate` challenge (RFC 9110 §11.6.1; MCP's is of the Bearer scheme, RFC 6750 §3, but
/// any scheme says the same). Its body, whatever it holds, is no JSON-RPC answer: the request never
/// reached MCP. Returns the refusal in words: the status and the challenge's `error` and `scope`.
/// A 403 without a challenge (a refused Origin, say) is not one.
pub fn authorization_refusal(status: u16, headers: &[(String, String)]) -> Option<String> {
    if status != 401 && status != 403 {
        return None;
    }
    let challenges = challenges(headers);
    let first = challenges.first()?;
    let challenge = challenges.iter().find(|c| c.is_bearer()).unwrap_or(first);
    let mut words = format!("HTTP {status}");
    if let Some(error) = challenge.param("error") {
        words.push_str(&format!(" {error}"));
    }
    if let Some(scope) = challenge.param("scope") {
        words.push_str(&format!(" (scope \"{scope}\")"));
    }
    Some(words)
}

/// HTTP facts of one exchange.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct HttpFacts {
    /// The status code.
    pub status: u16,
    /// The response headers.
    pub headers: Vec<(String, String)>,
    /// The SSE events, when the body was a stream.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SseEvent>,
    /// Whether the server had issued a session id when this request was sent.
    pub session: bool,
    /// Whether a request's SSE stream ended, by the server, before the response came.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ended_early: bool,
    /// What an SSE stream that carried no answer brought, in words ("an SSE stream of 40112
    /// events, 4531200 bytes"), when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unanswered_stream: Option<String>,
}

/// One frame sent and what came back: the evidence behind a verdict.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The text sent.
    pub sent: String,
    /// The HTTP request headers sent.
    pub sent_headers: Vec<(String, String)>,
    /// What came back.
    pub reply: Reply,
    /// Notifications received while waiting.
    pub notifications: Vec<Value>,
    /// Requests the server sent while waiting (mcpcheck answered them).
    pub server_requests: Vec<Value>,
    /// HTTP facts, for HTTP.
    pub http: Option<HttpFacts>,
    /// How long the exchange took.
    pub elapsed_ms: u64,
}

impl Exchange {
    /// What an SSE stream that carried no answer brought, in words, if one did.
    pub fn unanswered_stream(&self) -> Option<&str> {
        self.http.as_ref()?.unanswered_stream.as_deref()
    }
}

/// What ended a server process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StoppedBy {
    /// It had exited before mcpcheck closed its stdin.
    ExitedBeforeShutdown,
    /// It exited once its stdin closed.
    StdinEof,
    /// It exited on SIGTERM, sent after the grace for stdin's end.
    Sigterm,
    /// It was killed.
    Sigkill,
}

impl std::fmt::Display for StoppedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StoppedBy::ExitedBeforeShutdown => "exited-before-shutdown",
            StoppedBy::StdinEof => "stdin-eof",
            StoppedBy::Sigterm => "sigterm",
            StoppedBy::Sigkill => "sigkill",
        })
    }
}

/// How a server process ended.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExitReport {
    /// How it was stopped.
    pub stopped_by: StoppedBy,
    /// Milliseconds from closing stdin to the process's exit.
    pub exit_ms: Option<u64>,
    /// The exit status as text (`exit 0`, `signal 15`).
    pub status: String,
}

/// How a second server process ended whose stdin mcpcheck closed before sending anything (not
/// even `initialize`), with what it wrote on stderr.
#[derive(Clone, Debug)]
pub struct EarlyExit {
    /// How it ended.
    pub exit: ExitReport,
    /// The end of its stderr.
    pub stderr_tail: Option<String>,
}

/// The key a response is matched on: ids compare by value, so a response whose id has the wrong
/// JSON type is still matched (and then flagged by the id check) rather than lost.
pub fn id_key(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `HTTP 302 redirect to LOCATION, not followed`.
pub fn redirect(status: u16, location: Option<&str>) -> String {
    match location {
        Some(location) => format!(
            "HTTP {status} redirect to {}, not followed",
            cut(location, 200)
        ),
        None => format!("HTTP {status} redirect (with no Location), not followed"),
    }
}

/// What came back, in a few words.
pub fn describe(exchange: &Exchange, is_request: bool) -> String {
    let http = exchange
        .http
        .as_ref()
        .map(|h| format!("HTTP {}, ", h.status))
        .unwrap_or_default();
    match &exchange.reply {
        Reply::Message { message, .. } if message.get("error").is_some_and(|e| !e.is_null()) => {
            let error = &message["error"];
            let mut text = format!(
                "{http}error {} {}",
                error
                    .get("code")
                    .map(Value::to_string)
                    .unwrap_or_else(|| "(no code)".into()),
                error
                    .get("message")
                    .map(Value::to_string)
                    .unwrap_or_else(|| "(no message)".into())
            );
            if let Some(data) = error.get("data") {
                text.push_str(&format!(" data={}", cut(&data.to_string(), 160)));
            }
            text
        }
        Reply::Message { message, .. } => match message.get("result") {
            Some(result) => format!("{http}result {}", cut(&result.to_string(), 200)),
            None => format!(
                "{http}response without result or error: {}",
                cut(&message.to_string(), 200)
            ),
        },
        Reply::Nothing { waited_ms } if is_request && *waited_ms > 0 => {
            let stream = exchange
                .unanswered_stream()
                .map(|s| format!("{s}, "))
                .unwrap_or_default();
            format!("{http}{stream}no response within {waited_ms} ms")
        }
        Reply::Nothing { .. } => format!("{http}no response"),
        // Over HTTP+SSE a refused POST or GET may explain itself with a JSON-RPC error (an
        // answer to the request never comes in an HTTP body there).
        // A redirect is an answer, not a way elsewhere: mcpcheck never follows one.
        Reply::Rejected { status, .. } if (300..400).contains(status) => redirect(
            *status,
            exchange.http.as_ref().and_then(|h| {
                h.headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("location"))
                    .map(|(_, v)| v.as_str())
            }),
        ),
        Reply::Rejected { status, body }
            if serde_json::from_str::<Value>(body).is_ok_and(|v| v.get("jsonrpc").is_some()) =>
        {
            format!("HTTP {status}, refused: {}", cut(body.trim(), 160))
        }
        Reply::Rejected { status, body } => format!(
            "HTTP {status} with no JSON-RPC message{}",
            if body.trim().is_empty() {
                String::new()
            } else {
                format!(": {}", cut(body.trim(), 160))
            }
        ),
        Reply::Closed { detail } => detail.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_authorization_refusal_is_told_by_its_bearer_challenge() {
        let headers = |value: &str| vec![("WWW-Authenticate".to_string(), value.to_string())];
        let step_up = headers(
            r#"bearer error="insufficient_scope", error_description="needs a, b", scope="files:read \"x\"", resource_metadata="https://a/.well-known/oauth-protected-resource""#,
        );
        assert_eq!(
            authorization_refusal(403, &step_up).as_deref(),
            Some(r#"HTTP 403 insufficient_scope (scope "files:read "x"")"#)
        );
        assert_eq!(
            authorization_refusal(401, &headers("Bearer realm=example")).as_deref(),
            Some("HTTP 401")
        );
        // Any scheme is the authorization layer's; another status, or no challenge, is not.
        assert_eq!(
            authorization_refusal(401, &headers(r#"Basic realm="x""#)).as_deref(),
            Some("HTTP 401")
        );
        assert_eq!(authorization_refusal(400, &step_up), None);
        assert_eq!(authorization_refusal(403, &[]), None);
    }
}
