//! Reports of a certification run, each a rendering of the same records
//! ([`Run`]): [`text`] (what `certify` prints), [`json`] (`--report-json`)
//! and [`junit`] (`--report-junit`), plus the [`certificate`] line they
//! share.

pub mod json;
pub mod junit;
pub mod text;

use super::counterexample::Counterexample;
use super::grade::Grade;
use super::known_failures::KnownFailureCheck;
use super::run::{CaseResult, Settings};
use crate::case::SPEC_VERSION;

/// Everything a report renders.
#[derive(Debug)]
pub struct Run<'a> {
    /// How the reducer was run.
    pub settings: &'a Settings,
    /// The seed of the generated cases, when there were any.
    pub seed: Option<u64>,
    /// One record per case.
    pub results: &'a [CaseResult],
    /// The graded verdict.
    pub grade: &'a Grade,
    /// Minimal counterexamples.
    pub counterexamples: &'a [Counterexample],
    /// Known failures compared with the run.
    pub known_failures: &'a KnownFailureCheck,
}

/// The certificate line: kit version, spec version, policy, format, levels
/// passed, cases run and seed.
pub fn certificate(run: &Run) -> String {
    let passed: Vec<&str> = run
        .grade
        .levels
        .iter()
        .filter(|(_, ok)| *ok)
        .map(|(l, _)| l.name())
        .collect();
    format!(
        "certificate: reducer-kit {} spec v{SPEC_VERSION} policy {} format {}: levels passed [{}]; {} cases run, {} skipped; seed {}",
        env!("CARGO_PKG_VERSION"),
        run.settings.policy,
        run.settings.format,
        passed.join(", "),
        run.grade.cases_run,
        run.grade.cases_skipped,
        run.seed.map_or("none".to_string(), |s| s.to_string())
    )
}
