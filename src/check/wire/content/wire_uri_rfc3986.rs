//! `wire-uri-rfc3986`: every resource URI the server sends is an RFC 3986 URI.

use crate::check::wire::shapes::{result_uris, uri_problem};
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "wire-uri-rfc3986",
    since: "2026.11.2",
    area: "resources",
    title: "every resource URI the server sends is an RFC 3986 URI",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "server/resources#resource"), ("rfc3986", "section-3")],
    expect: "each uri in resources/list and resources/read results and in resource and resource_link content blocks to be scheme \":\" followed only by characters a URI may hold, with well-formed percent-escapes",
    transports: &[],
    explain: "Resources are identified by URIs per RFC 3986, custom schemes included. A space, a non-ASCII character, a malformed percent-escape or a missing scheme makes a string that clients cannot parse or compare reliably. Every URI of every such result of the run is examined.",
    idle: Some(Idle::Nothing("no resource URI crossed the wire during the run")),
    judge: wire_uri_rfc3986,
};

/// Judges `wire-uri-rfc3986`: every resource URI the server sends is an RFC 3986 URI.
fn wire_uri_rfc3986(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for answered in input.results(transcript) {
            for (place, uri) in result_uris(&answered.method, &answered.message["result"]) {
                found.seen += 1;
                if let Some(problem) = uri_problem(uri) {
                    found.bad.push(Evidence::remark(
                        &answered.method,
                        format!("{place}: {uri:?} is not an RFC 3986 URI: {problem}"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}
