//! A certification as one value: [`Options`] (what a run is asked to do,
//! as plain values: the command line fills them from its flags, a binding
//! from its arguments) resolved once into a [`Job`] (how the reducer runs,
//! where the cases come from, how failures are shrunk), which runs the
//! whole battery ([`Job::run`]: the cases, the shrinking, the grade) and
//! gives a [`Certified`] that the reports render ([`Certified::report`]).
//!
//! Every rule that ties options together lives here, not in the command
//! line: `--summaries` needs protocol 2 (spec §13.2), `--declare` is read
//! and checked (spec §16), `system-first-only` skips the
//! `pinned-not-first` shape (spec §16.6), `repairs=` skips the broken
//! histories outside a sanitizer's scope (spec §17.8), a reducer that
//! answered nothing is not shrunk against (spec §8.5).

use super::collect::{run_cases_with, Collected, FailureGroup};
use super::counterexample::{counterexamples, Counterexample, ShrinkLimits, ShrinkProgress};
use super::exchange::RunError;
use super::grade::{grade_clauses, Grade};
use super::known_failures::{compare_known_failures, KnownFailure, KnownFailureCheck};
use super::process::{Limits, Reducer};
use super::report::{Interruption, Run};
use super::run::CaseList;
use super::settings::{Sessions, Settings};
use super::{CasePlan, Shard, SourceError, Sources};
use crate::formats::Format;
use crate::generate::knob::{self, parse_knobs, Knob};
use crate::input::DEFAULT_MAX_INPUT;
use crate::protocol::Protocol;
use crate::terms::{Declared, Policy, Provider};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;
#[cfg(not(target_arch = "wasm32"))]
use std::time::Instant;
#[cfg(target_arch = "wasm32")]
use web_time::Instant;

/// What a certification run is asked to do, field for field `certify`'s
/// options (`reducer-kit certify --help`); [`Options::default`] is the
/// command line's defaults with no reducer command.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The reducer command and its arguments (run directly, never through
    /// a shell).
    pub command: Vec<OsString>,
    /// The policy the reducer claims (`--policy`).
    pub policy: Policy,
    /// Its wire format (`--format`).
    pub format: Format,
    /// The provider profile it claims to honour (`--provider`).
    pub provider: Option<Provider>,
    /// The runner protocol it speaks (`--protocol`).
    pub protocol: Protocol,
    /// Summaries allowed (`--summaries`, protocol 2 only).
    pub summaries: bool,
    /// The declarations, comma-separated (`--declare`, spec §16).
    pub declare: String,
    /// The generator knobs to skip, comma-separated (`--without`).
    pub without: String,
    /// The shapes outside the run to run all the same, comma-separated
    /// (`--with`; spec §9.5, [`knob::outside`]).
    pub with: String,
    /// The reducer is a function of the caller's process (a binding's
    /// `certify(fn)`, spec §8.12): usage errors say "in-process run".
    pub in_process: bool,
    /// Time limit per request (`--timeout`).
    pub timeout: Duration,
    /// Start-up allowance of a new persistent process (`--startup-timeout`).
    pub startup_timeout: Duration,
    /// Largest accepted answer in bytes (`--max-output`).
    pub max_output: usize,
    /// One long-lived process per worker (`--persistent`).
    pub persistent: bool,
    /// Workers (`--jobs`); `None`: the number of cores.
    pub jobs: Option<usize>,
    /// Case folders (`--corpus`); none: the kit's own corpus.
    pub corpus: Vec<PathBuf>,
    /// Case files to run instead (`--replay`).
    pub replay: Vec<PathBuf>,
    /// Generated cases besides the corpus (`--cases`).
    pub generated: u64,
    /// Their seed (`--seed`).
    pub seed: u64,
    /// Only these case ids (`--case`).
    pub only: Vec<String>,
    /// One shard of the cases (`--shard`).
    pub shard: Option<Shard>,
    /// Largest case file read, in bytes (`--max-input`).
    pub max_input: u64,
    /// Candidate runs per failure when shrinking (`--shrink-tries`).
    pub shrink_tries: usize,
    /// Time for all the shrinking of the run (`--shrink-time`).
    pub shrink_time: Duration,
    /// Stop at the first defect (`--stop-after-first`): no case is begun
    /// once a case has failed a clause on a valid input; that failure is
    /// shrunk and reported. A run with no defect runs every case.
    pub stop_after_first: bool,
}

impl Default for Options {
    /// `certify`'s defaults: policy `turns`, canonical, protocol 1, 10 s
    /// per request, 60 s of start-up, 16 MiB answers, per-case mode, the
    /// kit's corpus and 2,000 generated cases of seed 1, 200 shrinking
    /// tries in 30 s.
    fn default() -> Options {
        let limits = Limits::default();
        Options {
            command: Vec::new(),
            policy: Policy::Turns,
            format: Format::Canonical,
            provider: None,
            protocol: Protocol::V1,
            summaries: false,
            declare: String::new(),
            without: String::new(),
            with: String::new(),
            in_process: false,
            timeout: limits.timeout,
            startup_timeout: limits.startup_timeout,
            max_output: limits.max_output,
            persistent: false,
            jobs: None,
            corpus: Vec::new(),
            replay: Vec::new(),
            generated: 2000,
            seed: 1,
            only: Vec::new(),
            shard: None,
            max_input: DEFAULT_MAX_INPUT,
            shrink_tries: 200,
            shrink_time: Duration::from_secs(30),
            stop_after_first: false,
        }
    }
}

/// Options that do not go together, or that the kit cannot read. Its text
/// names the option (`--declare: unknown declaration "x"; ...`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OptionsError(pub String);

/// A certification resolved from its [`Options`] once.
#[derive(Clone, Debug)]
pub struct Job {
    /// How the reducer is run and judged.
    pub settings: Settings,
    /// Where the cases come from (with the shapes `system-first-only`
    /// skips among the knobs turned off).
    pub sources: Sources,
    /// The knobs of `--without`, as given (what the certificate names).
    pub without: Vec<Knob>,
    /// The knobs of `--with`, as given (what the certificate names).
    pub with: Vec<Knob>,
    /// Candidate runs per failure when shrinking.
    pub shrink_tries: usize,
    /// Time for all the shrinking.
    pub shrink_time: Duration,
    /// Whether the run stops at its first defect (`--stop-after-first`).
    pub stop_after_first: bool,
}

impl Options {
    /// The [`Job`] these options ask for: the declarations and knobs read,
    /// the reducer given a run id, every rule between options checked.
    ///
    /// # Errors
    ///
    /// [`OptionsError`] for `--summaries` without protocol 2 or under
    /// `repair`, an unknown or conflicting declaration, `complete-calls`
    /// for a policy other than `repair`, an unknown knob, or `placeholder`
    /// in a summaries run.
    pub fn resolve(&self) -> Result<Job, OptionsError> {
        if self.summaries && self.protocol != Protocol::V2 {
            return Err(OptionsError("--summaries needs --protocol 2".into()));
        }
        let without =
            parse_knobs(&self.without).map_err(|e| OptionsError(format!("--without: {e}")))?;
        let with = parse_knobs(&self.with).map_err(|e| OptionsError(format!("--with: {e}")))?;
        // What the run leaves out (spec §9.5), but what --with names.
        let default_outside = knob::outside(self.format, self.provider);
        for k in &with {
            if without.contains(k) {
                return Err(OptionsError(format!("--with {k}: --without names it too")));
            }
            if !default_outside.contains(k) {
                let names: Vec<&str> = default_outside.iter().map(|k| k.name()).collect();
                return Err(OptionsError(format!(
                    "--with {k}: a default {}{} run has it already; --with names what one leaves out: {}",
                    if self.in_process { "in-process " } else { "" },
                    self.format,
                    names.join(", ")
                )));
            }
        }
        let outside: Vec<Knob> = default_outside
            .into_iter()
            .filter(|k| !with.contains(k))
            .collect();
        let declared =
            Declared::parse(&self.declare).map_err(|e| OptionsError(format!("--declare: {e}")))?;
        if self.policy == Policy::Repair && self.summaries {
            return Err(OptionsError(
                "--summaries: a repair keeps what is whole and summarizes nothing (spec §17.1)"
                    .into(),
            ));
        }
        if declared.complete_calls && self.policy != Policy::Repair {
            return Err(OptionsError(
                "--declare complete-calls: only a repair (--policy repair) completes calls (spec §17.4)".into(),
            ));
        }
        if declared.placeholder && self.summaries {
            return Err(OptionsError(
                "--declare placeholder: a summaries run tells a summary from input messages, and a placeholder could not be told from it".into(),
            ));
        }
        if declared.repairs != 0 && self.policy != Policy::Repair {
            return Err(OptionsError(
                "--declare repairs=: only a repair (--policy repair) claims kinds of broken history (spec §17.8)".into(),
            ));
        }
        let sources = Sources {
            replay: self.replay.clone(),
            corpus: self.corpus.clone(),
            generated: self.generated,
            seed: self.seed,
            only: self.only.clone(),
            shard: self.shard,
            format: self.format,
            without: Vec::new(),
            scope: super::repair_scope(&declared),
            declared,
            outside: outside.clone(),
            protocol: self.protocol,
            policy: self.policy,
            max_input: self.max_input,
        };
        let settings = Settings {
            reducer: Reducer::new(self.command.clone()),
            format: self.format,
            policy: self.policy,
            provider: self.provider,
            limits: Limits {
                timeout: self.timeout,
                startup_timeout: self.startup_timeout,
                max_output: self.max_output,
                ..Limits::default()
            },
            persistent: self.persistent,
            extra_requests: true,
            protocol: self.protocol,
            summaries: self.summaries,
            declared,
            without: without.clone(),
            outside,
            jobs: self
                .jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
                .max(1),
            sessions: None,
        };
        // What the declarations leave out besides --without (spec §16.6,
        // §17.8): not generated, and cases that show it are skipped.
        let sources = Sources {
            without: settings.excluded_knobs(),
            ..sources
        };
        Ok(Job {
            settings,
            sources,
            without,
            with,
            shrink_tries: self.shrink_tries,
            shrink_time: self.shrink_time,
            stop_after_first: self.stop_after_first,
        })
    }
}

/// What a caller watches while a [`Job`] runs: cases done, then the
/// shrinking of each failure. Every method does nothing by default.
pub trait Watch: Sync {
    /// `done` cases of the run have finished, `failing` of them failing
    /// a clause.
    fn cases_done(&self, done: usize, failing: usize) {
        let _ = (done, failing);
    }
    /// Shrinking begins, of the failures of `failures` that are shown
    /// ([`super::counterexample::shown`]).
    fn shrinking(&self, failures: &[FailureGroup]) {
        let _ = failures;
    }
    /// Failure `index` of the list [`Watch::shrinking`] got is where
    /// `progress` says.
    fn shrunk(&self, index: usize, progress: &ShrinkProgress) {
        let _ = (index, progress);
    }
    /// Shrinking is over (after `took`), with these counterexamples.
    fn shrinking_done(&self, counterexamples: &[Counterexample], took: Duration) {
        let _ = (counterexamples, took);
    }
}

/// A [`Watch`] that watches nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unwatched;

impl Watch for Unwatched {}

/// What a [`Job`] gave: the records and failures of the run, the
/// counterexamples, the grade and the known failures compared.
#[derive(Debug)]
pub struct Certified {
    /// The run's records, failures, restarts and how it ended.
    pub collected: Collected,
    /// The minimal counterexamples (none when the run was interrupted).
    pub counterexamples: Vec<Counterexample>,
    /// The per-clause tallies and the levels.
    pub grade: Grade,
    /// The run's failures against the known ones.
    pub known: KnownFailureCheck,
    /// The signal that stopped the run, if one did (spec §8.7).
    pub interrupted: Option<i32>,
}

impl Certified {
    /// Whether the run fails: a failure on a valid input that is not
    /// known, a run stopped because the reducer answered nothing, or (with
    /// `strict`) a known failure that passes now.
    pub fn failed(&self, strict: bool) -> bool {
        self.known.unexpected > 0
            || self.collected.gave_up.is_some()
            || (strict && !self.known.now_passing.is_empty())
    }

    /// The run as the reports render it ([`super::report`]).
    pub fn report<'a>(&'a self, job: &'a Job, plan: &CasePlan) -> Run<'a> {
        Run {
            settings: &job.settings,
            seed: job.sources.report_seed(),
            results: &self.collected.records,
            grade: &self.grade,
            counterexamples: &self.counterexamples,
            known_failures: &self.known,
            restarts: self.collected.restarts,
            interrupted: self.interrupted.map(|signal| Interruption {
                signal,
                planned: self.collected.planned,
            }),
            plan: plan.counts,
            without: &job.without,
            with: &job.with,
            gave_up: self.collected.gave_up.as_ref(),
            groups_at_cut: self.collected.groups_at_cut,
            first_defect: self
                .collected
                .first_defect
                .as_ref()
                .map(|(id, t)| (id.as_str(), *t)),
            first_difference: self
                .collected
                .first_difference
                .as_ref()
                .map(|(id, t)| (id.as_str(), *t)),
            stopped_at_first_defect: self.collected.stopped_at_first_defect,
            verdict: Default::default(),
        }
    }
}

impl Job {
    /// The job with an in-process reducer in place of its command: every
    /// session of the run, and of its shrinking, is `make(settings)`
    /// ([`Sessions`]; an [`InProcessSession`](super::session::InProcessSession)
    /// runs a function). The reports say `in-process` where they name the
    /// mode; `--timeout` does not apply.
    pub fn with_sessions<F>(mut self, make: F) -> Job
    where
        F: Fn(&Settings) -> Box<dyn super::exchange::Session> + Send + Sync + 'static,
    {
        self.settings.sessions = Some(Sessions(std::sync::Arc::new(make)));
        self
    }

    /// The cases of the run ([`Sources::plan`]).
    ///
    /// # Errors
    ///
    /// As [`Sources::plan`].
    pub fn plan(&self) -> Result<CasePlan, SourceError> {
        self.sources.plan()
    }

    /// Runs the cases of `plan` (a [`CasePlan`], or what
    /// [`CasePlan::hand_over`] gives for a run that holds each listed case
    /// only while it needs it)
    /// ([`run_cases`](super::collect::run_cases)), shrinks each kind of
    /// failure to a minimal counterexample ([`counterexamples`]; not for a
    /// reducer that answered nothing, spec §8.5), grades the run and
    /// compares its failures with `known`, telling `watch` as it goes.
    /// The run's processes are gone when it returns.
    ///
    /// # Errors
    ///
    /// [`RunError::Start`] when the reducer cannot be started. A signal
    /// (spec §8.7) is no error: [`Certified::interrupted`] says so.
    pub fn run(
        &self,
        plan: &dyn CaseList,
        known: &[KnownFailure],
        watch: &dyn Watch,
    ) -> Result<Certified, RunError> {
        let settings = &self.settings;
        let mut collected = run_cases_with(
            settings,
            plan,
            &|done, failing| watch.cases_done(done, failing),
            self.stop_after_first,
        )?;
        // A stop that came with the last answers skips the shrinking.
        let mut interrupted = collected.interrupted.or_else(super::interrupt::requested);
        let mut cxs = Vec::new();
        if interrupted.is_none() && !collected.failures.is_empty() {
            let started = Instant::now();
            let limits = ShrinkLimits {
                tries: if collected.gave_up.is_some() {
                    0
                } else {
                    self.shrink_tries
                },
                deadline: Some(started + self.shrink_time),
            };
            watch.shrinking(&collected.failures);
            match counterexamples(settings, &mut collected.failures, &limits, &|i, p| {
                watch.shrunk(i, p)
            }) {
                Ok(c) => cxs = c,
                Err(RunError::Interrupted(s)) => interrupted = Some(s),
                Err(e) => return Err(e),
            }
            if interrupted.is_none() {
                watch.shrinking_done(&cxs, started.elapsed());
            }
        }
        // A signal that came after the last reducer request still stops
        // the run.
        let interrupted = interrupted.or_else(super::interrupt::requested);
        let grade = grade_clauses(settings.clauses(), &collected.records);
        let known = compare_known_failures(&collected.records, known);
        Ok(Certified {
            collected,
            counterexamples: cxs,
            grade,
            known,
            interrupted,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_resolve_once_with_their_rules() {
        let job = Options {
            declare: "system-first-only, soft-budget".into(),
            without: "approvals".into(),
            ..Options::default()
        }
        .resolve()
        .unwrap();
        assert_eq!(job.without, [Knob::Approvals]);
        assert_eq!(job.sources.without, [Knob::PinnedNotFirst, Knob::Approvals]);
        assert!(job.settings.declared.soft_budget && job.settings.declared.system_first_only);
        assert_eq!(job.settings.limits.timeout, Duration::from_secs(10));
        let refused = |o: Options| o.resolve().unwrap_err().to_string();
        assert_eq!(
            refused(Options {
                summaries: true,
                ..Options::default()
            }),
            "--summaries needs --protocol 2"
        );
        assert_eq!(
            refused(Options {
                without: "approval".into(),
                ..Options::default()
            }),
            "--without: unknown knob \"approval\"; the knobs are: leading-segment, pinned-system, pinned-not-first, later-system, developer-role, role-case, tool-calls, multi-step, batched-results, shuffled-results, text-beside-calls, results-beside-text, approvals, legacy-approvals, pending, reuse-call-ids, id-spellings, opaque-contents, extra-fields, system-extra-fields, result-extra-fields, empty-text, non-ascii-text, large-payloads, non-string-results, interrupted-run, lost-parallel-result, duplicated-result, result-before-call, interjected-message, unanswered-approval, orphan-approval-response, reasoning-cut-off, tool-as-user, reused-id-broken, limit-cut, non-double-numbers, budget-spellings"
        );
        // What a run leaves out (spec §9.5), and what --with brings back.
        let openai = |with: &str, in_process: bool| Options {
            format: Format::OpenAi,
            with: with.into(),
            in_process,
            ..Options::default()
        };
        let job = openai("", false).resolve().unwrap();
        assert_eq!(
            job.settings.outside,
            [
                Knob::RoleCase,
                Knob::Approvals,
                Knob::LegacyApprovals,
                Knob::NonDoubleNumbers,
                Knob::BudgetSpellings
            ]
        );
        assert_eq!(job.sources.outside, job.settings.outside);
        let job = openai("legacy-approvals,approvals", true)
            .resolve()
            .unwrap();
        assert_eq!(job.with, [Knob::Approvals, Knob::LegacyApprovals]);
        assert_eq!(
            job.settings.outside,
            [
                Knob::RoleCase,
                Knob::NonDoubleNumbers,
                Knob::BudgetSpellings
            ]
        );
        assert_eq!(
            refused(openai("pending", false)),
            "--with pending: a default openai run has it already; --with names what one leaves out: role-case, approvals, legacy-approvals, non-double-numbers, budget-spellings"
        );
        assert_eq!(
            refused(Options {
                without: "approvals".into(),
                ..openai("approvals", false)
            }),
            "--with approvals: --without names it too"
        );
        assert!(
            refused(openai("approval", false)).starts_with("--with: unknown knob \"approval\";")
        );
        // A repair summarizes nothing; only a repair completes calls.
        assert_eq!(
            refused(Options {
                policy: Policy::Repair,
                protocol: Protocol::V2,
                summaries: true,
                ..Options::default()
            }),
            "--summaries: a repair keeps what is whole and summarizes nothing (spec §17.1)"
        );
        assert_eq!(
            refused(Options {
                declare: "complete-calls".into(),
                ..Options::default()
            }),
            "--declare complete-calls: only a repair (--policy repair) completes calls (spec §17.4)"
        );
        let repair = Options {
            policy: Policy::Repair,
            declare: "complete-calls".into(),
            ..Options::default()
        }
        .resolve()
        .unwrap();
        assert_eq!(repair.sources.policy, Policy::Repair);
        assert!(repair.settings.declared.complete_calls);
        // A scope of repairs (spec §17.8): the other breaks are skipped.
        assert_eq!(
            refused(Options {
                declare: "repairs=limit-cut".into(),
                ..Options::default()
            }),
            "--declare repairs=: only a repair (--policy repair) claims kinds of broken history (spec §17.8)"
        );
        let scoped = Options {
            policy: Policy::Repair,
            declare: "repairs=limit-cut,interrupted-run".into(),
            ..Options::default()
        }
        .resolve()
        .unwrap();
        assert_eq!(scoped.sources.scope, [Knob::InterruptedRun, Knob::LimitCut]);
        assert_eq!(
            scoped.sources.without,
            [
                Knob::LostParallelResult,
                Knob::DuplicatedResult,
                Knob::ResultBeforeCall,
                Knob::InterjectedMessage,
                Knob::UnansweredApproval,
                Knob::OrphanApprovalResponse,
                Knob::ReasoningCutOff,
                Knob::ToolAsUser,
                Knob::ReusedIdBroken,
            ]
        );
        assert!(scoped.without.is_empty());
        assert!(refused(Options {
            declare: "placeholder".into(),
            protocol: Protocol::V2,
            summaries: true,
            ..Options::default()
        })
        .starts_with("--declare placeholder: "));
    }
}
