//! Certification (spec §9): run every case against a reducer, judge
//! every answer, grade the run, shrink each failing clause to a minimal
//! counterexample, and report.
//!
//! | file | owns |
//! |------|------|
//! | [`cases`] | the cases of a run: corpus, generated, replayed, filtered, sharded ([`Sources`], [`Shard`]), and the generator's configuration of a run ([`generator_config_for`]) |
//! | [`job`] | a whole certification: [`job::Options`] resolved once into a [`job::Job`], which runs, shrinks and grades |
//! | [`exchange`] | one exchange with a reducer: the [`exchange::Session`] trait, its answer or protocol failure, why a run stops ([`exchange::RunError`]) |
//! | [`session`] | the sessions: per-case or persistent processes, in process, the reference; a worker's session made from the settings |
//! | [`process`] | running an external reducer process safely |
//! | [`interrupt`] | SIGINT / SIGTERM: stopping every reducer in flight |
//! | [`result`] | one case as sent ([`result::RunCase`]) and what it gave ([`result::CaseResult`]) |
//! | [`settings`] | how the reducer is run and judged ([`settings::Settings`]) |
//! | [`run`] | one case through a session, checked |
//! | [`collect`] | many cases on many workers: records, failures grouped by kind, a run stopped when the reducer answers nothing |
//! | [`records`] | the compact record a run keeps of each case, stored outside the heap |
//! | [`grade`] | per-clause tallies and levels |
//! | [`known_failures`] | `--expect-fail` lists and how a run compares with them |
//! | [`counterexample`] | shrinking a failure to a minimal case, and its case file |
//! | [`report`] | the text, JSON, JUnit and HTML reports and the certificate line |
//! | [`draw`] | a counterexample or a case drawn as a conversation (HTML and terminal text), the compatibility matrix as a page |
//!
//! No file of `certify/` names another that names it back, directly or
//! round about (`tests/it/layout.rs` holds it). The runner's files stand in
//! this order, each naming only files before it: [`process`], [`exchange`],
//! the plain data [`result`] and [`records`], [`settings`], [`session`],
//! [`run`], [`collect`].

pub mod cases;
pub mod collect;
pub mod counterexample;
pub mod draw;
pub mod exchange;
pub mod grade;
pub mod interrupt;
pub mod job;
pub mod known_failures;
pub mod process;
pub mod records;
pub mod report;
pub mod result;
pub mod run;
pub mod session;
pub mod settings;

pub use cases::{
    case_skipped, from_case, generated_case, generated_case_from, generator_config,
    generator_config_for, generator_config_without, in_scope, kit_cases, kit_corpus,
    parse_generated_id, repair_scope, CasePlan, HandedCases, PlanCounts, Shard, ShardError,
    SourceError, Sources,
};
