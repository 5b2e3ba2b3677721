//! `legacy-sse-endpoint-event`: an SSE stream begins with the endpoint event.

use super::streams;
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::transcript::cut;
use crate::record::url::resolve;
use crate::record::{Evidence, Level, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "legacy-sse-endpoint-event",
    since: "2026.11.6",
    area: "sse",
    title: "an SSE stream begins with the endpoint event",
    level: Level::Must,
    derived: false,
    spec: &[("2024-11-05", "basic/transports#http-with-sse")],
    expect: "the first event of every stream the SSE endpoint opens to be an `endpoint` event whose data is a URI to POST messages to",
    transports: &[TransportKind::LegacySse],
    explain: "In the HTTP+SSE transport of 2024-11-05 (deprecated since 2025-03-26, still how many servers serve older clients) a client opens an SSE stream with GET; when it connects, the server MUST send an `endpoint` event whose data is the URI the client POSTs all its messages to. mcpcheck looks at the first event of every stream of the run. To keep going it also takes a first event of another name as the endpoint, if its data is not JSON, and fails this check.",
    idle: Some(Idle::Nothing("no HTTP+SSE stream was opened")),
    judge: legacy_sse_endpoint_event,
};

/// Judges `legacy-sse-endpoint-event`: an SSE stream begins with the endpoint event.
fn legacy_sse_endpoint_event(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for post in streams(input) {
        let Some(first) = &post.first_event else {
            continue;
        };
        found.seen += 1;
        let name = first.event.as_deref().unwrap_or("message");
        if name != "endpoint" {
            found.bad.push(Evidence::remark(
                "first event",
                format!(
                    "the stream began with an event named `{name}` (data: {}), not `endpoint`",
                    cut(&first.data, 200)
                ),
            ));
        } else if let Err(e) = resolve("http://127.0.0.1/", first.data.trim()) {
            found.bad.push(Evidence::remark(
                "endpoint event",
                format!(
                    "the endpoint `{}` is not a usable URI: {e}",
                    cut(&first.data, 200)
                ),
            ));
        }
    }
    found.judge(def)
}
