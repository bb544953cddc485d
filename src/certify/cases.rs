//! The cases of a run (spec §9): the kit's corpus built into it, case
//! folders and replayed files, generated cases and the generator's
//! configuration a run makes them with, filtered by the run's contract
//! (`--without`, declarations, a scope of repairs) and sharded
//! ([`Sources::plan`]).

use super::run::{CaseList, RunCase};
use crate::case::{load_dir_while, load_file_with, Case, CaseError};
use crate::formats::Format;
use crate::generate::knob::{self, Knob};
use crate::generate::{seeded_case_without_shapes, Config};
use crate::protocol::Protocol;
use crate::terms::{Budget, BudgetFields, Policy};
use serde_json::Value;
use std::path::PathBuf;

/// The kit's own corpus as built into it (`build.rs`): the cases of every
/// case file below `corpus/` (but `fuzz/`), in path order, each with the
/// path it was read from (`corpus/spec/budget.json`). What `certify` runs
/// without `--corpus`, so that an installed kit needs no clone.
///
/// # Errors
///
/// A [`CaseError`] for a file the kit was built with that is not a valid
/// case file, or a case id twice.
pub fn kit_cases() -> Result<Vec<(PathBuf, Case)>, CaseError> {
    mod embedded {
        include!(concat!(env!("OUT_DIR"), "/corpus_files.rs"));
    }
    let mut out = Vec::new();
    let mut seen: std::collections::HashMap<String, PathBuf> = Default::default();
    for (rel, text) in embedded::FILES {
        let path = PathBuf::from("corpus").join(rel);
        for case in crate::case::parse_cases(text, &path)? {
            if let Some(first) = seen.insert(case.id.clone(), path.clone()) {
                return Err(CaseError::Invalid {
                    path,
                    id: case.id,
                    problem: crate::case::InvalidCase::DuplicateId { first },
                });
            }
            out.push((path.clone(), case));
        }
    }
    Ok(out)
}

/// The kit's own corpus folder, where the corpus commands write: `corpus/`
/// next to the sources the kit was built from, else `./corpus`.
pub fn kit_corpus() -> PathBuf {
    let built = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus"));
    if built.is_dir() {
        built
    } else {
        PathBuf::from("corpus")
    }
}

/// The generator configuration used for generated cases in `format`
/// under `protocol`: every shape the format carries
/// ([`Config::for_format`]) but those a default run leaves out
/// ([`knob::outside`], spec §9.5); protocol 2 turns the costs knob on
/// (spec §13.2). `generate` uses the same by default, so that one
/// `gen/<seed>/<n>` names one case everywhere.
pub fn generator_config(format: Format, protocol: Protocol) -> Config {
    generator_config_without(format, protocol, &knob::outside(format, None))
}

/// [`generator_config_for`] of a policy with a budget (`turns`,
/// `suffix`): [`Config::for_format`] with the knobs `off` turned off
/// (`certify --without`, and the shapes outside the run,
/// [`knob::outside`]), costs on under protocol 2.
pub fn generator_config_without(format: Format, protocol: Protocol, off: &[Knob]) -> Config {
    generator_config_for(Policy::Turns, format, protocol, off)
}

/// The generator configuration of a run of `policy` (spec §17.6): every
/// shape `format` carries ([`Config::for_format`]), or for `repair`
/// broken histories ([`Config::for_repair`]); the knobs `off` turned off
/// ([`knob::without`]); costs on under protocol 2 (spec §13.2). The one
/// place a run's config is made: `certify`, `generate` and the bindings
/// all come here.
pub fn generator_config_for(
    policy: Policy,
    format: Format,
    protocol: Protocol,
    off: &[Knob],
) -> Config {
    let every = if policy.has_budget() {
        Config::for_format(format)
    } else {
        Config::for_repair(format)
    };
    Config {
        costs: protocol == Protocol::V2,
        ..knob::without(every, off)
    }
}

/// Generated case `n` of stream `seed`, with id `gen/<seed>/<n>`: under
/// protocol 2 about half of them have a token budget, the others are the
/// protocol 1 case of the same id, byte for byte.
pub fn generated_case(seed: u64, n: u64, format: Format, protocol: Protocol) -> RunCase {
    generated_case_from(seed, n, &generator_config(format, protocol))
}

/// Generated case `n` of stream `seed` under `config`, with id
/// `gen/<seed>/<n>`.
pub fn generated_case_from(seed: u64, n: u64, config: &Config) -> RunCase {
    // The shapes are never read here.
    let g = seeded_case_without_shapes(seed, n, config);
    let id = format!("gen/{seed}/{n}");
    match g.costs {
        None => RunCase::with_max_messages(id, Value::from(g.budget), g.messages),
        Some(c) => RunCase {
            id,
            budget: BudgetFields::tokens(
                Value::from(c.max_tokens),
                Value::Array(c.tokens.iter().map(|&t| Value::from(t)).collect()),
                Some(Value::Bool(c.count_pinned)),
            ),
            messages: g.messages.into(),
            summary: false,
            summary_tokens: c.summary_tokens,
            for_repair: false,
        },
    }
}

/// Reads a generated case id `gen/<seed>/<n>`.
pub fn parse_generated_id(id: &str) -> Option<(u64, u64)> {
    let rest = id.strip_prefix("gen/")?;
    let (seed, n) = rest.split_once('/')?;
    Some((seed.parse().ok()?, n.parse().ok()?))
}

/// A run case from a case file (its budget members, `summary` and
/// `summaryTokens` too). The messages are moved, not copied: a corpus case
/// of a million messages is held once while the run is planned.
pub fn from_case(case: Case) -> RunCase {
    RunCase {
        budget: case.budget_fields(),
        summary: case.summary,
        summary_tokens: case.summary_tokens.unwrap_or(1),
        for_repair: case.policy == crate::terms::Policy::Repair,
        id: case.id,
        messages: case.messages.into(),
    }
}

/// A shard `K/N` (1-based K): the cases whose position in the full list is
/// `K-1` modulo `N`. The N shards of one list run every case exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1..=count.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

/// A `--shard` value that is not `K/N` with 1 ≤ K ≤ N.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardError {
    /// Not two whole numbers around a `/`.
    #[error("expected K/N, got {0:?}")]
    NotKOfN(String),
    /// K is 0 or greater than N.
    #[error("shard {0:?}: need 1 <= K <= N")]
    OutOfRange(String),
}

impl std::str::FromStr for Shard {
    type Err = ShardError;
    /// Parses `K/N` with 1 ≤ K ≤ N.
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let not_k_of_n = || ShardError::NotKOfN(s.to_string());
        let (k, n) = s.split_once('/').ok_or_else(not_k_of_n)?;
        let index: usize = k.trim().parse().map_err(|_| not_k_of_n())?;
        let count: usize = n.trim().parse().map_err(|_| not_k_of_n())?;
        if count == 0 || index == 0 || index > count {
            return Err(ShardError::OutOfRange(s.to_string()));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Keeps this shard's cases.
    pub fn select<T>(&self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.count == self.index - 1)
            .map(|(_, c)| c)
            .collect()
    }
}

/// Where the cases of a run come from (`certify`'s case options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sources {
    /// Case files to run instead of the corpus and the generated cases
    /// (`--replay`).
    pub replay: Vec<PathBuf>,
    /// Case directories (`--corpus`); none means the kit's own, built into
    /// it ([`kit_cases`]).
    pub corpus: Vec<PathBuf>,
    /// How many generated cases to run besides the corpus (`--cases`).
    pub generated: u64,
    /// Their seed (`--seed`).
    pub seed: u64,
    /// Only the cases with these ids (`--case`); a generated id
    /// `gen/<seed>/<n>` is regenerated.
    pub only: Vec<String>,
    /// Only this shard (`--shard`).
    pub shard: Option<Shard>,
    /// The wire format: generated cases are made for it
    /// ([`generator_config`]).
    pub format: Format,
    /// Knobs turned off (`--without`, and what a declaration leaves out:
    /// [`super::settings::Settings::excluded_knobs`]): generated cases come from
    /// a config without them, and any case that still shows one
    /// ([`case_skipped`]) is left out.
    pub without: Vec<Knob>,
    /// The break knobs of a sanitizer's declared scope (`--declare
    /// repairs=`, spec §17.8), empty when it declares none: a broken case
    /// that shows none of them is skipped (those that show a break outside
    /// it are in `without`).
    pub scope: Vec<Knob>,
    /// The declarations (spec §16): they name what leaves a case out
    /// ([`case_skipped`]).
    pub declared: crate::terms::Declared,
    /// The shapes outside the run ([`knob::outside`] less `--with`, spec
    /// §9.5): generated cases come from a config without them; a case that
    /// shows one is planned, and skipped when run, with the reason
    /// ([`super::settings::Settings::outside`]).
    pub outside: Vec<Knob>,
    /// The runner protocol: under protocol 2 generated cases get costs
    /// ([`generator_config`]).
    pub protocol: Protocol,
    /// The policy certified: under `repair` the generated histories are
    /// broken on purpose ([`generator_config_for`], spec §17.6).
    pub policy: Policy,
    /// The size limit of each case file read (`--max-input`; spec
    /// §8.11), [`crate::case::file::MAX_CASE_FILE`] by default.
    pub max_input: u64,
}

/// Why a run has no cases to run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// A case file or directory that cannot be used, and the option that
    /// named it (`--replay` or `--corpus`; the kit's own corpus when none).
    #[error("{option}{error}")]
    Case {
        /// `--replay `, `--corpus `, or empty for the kit's own corpus.
        option: &'static str,
        /// What is wrong with it.
        error: CaseError,
    },
    /// `--case` names no case of the corpus and no generated case.
    #[error("no case with id {0:?}")]
    NoSuchCase(String),
    /// Nothing to run (an empty corpus and no generated cases, or an empty
    /// shard).
    #[error("no cases to run")]
    NoCases,
    /// Every case read lies outside the run's contract ([`case_skipped`]):
    /// how many, the first of them and why.
    #[error("no cases to run: {count} case{} outside the run's contract; {case:?} {why}", if *count == 1 { "" } else { "s" })]
    LeftOut {
        /// How many cases were left out.
        count: usize,
        /// The id of the first.
        case: String,
        /// Why ([`case_skipped`]): `shows pinned-not-first, which --declare
        /// system-first-only leaves out (spec §16.6)`.
        why: String,
    },
    /// A stop was asked for ([`super::interrupt`], spec §8.7) while the
    /// cases were read or drawn: the signal's number. Nothing was run.
    #[error("stopped by {} while reading the cases: no case was run", super::exchange::signal_text(*.0))]
    Interrupted(i32),
}

impl SourceError {
    /// The exit code of the command line's rule (spec §8.11): a case
    /// file nested too deep is invalid input (1); a stop is 128 + the
    /// signal's number ([`super::interrupt::exit_code`]); everything else
    /// here is unusable input or usage (2).
    pub fn exit_code(&self) -> u8 {
        match self {
            SourceError::Case { error, .. } => error.exit_code(),
            SourceError::Interrupted(signal) => super::interrupt::exit_code(*signal),
            _ => 2,
        }
    }
}

/// Where planning looks for a stop ([`super::interrupt::requested`]):
/// between case files, between cases, and every 64 generated cases.
fn stop_point() -> Result<(), SourceError> {
    match super::interrupt::requested() {
        Some(signal) => Err(SourceError::Interrupted(signal)),
        None => Ok(()),
    }
}

/// The cases of a run, in order ([`Sources::plan`]): the corpus or
/// replayed cases are held, generated cases are made again when asked for
/// ([`CaseList::case`]), so a run of 20,000 generated cases does not hold
/// 20,000 histories.
#[derive(Clone, Debug, PartialEq)]
pub struct CasePlan {
    config: Config,
    listed: Vec<RunCase>,
    order: Vec<Planned>,
    /// What the plan holds and what it left out.
    pub counts: PlanCounts,
    /// The id of every case read from the corpus or replayed files,
    /// whether it runs or not.
    read_ids: std::collections::BTreeSet<String>,
    /// The first case left out as outside the contract, and why
    /// ([`case_skipped`]).
    first_left_out: Option<(String, String)>,
}

/// How the cases of a run add up (after `--case`, before `--shard`):
/// `listed + generated` cases are planned; duplicates and cases with a
/// knob of `--without` are left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanCounts {
    /// Cases from the corpus or replayed files, planned.
    pub listed: usize,
    /// Generated cases, planned.
    pub generated: usize,
    /// Corpus or replayed cases dropped as duplicates of an earlier one
    /// (same budget and messages).
    pub listed_duplicates: usize,
    /// Generated cases dropped as duplicates of an earlier case.
    pub generated_duplicates: usize,
    /// Cases skipped because they show a knob of `--without` (or lie
    /// outside a declared scope of repairs, spec §17.8).
    pub without: usize,
}

/// One case of a [`CasePlan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Planned {
    /// A case of `listed`.
    Listed(usize),
    /// Generated case `n` of stream `seed`.
    Generated(u64, u64),
}

impl CaseList for CasePlan {
    fn count(&self) -> usize {
        self.order.len()
    }

    fn case(&self, i: usize) -> std::borrow::Cow<'_, RunCase> {
        match self.order[i] {
            Planned::Listed(k) => std::borrow::Cow::Borrowed(&self.listed[k]),
            Planned::Generated(seed, n) => {
                std::borrow::Cow::Owned(generated_case_from(seed, n, &self.config))
            }
        }
    }
}

/// The cases of a [`CasePlan`] for one run that takes its listed cases
/// as it runs them ([`CasePlan::hand_over`]): each is moved out of the
/// plan when the run asks for it, so that the run holds a case no longer
/// than it needs it, and a case kept as a failure's example is held once
/// (its shrink moves its messages rather than copying them, spec §9.1).
/// Each case is asked for once ([`CaseList::case`]).
#[derive(Debug)]
pub struct HandedCases<'a> {
    config: &'a Config,
    order: Vec<Planned>,
    listed: Vec<std::sync::Mutex<Option<RunCase>>>,
}

impl CaseList for HandedCases<'_> {
    fn count(&self) -> usize {
        self.order.len()
    }

    /// # Panics
    ///
    /// When listed case `i` was asked for before.
    fn case(&self, i: usize) -> std::borrow::Cow<'_, RunCase> {
        match self.order[i] {
            Planned::Listed(k) => std::borrow::Cow::Owned(
                self.listed[k]
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take()
                    .expect("a handed case is run once"),
            ),
            Planned::Generated(seed, n) => {
                std::borrow::Cow::Owned(generated_case_from(seed, n, self.config))
            }
        }
    }
}

impl CasePlan {
    /// The plan's cases for one run that takes the listed ones as it runs
    /// them ([`HandedCases`]). The plan is spent: it lists no case
    /// afterwards ([`CaseList::count`] 0); its [`CasePlan::counts`] stay.
    pub fn hand_over(&mut self) -> HandedCases<'_> {
        HandedCases {
            config: &self.config,
            order: std::mem::take(&mut self.order),
            listed: std::mem::take(&mut self.listed)
                .into_iter()
                .map(|c| std::sync::Mutex::new(Some(c)))
                .collect(),
        }
    }

    fn push_listed(
        &mut self,
        c: RunCase,
        seen: &mut std::collections::HashSet<[u8; 32]>,
        exclusions: Exclusions<'_>,
    ) {
        if let Some(why) = excluded(&c, exclusions) {
            self.left_out(&c.id, why);
        } else if seen.insert(case_key(&c)) {
            self.order.push(Planned::Listed(self.listed.len()));
            self.listed.push(c);
            self.counts.listed += 1;
        } else {
            self.counts.listed_duplicates += 1;
        }
    }

    fn push_generated(
        &mut self,
        seed: u64,
        n: u64,
        seen: &mut std::collections::HashSet<[u8; 32]>,
        exclusions: Exclusions<'_>,
    ) {
        let c = generated_case_from(seed, n, &self.config);
        if let Some(why) = excluded(&c, exclusions) {
            self.left_out(&c.id, why);
        } else if seen.insert(case_key(&c)) {
            self.order.push(Planned::Generated(seed, n));
            self.counts.generated += 1;
        } else {
            self.counts.generated_duplicates += 1;
        }
    }

    /// Counts case `id` as left out for `why`, the first reason kept.
    fn left_out(&mut self, id: &str, why: String) {
        self.counts.without += 1;
        self.first_left_out
            .get_or_insert_with(|| (id.to_string(), why));
    }

    /// The cases, all made at once.
    pub fn to_vec(&self) -> Vec<RunCase> {
        (0..self.count())
            .map(|i| self.case(i).into_owned())
            .collect()
    }
}

/// Why run case `c` lies outside the contract ([`case_skipped`]; the
/// shapes that depend on the budget are read with a message budget, 1 for
/// a token budget or a budget that is not one).
fn excluded(c: &RunCase, (without, scope, declared): Exclusions<'_>) -> Option<String> {
    let budget = Budget::parse(c.budget.max_messages_or_null()).map_or(1, |b| b.max_messages());
    case_skipped(&c.messages, budget, without, scope, declared)
}

/// What bounds the cases of a run: the knobs excluded, the scope of
/// repairs, the declarations ([`case_skipped`]'s arguments).
type Exclusions<'a> = (&'a [Knob], &'a [Knob], &'a crate::terms::Declared);

/// Why the canonical history `messages` (its budget read as `budget`
/// messages) lies outside a run's contract, or `None`: it shows a knob of
/// `excluded` ([`knob::shown`]; the knobs of `--without`, the shape
/// `system-first-only` leaves out, spec §16.6, the breaks outside a
/// declared scope of repairs, §17.8), or, with a scope of repairs
/// `scope`, it is broken and shows none of its breaks ([`in_scope`]). The
/// reason names the knob and what excludes it: `shows pinned-not-first,
/// which --declare system-first-only leaves out (spec §16.6)`. The one
/// filter of the planned cases ([`Sources::plan`]) and of the candidates
/// of the shrinker ([`super::counterexample::shrink_in`]).
pub fn case_skipped(
    messages: &[Value],
    budget: usize,
    excluded: &[Knob],
    scope: &[Knob],
    declared: &crate::terms::Declared,
) -> Option<String> {
    if !excluded.is_empty() {
        if let Some(&k) = knob::shown(messages, budget, excluded).first() {
            let why = if k == Knob::PinnedNotFirst && declared.system_first_only {
                "--declare system-first-only leaves out (spec §16.6)".to_string()
            } else if k.as_break().is_some() && !scope.is_empty() && !scope.contains(&k) {
                format!(
                    "--declare {} leaves out (spec §17.8)",
                    declared
                        .to_string()
                        .split(',')
                        .skip_while(|p| !p.starts_with("repairs="))
                        .collect::<Vec<_>>()
                        .join(",")
                )
            } else {
                format!("--without {k} leaves out")
            };
            return Some(format!("shows {k}, which {why}"));
        }
    }
    if !in_scope(messages, scope) {
        let names: Vec<&str> = scope.iter().map(|k| k.name()).collect();
        return Some(format!(
            "is broken and shows no break of the declared scope of repairs ({}, spec §17.8)",
            names.join(", ")
        ));
    }
    None
}

/// The break knobs of the kinds of repair `declared` claims (`repairs=`,
/// spec §17.8), in [`Knob::ALL`] order; empty when it claims none (every
/// kind).
pub fn repair_scope(declared: &crate::terms::Declared) -> Vec<Knob> {
    let kinds = declared.repair_kinds();
    Knob::ALL
        .iter()
        .copied()
        .filter(|k| k.as_break().is_some() && kinds.contains(&k.name()))
        .collect()
}

/// Whether a canonical history lies within the scope of repairs `scope`
/// (spec §17.8): always without a scope; else when it passes the
/// validator strictly (nothing to repair), or shows a break of the scope
/// ([`knob::shown`]). A break outside the scope is `--without`'s to
/// skip.
pub fn in_scope(messages: &[Value], scope: &[Knob]) -> bool {
    if scope.is_empty() {
        return true;
    }
    let valid = crate::formats::view_history(Format::Canonical, messages).is_ok_and(|v| {
        crate::validate::validate(
            &v,
            crate::validate::Options {
                allow_pending: false,
            },
        )
        .is_empty()
    });
    valid || !knob::shown(messages, 1, scope).is_empty()
}

/// A SHA-256 of the compact JSON `[maxMessages, messages]` of a case (with
/// the protocol 2 members when it has any, [`RunCase::write_key`]): two
/// cases with the same one run once.
fn case_key(c: &RunCase) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    struct Hashing(Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut h = Hashing(Sha256::new());
    c.write_key(&mut h).expect("a JSON value always serializes");
    h.0.finalize().into()
}

impl Sources {
    /// The cases, in a fixed order: the replayed files, or the corpus then
    /// the generated cases; filtered by [`Sources::only`], then sharded.
    /// Cases with the same budget and messages run once (the first).
    /// Generated cases are made once here (to find duplicates) and again
    /// when run.
    ///
    /// # Errors
    ///
    /// [`SourceError`] for an unusable case file, an unknown `--case` id,
    /// or no cases at all.
    pub fn plan(&self) -> Result<CasePlan, SourceError> {
        let mut plan = CasePlan {
            config: generator_config_for(
                self.policy,
                self.format,
                self.protocol,
                &[&self.without[..], &self.outside[..]].concat(),
            ),
            listed: Vec::new(),
            order: Vec::new(),
            counts: PlanCounts::default(),
            read_ids: Default::default(),
            first_left_out: None,
        };
        let without = (
            self.without.as_slice(),
            self.scope.as_slice(),
            &self.declared,
        );
        let mut seen = std::collections::HashSet::new();
        if !self.replay.is_empty() {
            for f in &self.replay {
                stop_point()?;
                let cases =
                    load_file_with(f, self.max_input).map_err(|error| SourceError::Case {
                        option: "--replay ",
                        error,
                    })?;
                for c in cases {
                    stop_point()?;
                    plan.read_ids.insert(c.id.clone());
                    plan.push_listed(from_case(c), &mut seen, without);
                }
            }
        } else {
            // The folders of --corpus, or the kit's corpus built into it.
            let mut listed = Vec::new();
            if self.corpus.is_empty() {
                listed = kit_cases().map_err(|error| SourceError::Case { option: "", error })?;
            }
            for dir in &self.corpus {
                let read = load_dir_while(dir, self.max_input, || stop_point().is_ok()).map_err(
                    |error| SourceError::Case {
                        option: "--corpus ",
                        error,
                    },
                )?;
                match read {
                    Some(cases) => listed.extend(cases),
                    None => stop_point()?,
                }
            }
            for (_, c) in listed {
                stop_point()?;
                plan.read_ids.insert(c.id.clone());
                if self.only.is_empty() || self.only.contains(&c.id) {
                    plan.push_listed(from_case(c), &mut seen, without);
                }
            }
            if self.only.is_empty() {
                for n in 0..self.generated {
                    if n % 64 == 0 {
                        stop_point()?;
                    }
                    plan.push_generated(self.seed, n, &mut seen, without);
                }
            } else {
                for id in &self.only {
                    if let Some((seed, n)) = parse_generated_id(id) {
                        plan.push_generated(seed, n, &mut seen, without);
                    } else if !plan.listed.iter().any(|c| &c.id == id) {
                        return Err(SourceError::NoSuchCase(id.clone()));
                    }
                }
            }
        }
        if let Some(shard) = self.shard {
            plan.order = shard.select(plan.order);
        }
        if plan.order.is_empty() {
            return Err(match plan.first_left_out {
                Some((case, why)) if plan.counts.without > 0 => SourceError::LeftOut {
                    count: plan.counts.without,
                    case,
                    why,
                },
                _ => SourceError::NoCases,
            });
        }
        Ok(plan)
    }

    /// The cases of [`Sources::plan`], all made at once.
    ///
    /// # Errors
    ///
    /// As [`Sources::plan`].
    pub fn cases(&self) -> Result<Vec<RunCase>, SourceError> {
        Ok(self.plan()?.to_vec())
    }

    /// Whether `id` names a case of a source of this run ([`Sources::plan`]
    /// gave `plan`): a case read from the corpus or the replayed files
    /// (run or not), a generated case of the run's stream
    /// (`gen/<seed>/<n>` with the run's seed and `n` below `--cases`), or
    /// an id given with `--case`.
    pub fn names_case(&self, plan: &CasePlan, id: &str) -> bool {
        if plan.read_ids.contains(id) || self.only.iter().any(|o| o == id) {
            return true;
        }
        self.replay.is_empty()
            && self.only.is_empty()
            && parse_generated_id(id)
                .is_some_and(|(seed, n)| seed == self.seed && n < self.generated)
    }

    /// The seed the run's generated cases came from, when it ran the
    /// generated stream (no `--replay`, no `--case`, `--cases` > 0): what
    /// the certificate names.
    pub fn report_seed(&self) -> Option<u64> {
        (self.replay.is_empty() && self.generated > 0 && self.only.is_empty()).then_some(self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_cases() {
        let all: Vec<usize> = (0..10).collect();
        let parts: Vec<Vec<usize>> = (1..=3)
            .map(|k| Shard { index: k, count: 3 }.select(all.clone()))
            .collect();
        assert_eq!(parts, vec![vec![0, 3, 6, 9], vec![1, 4, 7], vec![2, 5, 8]]);
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn generated_ids_round_trip() {
        assert_eq!(parse_generated_id("gen/7/123"), Some((7, 123)));
        assert_eq!(parse_generated_id("seed/7/123"), None);
        let a = generated_case(7, 3, Format::Canonical, Protocol::V1);
        assert_eq!(a.id, "gen/7/3");
        assert_eq!(a, generated_case(7, 3, Format::Canonical, Protocol::V1));
        // Under protocol 2 a case keeps its messages, and about half get
        // a token budget.
        let tokens = (0..200)
            .filter(|&n| {
                let v1 = generated_case(7, n, Format::Canonical, Protocol::V1);
                let v2 = generated_case(7, n, Format::Canonical, Protocol::V2);
                assert_eq!(v1.messages, v2.messages);
                if v2.budget.max_tokens.is_none() {
                    assert_eq!(v1, v2);
                }
                v2.budget.max_tokens.is_some()
            })
            .count();
        assert!((70..=130).contains(&tokens), "{tokens}");
    }
}
