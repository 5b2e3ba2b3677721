//! CI annotations: every failure and warning as a GitHub Actions workflow command
//! (`::error title=<check id>::…`, `::warning …`), which GitHub shows on the run's summary page
//! and beside the pull request. What the server chose reaches them only with its control
//! characters written out ([`safe`]), and the command syntax's own characters escaped, so a
//! server cannot end an annotation early or issue a workflow command of its own.

use super::{safe, CheckResult, Report};
use crate::record::Status;

/// The workflow commands for a report: one per failure, harness error and warning, in the
/// report's order, each a line.
pub fn github(report: &Report) -> String {
    let mut out = String::new();
    for check in &report.checks {
        let command = match check.status {
            Status::Fail | Status::Error => "error",
            Status::Warn => "warning",
            Status::NotTestable | Status::Info | Status::Skip | Status::Pass => continue,
        };
        out.push_str(&format!(
            "::{command} title={}::{}\n",
            property(&format!("{} ({})", check.name(), check.level)),
            data(&message(check))
        ));
    }
    if let Some(fatal) = &report.fatal {
        out.push_str(&format!(
            "::error title=mcpcheck::{}\n",
            data(&safe::terminal(fatal))
        ));
    }
    out
}

/// What an annotation says: the requirement, what happened, what was expected and got, and the
/// spec link.
fn message(check: &CheckResult) -> String {
    let mut text = format!("{} — {}", check.title, safe::terminal(&check.message));
    text.push_str(&format!("\nexpected: {}", check.expected));
    if let Some(actual) = &check.actual {
        text.push_str(&format!("\nactual: {}", safe::terminal(actual)));
    }
    if let Some(spec) = check.spec.first() {
        text.push_str(&format!("\nspec: {}", spec.url));
    }
    text
}

/// Escapes an annotation's message (the part after `::`).
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`title=`): also the separators of the properties.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_syntax_cannot_be_forged() {
        assert_eq!(data("50%\r\n::set-env"), "50%25%0D%0A::set-env");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
    }
}
