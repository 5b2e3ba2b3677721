//! `stateless-error-codes`: on 2026-07-28, no retired or undefined error code of the reserved range.

use super::DEFINED_RESERVED;
use crate::check::wire::{transcripts_since, Builtin, Idle, Tally, WireInput};
use crate::record::{Direction, Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-error-codes",
    since: "2026.11.2",
    area: "stateless",
    title: "on 2026-07-28, no retired or undefined error code of the reserved range",
    level: Level::Must,
    derived: false,
    spec: &[("2026-07-28", "basic/index#error-codes")],
    expect: "no error with -32002, -32042, or a code in -32020..-32099 other than -32020, -32021 and -32022 on a 2026-07-28 connection",
    transports: &[],
    explain: "2026-07-28 reserves -32020 to -32099 for the specification and defines -32020, -32021 and -32022 in it; implementations MUST NOT emit an undefined code from the range. -32002 (resource not found, now -32602) and -32042 are retired. Every error response of a 2026-07-28 connection is examined.",
    idle: Some(Idle::Nothing("no error came back on a 2026-07-28 connection")),
    judge: stateless_error_codes,
};

/// Judges `stateless-error-codes`: on 2026-07-28, no retired or undefined error code of the reserved range.
fn stateless_error_codes(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
        for frame in transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Received)
        {
            let Some(code) = frame
                .message
                .as_ref()
                .and_then(|m| m.pointer("/error/code"))
                .and_then(Value::as_i64)
            else {
                continue;
            };
            found.seen += 1;
            let problem = match code {
                -32002 => Some("-32002 was the resource-not-found code before 2026-07-28; it is no longer defined".to_string()),
                -32042 => Some("-32042 (URL elicitation required) is not defined on 2026-07-28".to_string()),
                -32099..=-32020 if !DEFINED_RESERVED.contains(&code) => Some(format!("{code} lies in -32020..-32099, which the spec reserves, and it defines no such code")),
                _ => None,
            };
            if let Some(problem) = problem {
                found.bad.push(Evidence::frame(&frame.text, &problem));
            }
        }
    }
    found.judge(def)
}
