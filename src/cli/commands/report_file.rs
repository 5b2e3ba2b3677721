//! The subcommands that read a saved JSON report: `baseline`, `repro` and `merge`.

use std::process::ExitCode;

use super::{emit, finish, usage};
use crate::cli;
use crate::report::grade::{Baseline, Grading};
use crate::report::{self, Report};

/// Prints a baseline file that accepts the report's failures and warnings.
pub(super) fn baseline(args: &cli::BaselineArgs) -> ExitCode {
    let report = match Report::read(&args.report) {
        Ok(report) => report,
        Err(e) => return usage(e),
    };
    emit(&Baseline::from_report(&report).to_toml());
    ExitCode::SUCCESS
}

/// `mcpcheck repro`: the script that replays a check's exchanges.
pub(super) fn repro(args: &cli::ReproArgs) -> ExitCode {
    use crate::report::repro::{self, Start};
    let report = match Report::read(&args.report) {
        Ok(report) => report,
        Err(e) => return usage(e),
    };
    let check = match repro::find(&report, &args.check) {
        Ok(check) => check,
        Err(e) => return usage(e),
    };
    let scenarios = match cli::load_scenarios(&args.scenarios) {
        Ok(scenarios) => scenarios,
        Err(e) => return usage(e),
    };
    // A scenario on a bare connection sends its own frames from the start.
    let bare = check.bare_session
        || scenarios.iter().any(|s| {
            s.session == crate::scenario::SessionKind::Bare
                && s.checks.iter().any(|c| c.def.id == check.id)
        });
    let start = if bare {
        Start::Nothing
    } else {
        Start::Handshake
    };
    match repro::script(&report, check, start) {
        Ok(script) => {
            emit(&script);
            ExitCode::SUCCESS
        }
        Err(e) => usage(e),
    }
}

/// Merges the shard reports of one target into one report, then grades and renders it.
pub(super) fn merge(args: &cli::MergeArgs) -> ExitCode {
    let mut reports = Vec::new();
    for path in &args.reports {
        match Report::read(path) {
            Ok(report) => reports.push(report),
            Err(e) => return usage(e),
        }
    }
    let (strict, baseline, profile) = match args.grading.resolve() {
        Ok(resolved) => resolved,
        Err(e) => return usage(e),
    };
    let mut report = match report::merge::merge(reports) {
        Ok(report) => report,
        Err(e) => return usage(e),
    };
    let derived_warn = args.grading.derived == Some(cli::DerivedArg::Warn);
    if derived_warn {
        report::grade::derived_as_warnings(&mut report);
    }
    let mut grading = Grading::apply(
        &report,
        profile,
        strict,
        baseline.as_ref().map(|(b, p)| (b, p.clone())),
    );
    grading.derived_as_warnings = derived_warn;
    report.grading = Some(grading);
    finish(&report, &args.output, args.quiet, false)
}
