//! `mcpcheck compare`: several servers run side by side, and the servers × checks matrix.

use std::process::ExitCode;

use super::{emit, interrupted, stop_signal, usage, write_file};
use crate::cli;
use crate::report::Report;

/// Runs every server of the comparison side by side and renders the matrix.
pub(super) fn compare(args: &cli::CompareArgs) -> ExitCode {
    let mut entries = match args.resolve() {
        Ok(entries) => entries,
        Err(e) => return usage(e),
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    // First, the tokens of the servers whose `[[server]]` names `auth`, each got as `run --auth`
    // gets it (and each a secret of that server's reports): a server without one cannot be
    // compared, and the comparison does not start.
    for compared in &mut entries {
        let Some(client) = compared.auth.clone() else {
            continue;
        };
        eprintln!(
            "mcpcheck: server `{}`: getting its token",
            crate::report::safe::terminal(&compared.entry.name)
        );
        let config = &mut compared.entry.config;
        if let Err(code) =
            super::run_command::authorize(&runtime, config, &mut compared.secrets, false, &client)
        {
            return code;
        }
    }
    let names: Vec<String> = entries.iter().map(|c| c.entry.name.clone()).collect();
    let secrets: Vec<Vec<String>> = entries.iter().map(|c| c.secrets.clone()).collect();
    let entries: Vec<_> = entries.into_iter().map(|c| c.entry).collect();
    let outcome = runtime.block_on(async {
        let stop = stop_signal();
        tokio::select! {
            reports = crate::compare::run_all(entries, jobs) => Some(reports),
            () = stop => None,
        }
    });
    let Some(reports) = outcome else {
        return interrupted();
    };
    drop(runtime);
    let reports: Vec<Report> = reports
        .into_iter()
        .zip(&secrets)
        .map(|(r, s)| r.redacted(s))
        .collect();
    let matrix = crate::compare::build(names, reports);
    let mut json_to_stdout = false;
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&matrix).expect("serializable") + "\n";
        if path.as_os_str() == "-" {
            json_to_stdout = true;
            emit(&json);
        } else if let Err(e) = write_file(path, &json) {
            return usage(e);
        }
    }
    for (path, text) in [
        (
            &args.markdown,
            crate::compare::render::markdown as fn(&_) -> String,
        ),
        (&args.html, crate::compare::render::html),
    ] {
        if let Some(path) = path {
            if let Err(e) = write_file(path, &text(&matrix)) {
                return usage(e);
            }
        }
    }
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(120);
    let table = crate::compare::render::terminal(&matrix, width);
    if json_to_stdout {
        eprint!("{table}");
    } else {
        emit(&table);
    }
    ExitCode::from(crate::compare::exit_code(&matrix.reports))
}
