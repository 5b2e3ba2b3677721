//! What both HTTP transports answer with: the body type, the bound on a POST's body, a plain
//! response, and an SSE response fed from a channel. Streamable HTTP (`http`) and the 2024-11-05
//! HTTP+SSE transport (`legacy`) both build on it, so neither reaches into the other for it.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Frame};
use hyper::header::HeaderValue;
use hyper::{Response, StatusCode};
use tokio::sync::mpsc;

/// The body of every response.
pub(crate) type HttpBody = BoxBody<Bytes, Infallible>;

/// The largest POST body accepted.
pub(crate) const MAX_BODY: usize = 4 << 20;

/// A response with a status and a fixed text body.
pub(crate) fn plain(status: StatusCode, text: &'static str) -> Response<HttpBody> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}

/// An SSE response (`text/event-stream`, not cached) whose events come from `rx`.
pub(crate) fn event_stream(rx: mpsc::UnboundedReceiver<Bytes>) -> Response<HttpBody> {
    let mut response = Response::new(ChannelBody(rx).boxed());
    let headers = response.headers_mut();
    headers.insert(
        "content-type",
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert("cache-control", HeaderValue::from_static("no-cache"));
    response
}

/// A response body fed from a channel, for SSE streams.
struct ChannelBody(mpsc::UnboundedReceiver<Bytes>);

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|chunk| chunk.map(|bytes| Ok(Frame::data(bytes))))
    }
}
