//! reducer-kit: reference reducers, validator, checker, generator and runner
//! for chat-history reducers. See `spec/` for the contract.
//!
//! One room per concept (CONTRIBUTING.md's "Layout" table says what each may
//! import; `tests/it/layout.rs` holds it):
//!
//! - [`terms`]: the contract's vocabulary: clauses, policies, the budget,
//!   the message view, turns and pairing.
//! - [`formats`]: the wire formats; [`protocol`]: the runner protocol
//!   envelope.
//! - [`reduce`](mod@reduce): the reference reducers; [`validate`](mod@validate): the validator;
//!   [`check`](mod@check): the checker (which never reduces).
//! - [`case`]: the case format and the reference expectation of a case;
//!   [`generate`]: the generator and shrinking.
//! - [`certify`]: running, grading and reporting a reducer; [`corpus`]:
//!   the regression-corpus workflow; [`fuzzers`]: the fuzz targets.
//! - [`json`], [`atomic`], [`input`], [`terminal`]: small utilities
//!   (the last makes text from outside the kit safe to print).
//! - `cli` (feature `cli`): the `reducer-kit` command line as a function,
//!   `cli::run(args) -> ExitCode`; the binary and the Python package's
//!   console script call it.

//!
//! **The public surface.** What the command line and the bindings call is
//! re-exported here, at the crate root, so that neither reaches into a
//! room for it:
//!
//! | call | what it does |
//! |------|--------------|
//! | [`validate()`] / [`validate_history`] | the validator's violations of a history (spec §5) |
//! | [`check()`] | every clause's verdict on one answer to one [`Request`] (spec §6; under its provider profile, §15.5) |
//! | [`Reference`] → [`reduce::Input`] → [`Selection`] | the reference reducer: built once from a policy, a format and a provider profile, it answers a history and a budget with the messages it keeps (spec §3, §4, §15.4, §17) |
//! | [`generated_case`] | generated case `n` of a seed's stream, as `certify` runs it |
//! | [`CertifyOptions`] → [`Job`] → [`Certified`] | a whole certification: options resolved once, run, shrunk, graded, reported |
//! | [`read_history`], [`to_wire`], [`from_wire`] | a history read in a [`Format`], converted to and from the canonical one |
//!
//! with the vocabulary they take: [`Format`], [`Policy`], [`Provider`],
//! [`Protocol`], [`Declared`], [`Clause`], [`Level`], [`BudgetFields`],
//! [`Response`], [`Verdict`], [`Outcome`].

#![deny(missing_docs)]

// The command line (`src/commands/`, feature `cli`) names the library as
// `reducer_kit::...`, as it did when it was the binary's own module.
#[cfg(feature = "cli")]
extern crate self as reducer_kit;

#[cfg(feature = "process")]
pub mod atomic;
/// Files written whole (without the feature `process`: plain writes, for
/// the few callers of the library that write case files).
#[cfg(not(feature = "process"))]
#[path = "atomic_plain.rs"]
pub mod atomic;
pub mod bindings;
pub mod case;
pub mod certify;
pub mod check;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
mod commands;
pub mod corpus;
pub mod formats;
pub mod fuzzers;
pub mod generate;
pub mod input;
pub mod json;
pub mod protocol;
pub mod reduce;
pub mod terminal;
pub mod terms;
pub mod validate;

pub use certify::generated_case;
pub use certify::job::{Certified, Job, Options as CertifyOptions, Watch};
pub use check::{check, Extras, Outcome, Request, Verdict};
pub use formats::{from_wire, read_history, to_wire, Format};
pub use protocol::{Protocol, Response};
pub use reduce::{Reference, Selection};
pub use terms::{BudgetFields, Clause, Declared, Level, Policy, Provider};
pub use validate::{validate, validate_history};
