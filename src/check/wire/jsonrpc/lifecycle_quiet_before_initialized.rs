//! `lifecycle-quiet-before-initialized`: no requests but pings before the client's initialized.

use crate::check::wire::{sent_message, Builtin, Idle, Tally, WireInput};
use crate::record::{Direction, Evidence, Level, Verdict, WireFrame};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "lifecycle-quiet-before-initialized",
    since: "2026.11.3",
    area: "lifecycle",
    title: "no requests but pings before the client's initialized",
    level: Level::Should,
    derived: false,
    spec: &[("2025-11-25", "basic/lifecycle#initialization")],
    expect: "between mcpcheck's initialize request and its notifications/initialized, no request from the server other than ping",
    transports: &[],
    explain: "The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification: until then the client may not be ready to answer them. Every connection on which mcpcheck sent initialize and then initialized is examined, the main one and the lifecycle scenarios' own (one of which puts a ping between the two).",
    idle: Some(Idle::Nothing("no connection of the run had an initialize followed by initialized")),
    judge: lifecycle_quiet_before_initialized,
};

/// Judges `lifecycle-quiet-before-initialized`: no requests but pings before the client's initialized.
fn lifecycle_quiet_before_initialized(
    def: &Builtin,
    input: &WireInput,
) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let mut window: Option<Vec<&WireFrame>> = None;
        for frame in &transcript.frames {
            match frame.direction {
                Direction::Sent => {
                    let method = sent_message(frame)
                        .and_then(|m| m.get("method").and_then(Value::as_str).map(str::to_string));
                    match method.as_deref() {
                        Some("initialize") => window = Some(Vec::new()),
                        Some("notifications/initialized") => {
                            if let Some(early) = window.take() {
                                found.seen += 1;
                                if let Some(first) = early.first() {
                                    found.bad.push(Evidence::frame(
                                        &first.text,
                                        &format!("{} request(s) from the server before mcpcheck sent notifications/initialized", early.len()),
                                    ));
                                }
                            }
                        }
                        _ => {}
                    }
                }
                Direction::Received => {
                    let Some(early) = window.as_mut() else {
                        continue;
                    };
                    let request = frame.message.as_ref().filter(|m| {
                        m.get("id").is_some()
                            && m.get("method")
                                .and_then(Value::as_str)
                                .is_some_and(|method| method != "ping")
                    });
                    if request.is_some() {
                        early.push(frame);
                    }
                }
            }
        }
    }
    found.judge(def)
}
