//! `mcpcheck list`: the checks of the library, as a table or JSON.

use std::process::ExitCode;

use super::{emit, usage};
use crate::cli;

/// Prints the checks the run would make, as a table or JSON.
pub(super) fn list(args: &cli::ListArgs) -> ExitCode {
    let scenarios = match cli::load_scenarios(&args.scenarios) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let mut defs = crate::check::definitions(&scenarios);
    defs.sort_by(|a, b| a.area.cmp(&b.area).then(a.id.cmp(&b.id)));
    if args.json {
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&defs).expect("serializable")
        ));
        return ExitCode::SUCCESS;
    }
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::NOTHING);
    table.force_no_tty();
    table.set_header(["check", "level", "area", "versions", "transport", "title"]);
    for def in &defs {
        let level = if def.derived {
            format!("{}*", def.level)
        } else {
            def.level.to_string()
        };
        table.add_row([
            def.id.clone(),
            level,
            def.area.clone(),
            def.versions.to_string(),
            transports(&def.transports),
            def.title.clone(),
        ]);
    }
    emit(&format!(
        "{table}\n\n{} checks (* = derived: stated through JSON-RPC 2.0, the schema or an RFC MCP builds on)\n",
        defs.len()
    ));
    ExitCode::SUCCESS
}

/// Writes to stdout; a closed pipe (`mcpcheck list | head`) is not an error.
/// The transports a check applies to, for `list` and `explain`.
pub(super) fn transports(kinds: &[crate::record::TransportKind]) -> String {
    if kinds.is_empty() {
        "any".into()
    } else {
        kinds
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}
