//! `server-requests-allowed`: the server sends only the requests the client's capabilities allow.

use super::{declared_client_capabilities, server_requests};
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "server-requests-allowed",
    since: "2026.11.2",
    area: "lifecycle",
    title: "the server sends only the requests the client's capabilities allow",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/lifecycle#capability-negotiation"), ("2026-07-28", "basic/patterns/mrtr")],
    expect: "roots/list, sampling/createMessage and elicitation/create only on connections whose initialize declared `roots`, `sampling` and `elicitation` (URL-mode elicitation only with `elicitation.url`, sampling with tools only with `sampling.tools`), and on 2026-07-28 no request at all",
    transports: &[],
    explain: "Both parties MUST respect the negotiated capabilities. mcpcheck's main connection declares only `roots`, so a server may ask it for roots/list or ping but not for sampling or elicitation; the official sampling and elicitation fixtures run on connections that declare those too. From 2025-11-25 a URL-mode elicitation needs `elicitation.url` and a sampling request with tools needs `sampling.tools`. On 2026-07-28 a server sends no requests of its own: it asks for input by returning an InputRequiredResult. Every request the server sent during the run is judged against what its connection declared.",
    idle: Some(Idle::Nothing("the server sent no requests of its own")),
    judge: server_requests_allowed,
};

/// Judges `server-requests-allowed`: the server sends only the requests the client's capabilities allow.
fn server_requests_allowed(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let stateless = transcript.version.as_deref().is_some_and(|v| {
            crate::record::version::Era::of(v) == Some(crate::record::version::Era::Stateless)
        });
        let declared = declared_client_capabilities(transcript);
        let has = |pointer: &str| declared.pointer(pointer).is_some_and(|c| !c.is_null());
        for (message, frame) in server_requests(transcript) {
            found.seen += 1;
            let method = message["method"].as_str().unwrap_or("?");
            let params = message.get("params");
            let problem = match method {
                _ if stateless => Some(format!("a {method} request on 2026-07-28, where a server sends no requests of its own (it asks for input with an InputRequiredResult instead)")),
                "roots/list" if !has("/roots") => Some("a roots/list request, although this connection did not declare the `roots` client capability".into()),
                "sampling/createMessage" if !has("/sampling") => Some("a sampling/createMessage request, although this connection did not declare the `sampling` client capability".into()),
                "sampling/createMessage"
                    if params.is_some_and(|p| p.get("tools").is_some() || p.get("toolChoice").is_some())
                        && !has("/sampling/tools") =>
                {
                    Some("a sampling/createMessage request with tools, although this connection did not declare `sampling.tools`".into())
                }
                "elicitation/create" if !has("/elicitation") => Some("an elicitation/create request, although this connection did not declare the `elicitation` client capability".into()),
                "elicitation/create"
                    if params.and_then(|p| p.get("mode")) == Some(&Value::from("url"))
                        && !has("/elicitation/url") =>
                {
                    Some("a URL-mode elicitation/create request, although this connection did not declare `elicitation.url`".into())
                }
                _ => None,
            };
            if let Some(problem) = problem {
                found.bad.push(Evidence::frame(&frame.text, &problem));
            }
        }
    }
    found.judge(def)
}
