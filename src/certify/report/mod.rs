//! Reports of a certification run, each a rendering of the same records
//! ([`Run`]): [`text`] (what `certify` prints), [`json`] (`--report-json`),
//! [`junit`] (`--report-junit`) and [`html`] (`--report-html`), plus the
//! [`certificate`] line they share.

pub mod html;
pub mod json;
pub mod junit;
pub mod text;

use super::collect::{GaveUp, GroupsAtCut};
use super::counterexample::Counterexample;
use super::exchange::Restarts;
use super::grade::Grade;
use super::known_failures::KnownFailureCheck;
use super::records::Records;
use super::settings::Settings;
use super::PlanCounts;
use crate::generate::knob::Knob;

/// Everything a report renders.
#[derive(Debug)]
pub struct Run<'a> {
    /// How the reducer was run.
    pub settings: &'a Settings,
    /// The seed of the generated cases, when there were any.
    pub seed: Option<u64>,
    /// One record per case that ran to its end, in case order.
    pub results: &'a Records,
    /// The graded verdict.
    pub grade: &'a Grade,
    /// Minimal counterexamples.
    pub counterexamples: &'a [Counterexample],
    /// Known failures compared with the run.
    pub known_failures: &'a KnownFailureCheck,
    /// The reducer restarts (persistent mode).
    pub restarts: Restarts,
    /// Set when the run was stopped by a signal before its end (spec
    /// §8.7): then only the text report is made, without a certificate.
    pub interrupted: Option<Interruption>,
    /// How the planned cases add up (corpus, generated, duplicates and
    /// `--without` skips).
    pub plan: PlanCounts,
    /// The knobs turned off (`--without`), recorded in the certificate.
    pub without: &'a [Knob],
    /// The shapes outside the run run all the same (`--with`, spec §9.5),
    /// recorded in the certificate.
    pub with: &'a [Knob],
    /// Set when the run stopped feeding a reducer that answered nothing
    /// (spec §8.5): the cases after were not run, and the run fails.
    pub gave_up: Option<&'a GaveUp>,
    /// The cases where the newest messages that fit split a call group,
    /// and those whose answer kept every group whole: when none did, the
    /// reducer reads no tool calls in the run's format (the text report's
    /// hint).
    pub groups_at_cut: GroupsAtCut,
    /// The run's first defect (a protocol or safety clause failed on a
    /// valid input, spec §9.2, §9.3) in the order the cases finished: its
    /// case id, and the time from the run's start until it was judged.
    pub first_defect: Option<(&'a str, std::time::Duration)>,
    /// The run's first difference from the policy (only policy or exact
    /// clauses failed on a valid input, spec §9.3), as `first_defect`.
    pub first_difference: Option<(&'a str, std::time::Duration)>,
    /// Set when the run stopped at its first defect (`--stop-after-first`)
    /// before every case ran: how many cases were not run.
    pub stopped_at_first_defect: Option<usize>,
}

impl Run<'_> {
    /// Whether the run passed: every level, and it was not stopped.
    pub fn passed(&self) -> bool {
        self.grade.passed() && self.gave_up.is_none()
    }
}

/// A run stopped by a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interruption {
    /// The signal (`libc::SIGINT`, `libc::SIGTERM`).
    pub signal: i32,
    /// How many cases the run was to run.
    pub planned: usize,
}

/// The spec version a run judges against, as the certificate line and the
/// JSON report's `spec` name it: the newest the run relies on, the runner
/// protocol's (1 or 2), 2 for a format of spec §14, a provider profile
/// (§15), summaries (§12), a declaration (§16) or policy `repair` (§17),
/// else 1.
pub fn spec_version(settings: &Settings) -> u32 {
    [
        settings.protocol.number(),
        settings.format.spec(),
        if settings.provider.is_some()
            || settings.summaries
            || !settings.declared.is_empty()
            || !settings.policy.has_budget()
        {
            2
        } else {
            1
        },
    ]
    .into_iter()
    .max()
    .unwrap_or(1)
}

/// The certificate line: kit version, spec version ([`spec_version`]), policy, format (and
/// `with summaries`), the declarations (spec §16), levels passed, cases
/// run, skipped (of them unsupported by the reducer, spec §13.7) and
/// seed, and the knobs of `--with` and `--without` when any.
pub fn certificate(run: &Run) -> String {
    let passed: Vec<&str> = run
        .grade
        .levels
        .iter()
        .filter(|(l, ok)| *ok && run.grade.judged(*l))
        .map(|(l, _)| l.name())
        .collect();
    let unjudged: Vec<&str> = run
        .grade
        .unjudged_levels()
        .into_iter()
        .map(|l| l.name())
        .collect();
    let unjudged = if unjudged.is_empty() {
        String::new()
    } else {
        format!(" (not judged: {})", unjudged.join(", "))
    };
    let provider = run
        .settings
        .provider
        .map_or(String::new(), |p| format!(" provider {p}"));
    let declared = &run.settings.declared;
    let declared = if declared.is_empty() {
        String::new()
    } else {
        format!(" declares {declared}")
    };
    let unsupported = match run.grade.cases_unsupported {
        0 => String::new(),
        n => format!(" ({n} unsupported by the reducer)"),
    };
    format!(
        "certificate: reducer-kit {} spec v{} policy {} format {}{provider}{}{declared}: levels passed [{}]{unjudged}; {} cases run, {} skipped{unsupported}; seed {}",
        env!("CARGO_PKG_VERSION"),
        spec_version(run.settings),
        run.settings.policy,
        run.settings.format,
        if run.settings.summaries {
            " with summaries"
        } else {
            ""
        },
        passed.join(", "),
        run.grade.cases_run,
        run.grade.cases_skipped,
        run.seed.map_or("none".to_string(), |s| s.to_string())
    ) + &knobs_text("with", run.with)
        + &knobs_text("without", run.without)
}

/// `; with a,b` (`; without a,b`) for the certificate, or nothing.
fn knobs_text(what: &str, knobs: &[Knob]) -> String {
    if knobs.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = knobs.iter().map(|k| k.name()).collect();
        format!("; {what} {}", names.join(","))
    }
}

/// `n` with a comma between thousands: `1,970`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// How the planned cases add up, one line: `1,970 cases: 76 corpus +
/// 1,894 generated, 106 generated duplicates dropped` (duplicates only when
/// there were any).
pub fn plan_line(plan: &PlanCounts) -> String {
    let mut line = format!(
        "{} cases: {} corpus + {} generated",
        thousands(plan.listed + plan.generated),
        thousands(plan.listed),
        thousands(plan.generated)
    );
    if plan.listed_duplicates > 0 {
        line += &format!(
            ", {} corpus duplicates dropped",
            thousands(plan.listed_duplicates)
        );
    }
    if plan.generated_duplicates > 0 {
        line += &format!(
            ", {} generated duplicates dropped",
            thousands(plan.generated_duplicates)
        );
    }
    line
}
