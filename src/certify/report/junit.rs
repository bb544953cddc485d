//! The JUnit XML report (`--report-junit FILE`): one test suite per
//! level, one test case per (case, level). Only what decides a level is a
//! failure: a failure on invalid input (spec §9.2) is written as skipped,
//! with why, so a passing run reports `failures="0"`.

use super::Run;
use crate::terms::Level;

/// The run as JUnit XML (`--report-junit`): one test suite per level, one
/// test case per (case, level), failing with the clauses that failed; on
/// an input that breaks a validator rule (spec §9.2) those clauses decide
/// nothing, and the test case is `<skipped>` with the message
/// `invalid input (decides no level, spec §9.2): CLAUSE: DETAIL`. The
/// hints the answers call for ([`super::text::hints`]) are the `protocol`
/// suite's `<system-out>`, a `hint: ` line each.
pub fn to_junit(run: &Run) -> String {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new(format!(
        "reducer-kit certify ({} policy, {} format)",
        run.settings.policy, run.settings.format
    ));
    let hints = &run.verdict().hints;
    for level in [Level::Protocol, Level::Safety, Level::Policy, Level::Exact] {
        let mut suite = TestSuite::new(level.name());
        if level == Level::Protocol && !hints.is_empty() {
            // What the answers suggest ([`super::text::hints`]), where a CI
            // view shows a suite's output.
            let lines: Vec<String> = hints.iter().map(|h| format!("hint: {h}")).collect();
            suite.set_system_out(lines.join("\n"));
        }
        for r in run.results.iter() {
            let status = if let Some(why) = r.skipped() {
                let mut s = TestCaseStatus::skipped();
                s.set_message(why);
                s
            } else {
                let failed: Vec<String> = r
                    .failures
                    .iter()
                    .filter(|(c, _)| c.level() == level)
                    .map(|(c, d)| format!("{c}: {d}"))
                    .collect();
                if failed.is_empty() {
                    TestCaseStatus::success()
                } else if !r.valid_input() {
                    let mut s = TestCaseStatus::skipped();
                    s.set_message(format!(
                        "invalid input (decides no level, spec §9.2): {}",
                        failed.first().cloned().unwrap_or_default()
                    ));
                    s.set_description(failed.join("\n"));
                    s
                } else {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(failed.first().cloned().unwrap_or_default());
                    s.set_description(failed.join("\n"));
                    s
                }
            };
            let mut tc = TestCase::new(r.id.clone(), status);
            tc.set_classname(format!("{}.{}", run.settings.policy, level.name()));
            if !r.stderr_tail.is_empty() && r.failed() {
                tc.set_system_err(r.stderr_tail.clone());
            }
            suite.add_test_case(tc);
        }
        report.add_test_suite(suite);
    }
    report.to_string().unwrap_or_default()
}
