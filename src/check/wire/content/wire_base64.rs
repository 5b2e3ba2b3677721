//! `wire-base64`: every blob and every image or audio payload is valid base64.

use crate::check::wire::shapes::{is_base64, result_base64};
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::transcript::cut;
use crate::record::{Evidence, Level, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "wire-base64",
    since: "2026.11.2",
    area: "resources",
    title: "every blob and every image or audio payload is valid base64",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "server/resources#binary-content"), ("2025-11-25", "server/tools#image-content"), ("rfc4648", "section-4")],
    expect: "each resource blob and each image or audio block's data to be padded base64 in the standard alphabet (RFC 4648 §4)",
    transports: &[],
    explain: "Binary data MUST be properly encoded: the schema gives these members format `byte`, base64 as RFC 4648 §4 defines it — the standard alphabet (not the URL-safe one), padded with `=` to a multiple of four characters. Every blob and image or audio payload of the run's resources/read, tools/call and prompts/get results is examined.",
    idle: Some(Idle::Nothing("no blob, image or audio payload crossed the wire during the run")),
    judge: wire_base64,
};

/// Judges `wire-base64`: every blob and every image or audio payload is valid base64.
fn wire_base64(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for answered in input.results(transcript) {
            for (place, data) in result_base64(&answered.method, &answered.message["result"]) {
                found.seen += 1;
                if !is_base64(data) {
                    found.bad.push(Evidence::remark(
                        &answered.method,
                        format!(
                            "{place} is not padded standard base64 (RFC 4648): {:?}",
                            cut(data, 60)
                        ),
                    ));
                }
            }
        }
    }
    found.judge(def)
}
