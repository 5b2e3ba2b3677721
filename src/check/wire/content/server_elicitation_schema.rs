//! `server-elicitation-schema`: every form elicitation asks with a flat schema of primitive fields.

use crate::check::wire::shapes::elicitation_schema_problems;
use crate::check::wire::{received_fresh, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "server-elicitation-schema",
    since: "2026.11.3",
    area: "elicitation",
    title: "every form elicitation asks with a flat schema of primitive fields",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "client/elicitation#requested-schema"), ("2025-11-25", "schema#elicitrequestformparams")],
    expect: "each form-mode elicitation/create to carry a requestedSchema of type object whose properties are strings (optionally with format, enum or titled oneOf), numbers, integers, booleans or (2025-11-25) multi-select arrays of such options, with defaults of the field's own type and among its options",
    transports: &[],
    explain: "A form elicitation's requestedSchema is a restricted subset of JSON Schema: a flat object whose properties are primitive fields, so that any client can render it as a form. 2025-11-25 adds titled single-select enums (oneOf of const and title), multi-select arrays (items with enum or anyOf) and defaults on every field type (SEP-1034, SEP-1330); a default must be of the field's type and, for an enum, one of its options. Every elicitation/create the server sent is examined; mcpcheck only receives them on connections that declare elicitation (the official fixtures').",
    idle: Some(Idle::Nothing("the server asked for no form elicitation")),
    judge: server_elicitation_schema,
};

/// Judges `server-elicitation-schema`: every form elicitation asks with a flat schema of primitive fields.
fn server_elicitation_schema(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let version = transcript.version.as_deref().unwrap_or("2025-11-25");
        let form_elicitations = received_fresh(transcript).filter(|(m, _)| {
            m.get("id").is_some()
                && m.get("method") == Some(&Value::from("elicitation/create"))
                && m.pointer("/params/mode").is_none_or(|mode| mode == "form")
        });
        for (message, frame) in form_elicitations {
            found.seen += 1;
            let problems =
                elicitation_schema_problems(&message["params"]["requestedSchema"], version);
            if let Some(problem) = problems.first() {
                found.bad.push(Evidence::frame(&frame.text, problem));
            }
        }
    }
    found.judge(def)
}
