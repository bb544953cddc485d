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
use super::records::{CaseRecord, Records};
use super::settings::Settings;
use super::PlanCounts;
use crate::generate::knob::Knob;
use crate::terms::Level;
use std::time::Duration;

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
    /// The run's verdict, derived from the fields above once, when a
    /// report first asks for it ([`Run::verdict`]); a new run has
    /// `VerdictCell::default()`.
    pub verdict: VerdictCell,
}

impl Run<'_> {
    /// Whether the run passed: every level, and it was not stopped
    /// ([`RunVerdict::passed`]).
    pub fn passed(&self) -> bool {
        self.verdict().passed
    }

    /// The run's verdict, which every report renders: derived on the
    /// first call ([`RunVerdict::of`]) and kept.
    pub fn verdict(&self) -> &RunVerdict {
        self.verdict.0.get_or_init(|| RunVerdict::of(self))
    }
}

/// Where a [`Run`] keeps its [`RunVerdict`] once derived ([`Run::verdict`]).
#[derive(Debug, Default)]
pub struct VerdictCell(std::sync::OnceLock<RunVerdict>);

/// The verdict of a run, derived once from its records, grade and
/// collection ([`RunVerdict::of`]) and rendered alike by the text, JSON,
/// JUnit and HTML reports: whether it passed, each level, the failing
/// cases, the first defect (or difference from the policy) and the hints.
/// A new fact of the verdict is a field here, and each report renders it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunVerdict {
    /// Whether the run passed: every level, and the run did not stop
    /// feeding an unanswering reducer (spec §8.5).
    pub passed: bool,
    /// Each level, in report order (protocol, safety, policy, exact).
    pub levels: Vec<LevelVerdict>,
    /// Cases judged that failed some clause, on any input.
    pub failing: usize,
    /// Of [`RunVerdict::failing`], those on an input that breaks a
    /// validator rule (robustness, spec §9.2).
    pub failing_invalid: usize,
    /// The first [`text::SHOWN`] failing cases on a valid input, in case
    /// order.
    pub shown: Vec<CaseRecord>,
    /// The first [`text::SHOWN_INVALID`] failing cases on an invalid
    /// input, in case order.
    pub shown_invalid: Vec<CaseRecord>,
    /// The first defect, or with none the first difference from the
    /// policy (spec §9.3), in the order the cases finished.
    pub first: FirstFailure,
    /// What the answers suggest to change or declare, each without the
    /// text report's `hint: ` ([`text::hints`]).
    pub hints: Vec<String>,
}

/// The first case that failed, as the reports name it: its id and the
/// time from the run's start until it was judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FirstFailure {
    /// The first defect: a protocol or safety clause failed on a valid
    /// input (spec §9.2, §9.3).
    Defect(String, Duration),
    /// No defect; the first case whose policy or exact clauses failed on a
    /// valid input: a difference from the policy (spec §9.3).
    Difference(String, Duration),
    /// No case failed on a valid input.
    None,
}

/// How one level came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelVerdict {
    /// The level.
    pub level: Level,
    /// It and every level below it passed ([`Grade::levels`]).
    pub passed: bool,
    /// Some case judged a clause of it ([`Grade::judged`]).
    pub judged: bool,
    /// A clause of its own failed on a valid input (else a failed level
    /// failed because a level below it did, spec §9).
    pub own_defect: bool,
}

impl LevelVerdict {
    /// Whether it passed only vacuously: no case judged a clause of it.
    pub fn not_judged(&self) -> bool {
        self.passed && !self.judged
    }
}

impl RunVerdict {
    /// Derives the verdict of `run` (see [`RunVerdict`]); [`Run::verdict`]
    /// keeps it.
    pub fn of(run: &Run) -> RunVerdict {
        let g = run.grade;
        let levels = g
            .levels
            .iter()
            .map(|&(level, passed)| LevelVerdict {
                level,
                passed,
                judged: g.judged(level),
                own_defect: g
                    .clauses
                    .iter()
                    .any(|(c, t)| c.level() == level && t.defects > 0),
            })
            .collect();
        let (mut failing, mut failing_invalid) = (0, 0);
        let mut shown: Vec<CaseRecord> = Vec::new();
        let mut shown_invalid: Vec<CaseRecord> = Vec::new();
        for r in run.results.iter() {
            if !r.failed() || r.skipped().is_some() {
                continue;
            }
            failing += 1;
            if !r.valid_input() {
                failing_invalid += 1;
                if shown_invalid.len() < text::SHOWN_INVALID {
                    shown_invalid.push(r);
                }
            } else if shown.len() < text::SHOWN {
                shown.push(r);
            }
        }
        let first = match (run.first_defect, run.first_difference) {
            (Some((case, t)), _) => FirstFailure::Defect(case.to_string(), t),
            (None, Some((case, t))) => FirstFailure::Difference(case.to_string(), t),
            (None, None) => FirstFailure::None,
        };
        RunVerdict {
            passed: g.passed() && run.gave_up.is_none(),
            levels,
            failing,
            failing_invalid,
            shown,
            shown_invalid,
            first,
            hints: text::hints(run),
        }
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
    let levels = &run.verdict().levels;
    let passed: Vec<&str> = levels
        .iter()
        .filter(|l| l.passed && l.judged)
        .map(|l| l.level.name())
        .collect();
    let unjudged: Vec<&str> = levels
        .iter()
        .filter(|l| !l.judged)
        .map(|l| l.level.name())
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
