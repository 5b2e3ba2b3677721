//! `stateless-server-info-everywhere`: 2026-07-28: every result names the server in _meta.

use crate::check::wire::{transcripts_since, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-server-info-everywhere",
    since: "2026.11.2",
    area: "stateless",
    title: "2026-07-28: every result names the server in _meta",
    level: Level::Should,
    derived: false,
    spec: &[("2026-07-28", "basic/index#meta")],
    expect: "_meta io.modelcontextprotocol/serverInfo with a name and a version on every result of a 2026-07-28 connection",
    transports: &[],
    explain: "Without a handshake, a 2026-07-28 client learns who answered from each result: servers SHOULD include io.modelcontextprotocol/serverInfo (an Implementation: name and version) in the _meta of every response. Every result of every 2026-07-28 connection is examined.",
    idle: Some(Idle::Stateless("connections (SSE responses, for the latter)")),
    judge: stateless_server_info_everywhere,
};

/// Judges `stateless-server-info-everywhere`: 2026-07-28: every result names the server in _meta.
fn stateless_server_info_everywhere(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
        // Methods 2026-07-28 removed (a dual-era server may still answer them, as it
        // answers mcpcheck's own barrier pings) are not 2026-07-28 results.
        for answered in input.results(transcript).iter().filter(|a| {
            !matches!(
                a.method.as_str(),
                "ping"
                    | "initialize"
                    | "logging/setLevel"
                    | "resources/subscribe"
                    | "resources/unsubscribe"
            )
        }) {
            found.seen += 1;
            let info = answered
                .message
                .pointer("/result/_meta/io.modelcontextprotocol~1serverInfo");
            let named = info.is_some_and(|i| {
                i.get("name").is_some_and(Value::is_string)
                    && i.get("version").is_some_and(Value::is_string)
            });
            if !named {
                found.bad.push(Evidence::frame(
                    &answered.frame.text,
                    &format!("a {} result without _meta io.modelcontextprotocol/serverInfo (name and version)", answered.method),
                ));
            }
        }
    }
    found.judge(def)
}
