//! JUnit XML: one testsuite per area, one testcase per check. fail → failure, error → error,
//! skip and not-testable → skipped with the reason, warn → passed with a note (a failure under
//! `--strict`); baseline-expected failures are skipped, stale baseline entries are failures.

use std::collections::BTreeMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report as JUnitReport, TestCase, TestCaseStatus, TestSuite};

use super::grade::Mark;
use super::{safe, CheckResult, Report};
use crate::record::Status;

/// Renders the report as JUnit XML. Server text has its control characters written out first
/// ([`safe::visible`]), so the XML stays valid XML 1.0 whatever the server sent.
pub fn render(report: &Report) -> String {
    let report = &safe::map_report(report, &safe::visible);
    let marks = report.marks();
    let marks = &marks;
    let mut junit = JUnitReport::new("mcpcheck");
    let mut suites: BTreeMap<&str, Vec<&CheckResult>> = BTreeMap::new();
    for check in &report.checks {
        suites.entry(&check.area).or_default().push(check);
    }
    if let Some(fatal) = &report.fatal {
        let mut suite = TestSuite::new("mcpcheck");
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(fatal.as_str());
        suite.add_test_case(TestCase::new("server-testable", status));
        junit.add_test_suite(suite);
    }
    for (area, checks) in suites {
        let mut suite = TestSuite::new(area);
        for check in checks {
            let mark = super::grade::mark_of(marks, &check.name());
            let strict = report.grading.as_ref().is_some_and(|g| g.strict);
            let mut case = TestCase::new(check.name().as_str(), status(check, mark, strict));
            case.set_classname(format!("mcpcheck.{area}"));
            if let Some(ms) = check.evidence.iter().filter_map(|e| e.elapsed_ms).max() {
                case.set_time(Duration::from_millis(ms));
            }
            let mut out = format!(
                "{} ({}{})\n{}\nexpected: {}\n",
                check.title,
                check.level,
                if check.derived { ", derived" } else { "" },
                check.message,
                check.expected
            );
            if let Some(actual) = &check.actual {
                out.push_str(&format!("actual: {actual}\n"));
            }
            if let Some(note) = &check.note {
                out.push_str(&format!("note: {note}\n"));
            }
            for spec in &check.spec {
                out.push_str(&format!("spec: {}\n", spec.url));
            }
            out.push_str(&format!("source: {}\n", check.source));
            for evidence in &check.evidence {
                if let Some(sent) = &evidence.sent {
                    out.push_str(&format!("sent ({}): {sent}\n", evidence.label));
                }
                if let Some(received) = &evidence.received {
                    out.push_str(&format!("received: {received}\n"));
                }
                if let Some(remark) = &evidence.remark {
                    out.push_str(&format!("remark: {remark}\n"));
                }
            }
            case.set_system_out(out);
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    junit.to_string().expect("JUnit serializes")
}

fn status(check: &CheckResult, mark: Mark, strict: bool) -> TestCaseStatus {
    let with = |mut status: TestCaseStatus, message: String| {
        status.set_message(message);
        status
    };
    match (mark, check.status) {
        (Mark::Stale, _) => with(
            TestCaseStatus::non_success(NonSuccessKind::Failure),
            format!(
                "stale baseline entry: {} now passes; remove it from the baseline",
                check.name()
            ),
        ),
        (Mark::Expected, _) => with(
            TestCaseStatus::skipped(),
            format!("expected failure (baseline): {}", check.message),
        ),
        (Mark::Ungraded, Status::Fail | Status::Warn) => with(
            TestCaseStatus::skipped(),
            format!("not graded by this profile: {}", check.message),
        ),
        (_, Status::Fail) => with(
            TestCaseStatus::non_success(NonSuccessKind::Failure),
            check.message.clone(),
        ),
        (_, Status::Warn) if strict => with(
            TestCaseStatus::non_success(NonSuccessKind::Failure),
            format!("warning (--strict): {}", check.message),
        ),
        (_, Status::Error) => with(
            TestCaseStatus::non_success(NonSuccessKind::Error),
            check.message.clone(),
        ),
        (_, Status::Skip) => with(
            TestCaseStatus::skipped(),
            format!("not applicable: {}", check.message),
        ),
        (_, Status::NotTestable) => with(
            TestCaseStatus::skipped(),
            format!("not testable: {}", check.message),
        ),
        (_, Status::Pass | Status::Info | Status::Warn) => TestCaseStatus::success(),
    }
}
