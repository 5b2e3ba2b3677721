//! The HTTP+SSE transport of protocol revision 2024-11-05 (deprecated since 2025-03-26, still
//! served by many servers for old clients): a GET opens an SSE stream whose first event,
//! `endpoint`, names the URI to POST client messages to; the server's messages come back on the
//! stream as SSE `message` events.
//!
//! The stream is read in the background and turned into [`Inbound`] items, as a stdio server's
//! stdout is, each tagged with the HTTP exchange it came in (the GET, or a POST whose body carried
//! a message it should not have). Every exchange is recorded in the transcript; what is wrong
//! with an event is noted on its frame, for the checks to judge.
//!
//! The endpoint is the server's word on where mcpcheck connects, so it is held to the origin the
//! user named: an endpoint at another origin (scheme, host or port) is never contacted — the
//! user's headers, credentials among them, would go with every message — and the run ends there
//! (the check `legacy-sse-endpoint-same-origin` reports it).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, watch};

use super::http::{self, HttpRequest, HttpResponse};
use super::sse::SseParser;
use super::stdio::Inbound;
use super::{HttpSpec, Limits, Transcript};
use crate::record::transcript::{Carried, HttpRecord};
use crate::record::url::{origin, resolve, same_origin};
use crate::record::FrameIssue;

/// What came in, with the index (in [`Transcript::posts`]) of the HTTP exchange that carried it.
pub type Tagged = (Vec<Inbound>, Option<usize>);

/// Where the client's messages go, once the stream has said.
#[derive(Clone, Debug)]
enum Endpoint {
    /// Not said yet.
    Waiting,
    /// The absolute URL to POST to.
    Ready(String),
    /// The stream failed or ended before naming a usable one.
    Failed(StreamEnd),
}

/// Why the HTTP+SSE stream ended (or never named an endpoint mcpcheck can use).
#[derive(Clone, Debug, thiserror::Error)]
pub enum StreamEnd {
    /// The GET that opens it failed (the HTTP client's words).
    #[error("cannot open the SSE stream: {0}")]
    Open(String),
    /// The GET was answered with something other than an SSE stream.
    #[error("GET {url} was answered HTTP {status} ({content_type}), not with an SSE stream")]
    NotSse {
        /// The stream's URL.
        url: String,
        /// The status.
        status: u16,
        /// The content type, or `no content type`.
        content_type: String,
    },
    /// The server ended it.
    #[error("the SSE stream ended")]
    Ended,
    /// Reading it failed (the HTTP client's words).
    #[error("the SSE stream failed: {0}")]
    Failed(String),
    /// mcpcheck stopped reading it: the run closed the connection.
    #[error("the connection was closed")]
    Closed,
    /// mcpcheck closed it: an event grew past the frame limit.
    #[error("mcpcheck closed a stream that flooded it")]
    Flooded,
    /// It named its message endpoint at another origin than its own.
    #[error("the SSE stream named its message endpoint at another origin ({url}) than the one it was opened at ({opened}); mcpcheck sends nothing to an origin the user did not name (the user's headers and credentials would go with every message), so the server could not be tested further")]
    OtherOrigin {
        /// The endpoint it named.
        url: String,
        /// The origin of the stream's URL.
        opened: String,
    },
    /// The endpoint it named is no URI.
    #[error("the SSE stream's endpoint `{data}` is not a usable URI: {why}")]
    BadEndpoint {
        /// The endpoint event's data.
        data: String,
        /// Why it is not usable.
        why: String,
    },
}

/// Why a message could not be POSTed, or a probe not made.
#[derive(Debug, thiserror::Error)]
pub enum LegacyError {
    /// The stream named no endpoint within the bound.
    #[error("the SSE stream at {url} named no endpoint within {seconds} s")]
    NoEndpoint {
        /// The stream's URL.
        url: String,
        /// The bound, in seconds.
        seconds: f64,
    },
    /// The stream's reader stopped before it named one.
    #[error("the SSE stream's reader stopped")]
    ReaderStopped,
    /// The stream ended or failed before naming an endpoint mcpcheck can use.
    #[error(transparent)]
    Stream(StreamEnd),
    /// The POST was not answered.
    #[error("the POST to the message endpoint failed: {0}")]
    Post(http::HttpError),
    /// A probe's request was not answered.
    #[error(transparent)]
    Probe(#[from] http::HttpError),
}

/// How a POST of one client message went.
#[derive(Debug)]
pub enum Posted {
    /// The server took it (a 2xx status).
    Accepted,
    /// An error status.
    Rejected {
        /// The status.
        status: u16,
        /// The body, as text.
        body: String,
    },
}

/// One connection of the HTTP+SSE transport.
pub struct LegacySse {
    spec: HttpSpec,
    endpoint: watch::Receiver<Endpoint>,
    inbound: mpsc::UnboundedSender<Tagged>,
    transcript: Arc<Mutex<Transcript>>,
    limits: Limits,
    reader: tokio::task::JoinHandle<()>,
    /// Why the stream ended, once it has.
    ended: Arc<Mutex<Option<StreamEnd>>>,
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl LegacySse {
    /// Opens the stream (in the background) and returns the connection and what it receives.
    pub fn connect(
        spec: &HttpSpec,
        limits: &Limits,
        transcript: Arc<Mutex<Transcript>>,
    ) -> (LegacySse, mpsc::UnboundedReceiver<Tagged>) {
        let (inbound, received) = mpsc::unbounded_channel();
        let (endpoint_tx, endpoint) = watch::channel(Endpoint::Waiting);
        let mut headers = with_host(&spec.url, &spec.headers);
        headers.push(("Accept".into(), "text/event-stream".into()));
        let request = HttpRequest {
            method: "GET".into(),
            url: spec.url.clone(),
            headers,
            body: Vec::new(),
            stream_for: None,
            drop_after_events: None,
            reuse: None,
        };
        let index = transcript
            .lock()
            .expect("transcript lock")
            .push_post(HttpRecord {
                method: "GET".into(),
                url: Some(request.url.clone()),
                request_headers: request.headers.clone(),
                carried: Carried::Stream,
                ..HttpRecord::default()
            });
        let ended = Arc::new(Mutex::new(None));
        let reader = tokio::spawn(read_stream(Stream {
            request,
            index,
            limits: limits.clone(),
            transcript: transcript.clone(),
            inbound: inbound.clone(),
            endpoint: endpoint_tx,
            ended: ended.clone(),
        }));
        let connection = LegacySse {
            spec: spec.clone(),
            endpoint,
            inbound,
            transcript,
            limits: limits.clone(),
            reader,
            ended,
        };
        (connection, received)
    }

    /// Whether the stream has named its endpoint (the server is up and talking).
    pub fn heard(&self) -> bool {
        matches!(*self.endpoint.borrow(), Endpoint::Ready(_))
    }

    /// Closes the stream: the server sees the client go.
    pub fn close(&self) {
        self.reader.abort();
        let _ = self.inbound.send((vec![Inbound::Closed], None));
    }

    /// Why the stream ended, if it has.
    pub fn ended(&self) -> Option<StreamEnd> {
        self.ended.lock().expect("ended lock").clone()
    }

    /// POSTs one client message to the endpoint, waiting (up to the start-up allowance) for the
    /// stream to name it; `extra` headers are added (replacing the user's of the same name) and
    /// those named in `omit` left out. A message in the POST's body is passed on as if it came
    /// on the stream, tagged with the POST, so that the run goes on and the checks see where it
    /// came.
    pub async fn post(
        &self,
        text: &str,
        extra: &[(String, String)],
        omit: &[String],
    ) -> Result<Posted, LegacyError> {
        let url = self.endpoint().await?;
        let carried = match serde_json::from_str::<Value>(text) {
            Ok(v) if v.get("method").is_some() && v.get("id").is_some() => Carried::Request,
            Ok(v) if v.get("method").is_some() => Carried::Notification,
            Ok(v) if v.get("id").is_some() => Carried::Response,
            _ => Carried::Raw,
        };
        let mut headers = with_host(&url, &self.spec.headers);
        headers.push(("Content-Type".into(), "application/json".into()));
        super::set_headers(&mut headers, extra, omit);
        let request = HttpRequest {
            method: "POST".into(),
            url,
            headers,
            body: text.as_bytes().to_vec(),
            stream_for: None,
            drop_after_events: None,
            reuse: None,
        };
        // The answer comes on the stream: the POST itself only has to be accepted, in time.
        let (outcome, index) = self.send_recorded(&request, carried, Duration::ZERO).await;
        let response = outcome.map_err(LegacyError::Post)?;
        // A refused POST's body explains the refusal (it may be a JSON-RPC error with no id); only
        // an accepted POST that carries messages sends them on the wrong channel.
        let accepted = (200..300).contains(&response.status);
        if accepted && !response.messages.is_empty() {
            let items = response
                .messages
                .iter()
                .map(|(value, text)| Inbound::Message {
                    value: value.clone(),
                    text: text.clone(),
                    issue: Some(FrameIssue::InPostBody {
                        status: response.status,
                    }),
                })
                .collect();
            let _ = self.inbound.send((items, Some(index)));
        }
        if accepted {
            Ok(Posted::Accepted)
        } else {
            Ok(Posted::Rejected {
                status: response.status,
                body: response.body,
            })
        }
    }

    /// Opens the SSE endpoint once more, on a connection of its own, with `extra` headers (and
    /// without those named in `omit`): a probe (a foreign Origin, say). A stream the server opens
    /// is read for `hold` and then closed; what it carries is not part of the conversation.
    pub async fn probe(
        &self,
        extra: &[(String, String)],
        omit: &[String],
        hold: Duration,
    ) -> Result<HttpResponse, LegacyError> {
        let mut headers = with_host(&self.spec.url, &self.spec.headers);
        headers.push(("Accept".into(), "text/event-stream".into()));
        super::set_headers(&mut headers, extra, omit);
        let request = HttpRequest {
            method: "GET".into(),
            url: self.spec.url.clone(),
            headers,
            body: Vec::new(),
            stream_for: Some(hold),
            drop_after_events: None,
            reuse: None,
        };
        Ok(self.send_recorded(&request, Carried::Probe, hold).await.0?)
    }

    /// Sends one request (allowing `extra` time beyond the request timeout for reading its
    /// body) and records it in the transcript as carrying `carried`; returns what came back and
    /// the record's index.
    async fn send_recorded(
        &self,
        request: &HttpRequest,
        carried: Carried,
        extra: Duration,
    ) -> (Result<HttpResponse, http::HttpError>, usize) {
        let outcome = http::send_within(
            request,
            self.limits.max_frame_bytes,
            self.limits.request_timeout,
            extra,
        )
        .await;
        let mut record = HttpRecord {
            method: request.method.clone(),
            request_headers: request.headers.clone(),
            carried,
            ..HttpRecord::default()
        };
        match &outcome {
            Ok(response) => record.record_response(response),
            Err(e) => record.error = Some(e.to_string()),
        }
        let index = self
            .transcript
            .lock()
            .expect("transcript lock")
            .push_post(record);
        (outcome, index)
    }

    async fn endpoint(&self) -> Result<String, LegacyError> {
        let mut endpoint = self.endpoint.clone();
        let wait = self.limits.startup_timeout.max(self.limits.request_timeout);
        let named =
            tokio::time::timeout(wait, endpoint.wait_for(|e| !matches!(e, Endpoint::Waiting)))
                .await;
        match named {
            Err(_) => Err(LegacyError::NoEndpoint {
                url: self.spec.url.clone(),
                seconds: wait.as_secs_f64(),
            }),
            Ok(Err(_)) => Err(LegacyError::ReaderStopped),
            Ok(Ok(e)) => match &*e {
                Endpoint::Ready(url) => Ok(url.clone()),
                Endpoint::Failed(why) => Err(LegacyError::Stream(why.clone())),
                Endpoint::Waiting => unreachable!("waited for a named endpoint"),
            },
        }
    }
}

/// What the stream's reader needs.
struct Stream {
    request: HttpRequest,
    index: usize,
    limits: Limits,
    transcript: Arc<Mutex<Transcript>>,
    inbound: mpsc::UnboundedSender<Tagged>,
    endpoint: watch::Sender<Endpoint>,
    ended: Arc<Mutex<Option<StreamEnd>>>,
}

impl Stream {
    fn record(&self, update: impl FnOnce(&mut HttpRecord)) {
        if let Some(record) = self
            .transcript
            .lock()
            .expect("transcript lock")
            .posts
            .get_mut(self.index)
        {
            update(record);
        }
    }

    fn end(&self, why: StreamEnd) {
        self.endpoint.send_if_modified(|e| match e {
            Endpoint::Waiting => {
                *e = Endpoint::Failed(why.clone());
                true
            }
            _ => false,
        });
        *self.ended.lock().expect("ended lock") = Some(why);
        let _ = self.inbound.send((vec![Inbound::Closed], Some(self.index)));
    }
}

/// Reads the GET stream until it ends: the endpoint first, then the server's messages.
///
/// Long by design: the GET stream read as one loop under its bounds: the endpoint event, then
/// messages routed to their waiters.
async fn read_stream(stream: Stream) {
    let opened = match http::open(&stream.request, stream.limits.request_timeout).await {
        Ok(opened) => opened,
        Err(e) => {
            stream.record(|r| r.error = Some(e.to_string()));
            return stream.end(StreamEnd::Open(e.to_string()));
        }
    };
    let http::Opened {
        head,
        mut body,
        driver,
        ..
    } = opened;
    stream.record(|r| r.record_response(&head));
    if head.status != 200 || !head.is_sse() {
        return stream.end(StreamEnd::NotSse {
            url: stream.request.url.clone(),
            status: head.status,
            content_type: head
                .header("content-type")
                .unwrap_or("no content type")
                .to_string(),
        });
    }
    let mut parser = SseParser::default();
    let mut events = 0usize;
    let mut named = false;
    let why = loop {
        use http_body_util::BodyExt;
        let chunk = match body.frame().await {
            None => break StreamEnd::Ended,
            Some(Err(e)) => break StreamEnd::Failed(e.to_string()),
            Some(Ok(frame)) => match frame.into_data() {
                Ok(chunk) => chunk,
                Err(_) => continue,
            },
        };
        let mut items = Vec::new();
        for event in parser.feed(&chunk) {
            events += 1;
            if events == 1 {
                stream.record(|r| r.first_event = Some(event.clone()));
            }
            let name = event.event.as_deref().unwrap_or("message");
            // The endpoint: the `endpoint` event, or (leniently, for the check to fail) a first
            // event whose data is not JSON.
            if !named
                && (name == "endpoint"
                    || (events == 1 && serde_json::from_str::<Value>(&event.data).is_err()))
            {
                named = true;
                let target = resolve(&stream.request.url, event.data.trim());
                stream.endpoint.send_replace(match target {
                    Ok(url) if same_origin(&url, &stream.request.url) => Endpoint::Ready(url),
                    Ok(url) => Endpoint::Failed(StreamEnd::OtherOrigin {
                        url,
                        opened: origin(&stream.request.url).unwrap_or_default(),
                    }),
                    Err(e) => Endpoint::Failed(StreamEnd::BadEndpoint {
                        data: event.data.clone(),
                        why: e.to_string(),
                    }),
                });
                continue;
            }
            if event.data.is_empty() {
                continue;
            }
            items.push(match serde_json::from_str::<Value>(&event.data) {
                Ok(value) => Inbound::Message {
                    value,
                    text: event.data.clone(),
                    issue: (name != "message").then(|| FrameIssue::EventName {
                        name: name.to_string(),
                    }),
                },
                Err(e) => Inbound::Noise {
                    text: event.data.clone(),
                    issue: FrameIssue::EventNotJson {
                        name: name.to_string(),
                        error: e.to_string(),
                    },
                },
            });
        }
        let invalid = parser.invalid_utf8;
        let bytes = chunk.len();
        stream.record(|r| {
            r.utf8_errors = invalid;
            r.body_bytes += bytes;
        });
        if !items.is_empty() && stream.inbound.send((items, Some(stream.index))).is_err() {
            break StreamEnd::Closed;
        }
        if parser.pending() > stream.limits.max_frame_bytes {
            let _ = stream.inbound.send((
                vec![Inbound::Noise {
                    text: String::new(),
                    issue: FrameIssue::EventOversize {
                        max: stream.limits.max_frame_bytes,
                    },
                }],
                Some(stream.index),
            ));
            break StreamEnd::Flooded;
        }
    };
    drop(driver);
    stream.end(why);
}

/// The user's headers, after a `Host` header for the URL (HTTP/1.1 requires one; mcpcheck's HTTP
/// client adds nothing by itself) unless the user set their own.
fn with_host(url: &str, headers: &[(String, String)]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        if let Some(authority) = crate::record::url::authority(url) {
            out.push(("Host".into(), authority));
        }
    }
    out.extend(headers.iter().cloned());
    out
}
