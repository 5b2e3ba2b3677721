//! `legacy-sse-endpoint-same-origin`: the endpoint event names a URI at the stream's own origin.

use super::streams;
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::transcript::cut;
use crate::record::url::{origin, resolve, same_origin};
use crate::record::{Evidence, Level, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "legacy-sse-endpoint-same-origin",
    since: "2026.11.10",
    area: "sse",
    title: "the endpoint event names a URI at the stream's own origin",
    level: Level::Should,
    derived: true,
    spec: &[
        ("2024-11-05", "basic/transports#http-with-sse"),
        ("2024-11-05", "basic/transports#security-warning"),
    ],
    expect: "the `endpoint` event of every stream to name a URI at the origin (scheme, host and port) the stream was opened at",
    transports: &[TransportKind::LegacySse],
    explain: "The `endpoint` event chooses where a client sends every message, and with them the credentials it was given for the server (an Authorization header, say). The 2024-11-05 text does not say where that URI may point, so this is derived, at most a warning: from the transport's security warning (a server's transport must not be a way to reach or abuse something else) and from the official SDKs, whose clients refuse an endpoint whose origin differs from the stream's. mcpcheck does the same: it never sends a message, or the user's headers, to another origin; the run ends there, and this check shows the endpoint named.",
    idle: Some(Idle::Nothing("no HTTP+SSE stream named an endpoint")),
    judge: legacy_sse_endpoint_same_origin,
};

/// Judges `legacy-sse-endpoint-same-origin`: the endpoint event names a URI at the stream's own origin.
fn legacy_sse_endpoint_same_origin(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for post in streams(input) {
        let (Some(first), Some(url)) = (&post.first_event, &post.url) else {
            continue;
        };
        let Ok(endpoint) = resolve(url, first.data.trim()) else {
            continue;
        };
        found.seen += 1;
        if !same_origin(&endpoint, url) {
            found.bad.push(Evidence::remark(
                "endpoint event",
                format!(
                    "the stream opened at {} named its endpoint at {} (origin {}); mcpcheck sent it nothing",
                    origin(url).unwrap_or_default(),
                    cut(&endpoint, 200),
                    origin(&endpoint).unwrap_or_default()
                ),
            ));
        }
    }
    found.judge(def)
}
