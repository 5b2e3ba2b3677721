//! The transcript of one connection: every frame sent and received, with framing problems,
//! bounded so that a flooding server cannot exhaust memory.

use std::fmt;
use std::time::Instant;

use serde_json::Value;

/// How many frames a transcript keeps; later ones are counted, not stored.
const MAX_FRAMES: usize = 2000;

/// How many bytes of one frame are kept as text.
pub const MAX_FRAME_TEXT: usize = 16 << 10;

/// Which way a frame went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From mcpcheck to the server.
    Sent,
    /// From the server to mcpcheck.
    Received,
}

/// What is wrong with how a frame came: what checks match on; its [`fmt::Display`] is what
/// reports say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameIssue {
    /// A stdio line longer than the frame limit, discarded.
    Oversize {
        /// Its length.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// A stdio line that is not UTF-8.
    NotUtf8,
    /// A stdio message whose line ends with `\r\n`.
    CrLf,
    /// A stdio message spread over several lines.
    MultiLine {
        /// How many.
        lines: usize,
    },
    /// A blank line on stdout.
    Blank,
    /// A line on stdout that is not JSON.
    NotJson,
    /// Lines on stdout that looked like the start of a message and never made one.
    NotJsonRpc,
    /// A JSON value on stdout that is neither an object nor an array.
    JsonNotMessage,
    /// HTTP+SSE: a message in a POST's body rather than on the stream.
    InPostBody {
        /// The POST's status.
        status: u16,
    },
    /// HTTP+SSE: a message in an SSE event not named `message`.
    EventName {
        /// The event's name.
        name: String,
    },
    /// HTTP+SSE: an event whose data is not JSON.
    EventNotJson {
        /// The event's name.
        name: String,
        /// The parser's complaint.
        error: String,
    },
    /// HTTP+SSE: an event past the frame limit; the stream was closed.
    EventOversize {
        /// The limit.
        max: usize,
    },
    /// Streamable HTTP: a problem with a response body, as the transport describes it.
    Body(String),
}

impl fmt::Display for FrameIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameIssue::Oversize { bytes, max } => write!(
                f,
                "a frame of {bytes} bytes exceeds the limit of {max} bytes; it was discarded"
            ),
            FrameIssue::NotUtf8 => f.write_str("a line on stdout is not valid UTF-8"),
            FrameIssue::CrLf => f.write_str("the line ends with \\r\\n rather than \\n"),
            FrameIssue::MultiLine { lines } => write!(
                f,
                "one message spans {lines} lines; each message must be a single line"
            ),
            FrameIssue::Blank => {
                f.write_str("a blank line on stdout; stdout must carry only MCP messages")
            }
            FrameIssue::NotJson => {
                f.write_str("a line on stdout that is not JSON; stdout must carry only MCP messages")
            }
            FrameIssue::NotJsonRpc => f.write_str("a line on stdout that is not a JSON-RPC message"),
            FrameIssue::JsonNotMessage => {
                f.write_str("a JSON value on stdout that is not a JSON-RPC message")
            }
            FrameIssue::InPostBody { status } => write!(
                f,
                "came in the body of the POST (HTTP {status}), not as an SSE `message` event on the stream"
            ),
            FrameIssue::EventName { name } => {
                write!(f, "came in an SSE event named `{name}`, not `message`")
            }
            FrameIssue::EventNotJson { name, error } => {
                write!(f, "an SSE `{name}` event whose data is not JSON: {error}")
            }
            FrameIssue::EventOversize { max } => write!(
                f,
                "an SSE event exceeds the limit of {max} bytes; the stream was closed"
            ),
            FrameIssue::Body(text) => f.write_str(text),
        }
    }
}

/// One frame on the wire.
#[derive(Clone, Debug)]
pub struct WireFrame {
    /// Which way it went.
    pub direction: Direction,
    /// Milliseconds since the connection opened.
    pub at_ms: u64,
    /// The text, cut at [`MAX_FRAME_TEXT`].
    pub text: String,
    /// The JSON-RPC message, when the frame held exactly one parsable message (a frame mcpcheck
    /// sent holds the one JSON value it is, a batch too, once [`Transcript::parse_sent`] ran).
    pub message: Option<Value>,
    /// A framing problem, when there was one.
    pub issue: Option<FrameIssue>,
    /// For HTTP: the index of the POST (in [`Transcript::posts`]) this frame belongs to.
    pub post: Option<usize>,
}

/// What an HTTP exchange carried in the conversation, written as the evidence and the JSON
/// transcript name it (`request`, `session end`, `get`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Carried {
    /// A POST of a JSON-RPC request.
    Request,
    /// A POST of a JSON-RPC notification.
    Notification,
    /// A POST of a JSON-RPC response (the HTTP+SSE transport's answers to the server).
    Response,
    /// A POST of a frame that is no JSON-RPC message (sent so on purpose).
    Raw,
    /// The GET of the HTTP+SSE transport's stream, which names the message endpoint.
    Stream,
    /// A GET resuming a stream the server ended early (`Last-Event-ID`).
    Resumption,
    /// The DELETE that ends a session when the run is over.
    SessionEnd,
    /// A request of its own on another connection, outside the conversation (HTTP+SSE: the
    /// stream's URL opened again with a foreign Origin, say).
    Probe,
    /// A request without a message, by its method in lower case (`get`, `delete`): a stream
    /// opened to listen, a session deleted, a method the endpoint must refuse.
    Method(String),
}

/// A record that does not say what it carried is counted as none of the kinds the checks pick
/// (as an empty method).
impl Default for Carried {
    fn default() -> Self {
        Carried::Method(String::new())
    }
}

impl std::fmt::Display for Carried {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Carried::Request => "request",
            Carried::Notification => "notification",
            Carried::Response => "response",
            Carried::Raw => "raw",
            Carried::Stream => "stream",
            Carried::Resumption => "resumption",
            Carried::SessionEnd => "session end",
            Carried::Probe => "probe",
            Carried::Method(method) => method,
        })
    }
}

impl serde::Serialize for Carried {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// One HTTP exchange at the HTTP level.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct HttpRecord {
    /// The HTTP method.
    pub method: String,
    /// The URL requested, where a check needs it (the HTTP+SSE stream's, to judge the origin of
    /// the endpoint it names).
    pub url: Option<String>,
    /// The request headers as sent (values redacted later).
    pub request_headers: Vec<(String, String)>,
    /// What the exchange carried in the conversation.
    pub carried: Carried,
    /// The status code, if a response came.
    pub status: Option<u16>,
    /// The response headers.
    pub response_headers: Vec<(String, String)>,
    /// The response body's length in bytes (for SSE: what was read).
    pub body_bytes: usize,
    /// For an SSE response: its first event.
    pub first_event: Option<super::SseEvent>,
    /// For an SSE response: the id of every event that set one, in order.
    pub event_ids: Vec<String>,
    /// How many stretches of the response body (a JSON body, or SSE lines) were not UTF-8.
    pub utf8_errors: usize,
    /// For a POST answered with an SSE stream that carried its response: whether the stream
    /// ended soon after (within a second).
    pub ended_after_response: Option<bool>,
    /// For a request's POST answered with an SSE stream: whether the server ended the stream
    /// before the response (mcpcheck then resumes it with GET and Last-Event-ID).
    pub closed_early: Option<bool>,
    /// Whether the stream carried an SSE `retry` field.
    pub retry_sent: bool,
    /// A transport failure, if the exchange did not complete.
    pub error: Option<String>,
}

impl HttpRecord {
    /// The value of a response header (case-insensitive).
    pub fn response_header(&self, name: &str) -> Option<&str> {
        self.response_headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Everything that crossed one connection.
#[derive(Debug)]
pub struct Transcript {
    started: Instant,
    /// The frames, in order.
    pub frames: Vec<WireFrame>,
    /// Frames that arrived after the cap and were not stored.
    pub dropped: usize,
    /// For HTTP: one record per HTTP request.
    pub posts: Vec<HttpRecord>,
    /// Pairs of (id sent, id received) for every request mcpcheck built and got a response to.
    pub id_pairs: Vec<(Value, Value)>,
    /// Pairs of (id sent, id in the body) for requests refused at the HTTP level (status 400 or
    /// more) with a JSON-RPC error body that names an id, or that names none (null) though its
    /// error is about the body it read: what id such a body carries neither MCP nor JSON-RPC
    /// states, so these are judged apart.
    pub refusal_id_pairs: Vec<(Value, Value)>,
    /// The protocol version the connection spoke, once known (set when the run collects it).
    pub version: Option<String>,
    /// The ids (as [`super::id_key`]) of requests mcpcheck sent off the protocol on purpose (a
    /// contradictory header, a `_meta` entry left out): their answers are judged by the check
    /// that made the probe, not by the checks over the whole run.
    pub probes: std::collections::HashSet<String>,
    tap: Option<super::Tap>,
    /// The run's evidence budget, shared with every other transcript of the run.
    budget: Option<super::Budget>,
}

impl Default for Transcript {
    fn default() -> Self {
        Transcript {
            started: Instant::now(),
            frames: Vec::new(),
            dropped: 0,
            posts: Vec::new(),
            id_pairs: Vec::new(),
            refusal_id_pairs: Vec::new(),
            version: None,
            probes: std::collections::HashSet::new(),
            tap: None,
            budget: None,
        }
    }
}

impl Transcript {
    /// A transcript that shows every frame to `tap` as it is recorded and keeps frames while
    /// the run's evidence `budget` lasts.
    pub fn new(tap: Option<super::Tap>, budget: super::Budget) -> Transcript {
        Transcript {
            tap,
            budget: Some(budget),
            ..Transcript::default()
        }
    }

    /// When the connection opened: a frame's `at_ms` counts from it, so that frames of different
    /// connections can be put in one order.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Records a frame.
    pub fn push(
        &mut self,
        direction: Direction,
        text: &str,
        message: Option<Value>,
        issue: Option<FrameIssue>,
        post: Option<usize>,
    ) {
        if let Some(tap) = &self.tap {
            (tap.0)(direction, &cut(text, MAX_FRAME_TEXT));
        }
        // What a frame costs: its text and its parsed message.
        let kept = text.len().min(MAX_FRAME_TEXT);
        let cost = 128 + kept + message.as_ref().map_or(0, value_bytes);
        if self.frames.len() >= MAX_FRAMES || self.budget.as_ref().is_some_and(|b| !b.take(cost)) {
            self.dropped += 1;
            return;
        }
        self.frames.push(WireFrame {
            direction,
            at_ms: self.started.elapsed().as_millis() as u64,
            text: cut(text, MAX_FRAME_TEXT),
            message,
            issue,
            post,
        });
    }

    /// Parses the frames mcpcheck sent as text only (the requests and notifications of a stdio
    /// connection: parsing each as it goes out would cost the exchange rate), which the checks
    /// over the whole run read as JSON, many times over, once the connection is done. Each parsed
    /// message is charged to the evidence budget as a received one is; a frame that is not one
    /// JSON value (a malformed frame sent on purpose), or one the budget has no room for, stays
    /// without a message.
    pub fn parse_sent(&mut self) {
        for frame in self
            .frames
            .iter_mut()
            .filter(|f| f.direction == Direction::Sent && f.message.is_none())
        {
            let Ok(message) = serde_json::from_str::<Value>(&frame.text) else {
                continue;
            };
            if self
                .budget
                .as_ref()
                .is_none_or(|b| b.take(value_bytes(&message)))
            {
                frame.message = Some(message);
            }
        }
    }

    /// Records an HTTP exchange and returns its index.
    pub fn push_post(&mut self, record: HttpRecord) -> usize {
        self.posts.push(record);
        self.posts.len() - 1
    }
}

/// About how many bytes a parsed JSON value holds: its strings and keys, and a few dozen bytes
/// for every node.
pub fn value_bytes(value: &Value) -> usize {
    48 + match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(value_bytes).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| 32 + k.len() + value_bytes(v)).sum(),
        _ => 0,
    }
}

/// Cuts text to at most `max` bytes on a character boundary, marking the cut.
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [{} more bytes]", &text[..end], text.len() - end)
}

/// Whether a text is one [`cut`] shortened (it ends in `… [N more bytes]`).
pub fn was_cut(text: &str) -> bool {
    text.strip_suffix(" more bytes]")
        .and_then(|rest| rest.rsplit_once("… ["))
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an exchange carried reads in the evidence and the JSON transcript as it always did.
    #[test]
    fn what_an_exchange_carried_is_written_as_before() {
        let written = |carried: Carried| serde_json::to_value(carried).unwrap();
        assert_eq!(written(Carried::SessionEnd), "session end");
        assert_eq!(written(Carried::Request), "request");
        assert_eq!(written(Carried::Method("get".into())), "get");
        assert_eq!(Carried::Stream.to_string(), "stream");
    }
}
