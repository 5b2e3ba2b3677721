//! `mcpcheck explain`: one check in full: its requirement, its scenario's steps and what it waits for.

use std::process::ExitCode;

use super::list::transports;
use super::{emit, usage};
use crate::cli;

/// Says what a check sends, what it expects and why.
///
/// Long by design: the explanation's sections in the order a reader needs them.
pub(super) fn explain(args: &cli::ExplainArgs) -> ExitCode {
    let scenarios = match cli::load_scenarios(&args.scenarios) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let found = scenarios.iter().find_map(|s| {
        s.checks
            .iter()
            .find(|c| c.def.id == args.id)
            .map(|c| (Some(s), c.def.clone(), c.steps.clone()))
    });
    let found = found.or_else(|| {
        crate::check::wire::definitions()
            .into_iter()
            .find(|d| d.id == args.id)
            .map(|d| (None, d, Vec::new()))
    });
    let Some((scenario, def, steps)) = found else {
        return usage(format!(
            "no check is named `{}` (see `mcpcheck list`)",
            args.id
        ));
    };
    let mut text = format!("{} — {}\n\n", def.id, def.title);
    text.push_str(&format!(
        "level:     {}{}\n",
        def.level,
        if def.derived {
            " (derived: stated through JSON-RPC 2.0, the schema or an RFC MCP builds on)"
        } else {
            ""
        }
    ));
    text.push_str(&format!(
        "area:      {}\nversions:  {}\ntransport: {}\nsource:    {}\n",
        def.area,
        def.versions,
        transports(&def.transports),
        def.source
    ));
    for spec in &def.spec {
        text.push_str(&format!(
            "spec:      {} ({} {})\n",
            spec.url, spec.version, spec.section
        ));
    }
    text.push_str(&format!("\nexpects:   {}\n", def.expect));
    if let Some(explain) = &def.explain {
        text.push_str(&format!("\nwhy:       {explain}\n"));
    }
    match scenario {
        Some(scenario) => {
            let session = match scenario.session {
                crate::scenario::SessionKind::Shared => "the run's main session",
                crate::scenario::SessionKind::Fresh => {
                    "a connection apart from the main one, after the handshake (over stdio shared in turn with other such scenarios)"
                }
                crate::scenario::SessionKind::Bare => "a connection of its own, with no handshake",
                crate::scenario::SessionKind::Probe => {
                    "the probe connection (after the handshake; taken in turn, over stdio with the fresh scenarios)"
                }
            };
            text.push_str(&format!(
                "\nsends, on {session} (scenario `{}`):\n",
                scenario.id
            ));
            for step in &scenario.steps {
                let judged = if steps.contains(&step.name) {
                    " ← judged"
                } else {
                    ""
                };
                let what = match &step.send {
                    crate::scenario::StepSend::Request { method, params, .. } => format!(
                        "request {method} {}",
                        params.as_ref().map(|p| p.to_string()).unwrap_or_default()
                    ),
                    crate::scenario::StepSend::Notification { method, params } => format!(
                        "notification {method} {}",
                        params.as_ref().map(|p| p.to_string()).unwrap_or_default()
                    ),
                    crate::scenario::StepSend::Raw(raw) if raw.is_empty() => {
                        format!("HTTP {}", step.http_method.clone().unwrap_or_default())
                    }
                    crate::scenario::StepSend::Raw(raw) => format!("raw bytes {raw}"),
                    crate::scenario::StepSend::Fetch(urls) => {
                        format!("GET {} (a document, no credentials)", urls.join(", else "))
                    }
                };
                let sent = step
                    .mode
                    .describe()
                    .map(|how| format!(", {how}"))
                    .unwrap_or_default();
                text.push_str(&format!(
                    "  {}: {}{sent}{}{judged}\n",
                    step.name,
                    what.trim_end(),
                    window(step)
                ));
            }
        }
        None => {
            text.push_str("\nbuilt-in: judged over every message of the run, not over one step\n")
        }
    }
    emit(&text);
    ExitCode::SUCCESS
}

/// How long a step waits, for `explain`: the "nothing more comes" window of a hold or of a frame
/// that should get no answer, and a response timeout of the step's own.
fn window(step: &crate::scenario::Step) -> String {
    let ms = |d: std::time::Duration| d.as_millis();
    let mut parts = Vec::new();
    if let Some(hold) = step.hold {
        parts.push(format!(
            "then watches {} ms that nothing more comes",
            ms(hold)
        ));
    }
    if let Some(wait) = step.wait {
        parts.push(format!("waits {} ms for an answer", ms(wait)));
    }
    if let Some(timeout) = step.timeout {
        parts.push(format!("waits up to {} ms for its answer", ms(timeout)));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}
