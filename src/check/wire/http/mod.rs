//! Built-in checks of the Streamable HTTP transport seen over a whole run: session ids, SSE
//! priming and event ids, status codes for notifications, content types of responses.

use super::Builtin;

mod http_notification_accepted;
mod http_response_content_type;
mod http_session_id_visible_ascii;
mod http_sse_ends_after_response;
mod http_sse_event_id_unique;
mod http_sse_priming;
mod http_sse_retry_before_close;

/// The area's checks, a file each, in the order reports list them.
pub(super) const BUILTINS: &[Builtin] = &[
    http_sse_retry_before_close::CHECK,
    http_sse_ends_after_response::CHECK,
    http_sse_event_id_unique::CHECK,
    http_session_id_visible_ascii::CHECK,
    http_sse_priming::CHECK,
    http_notification_accepted::CHECK,
    http_response_content_type::CHECK,
];
