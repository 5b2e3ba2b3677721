//! `http-notification-accepted`: a notification POST is answered 202 with no body.

use crate::check::wire::{Builtin, Tally, WireInput};
use crate::record::{Carried, Evidence, Level, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "http-notification-accepted",
    since: "2026.11",
    area: "http",
    title: "a notification POST is answered 202 with no body",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/transports#sending-messages-to-the-server")],
    expect: "HTTP 202 Accepted with an empty body for an accepted notification, or an HTTP error status if the server cannot accept it",
    transports: &[TransportKind::Http],
    explain: "If the input is a JSON-RPC notification and the server accepts it, the server MUST return 202 Accepted with no body; if it cannot accept it, an HTTP error status. Every notification mcpcheck POSTs during the run is examined.",
    idle: None,
    judge: http_notification_accepted,
};

/// Judges `http-notification-accepted`: a notification POST is answered 202 with no body.
fn http_notification_accepted(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for post in input
        .transcripts
        .iter()
        .flat_map(|t| t.posts.iter())
        .filter(|p| p.carried == Carried::Notification)
    {
        let Some(status) = post.status else { continue };
        found.seen += 1;
        let ok = (status == 202 && post.body_bytes == 0) || (400..500).contains(&status);
        if (400..500).contains(&status) {
            found.note = Some(format!("a notification was refused with HTTP {status}, which the spec allows for input the server cannot accept"));
        }
        if !ok {
            found.bad.push(Evidence::remark(
                "POST notification",
                format!("HTTP {status} with a body of {} bytes", post.body_bytes),
            ));
        }
    }
    found.judge(def)
}
