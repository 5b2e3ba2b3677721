//! Built-in checks of the 2024-11-05 HTTP+SSE transport seen over a whole run: every stream
//! begins with the `endpoint` event, the endpoint it names is at the stream's own origin, and
//! every server message arrives as an SSE `message` event.

use super::{Builtin, WireInput};
use crate::record::transcript::{Carried, HttpRecord};

mod legacy_sse_endpoint_event;
mod legacy_sse_endpoint_same_origin;
mod legacy_sse_message_events;

/// The area's checks, a file each, in the order reports list them.
pub(super) const BUILTINS: &[Builtin] = &[
    legacy_sse_endpoint_event::CHECK,
    legacy_sse_endpoint_same_origin::CHECK,
    legacy_sse_message_events::CHECK,
];

/// Every GET of the run that opened an HTTP+SSE stream.
pub(super) fn streams<'a>(input: &'a WireInput) -> impl Iterator<Item = &'a HttpRecord> {
    input
        .transcripts
        .iter()
        .flat_map(|t| t.posts.iter())
        .filter(|p| p.method == "GET" && p.carried == Carried::Stream)
}
