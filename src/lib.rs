//! reducer-kit: reference reducers, validator, checker, generator and runner
//! for chat-history reducers. See `spec/` for the contract.
//!
//! One room per concept (the README's "Layout" table says what each may
//! import; `tests/layout.rs` holds it):
//!
//! - [`terms`]: the contract's vocabulary: clauses, policies, the budget,
//!   the message view, turns and pairing.
//! - [`formats`]: the wire formats; [`protocol`]: the runner protocol
//!   envelope.
//! - [`reduce`]: the reference reducers; [`validate`]: the validator;
//!   [`check`]: the checker (which never reduces).
//! - [`case`]: the case format and the reference expectation of a case;
//!   [`generate`]: the generator and shrinking.
//! - [`certify`]: running, grading and reporting a reducer; [`corpus`]:
//!   the regression-corpus workflow; [`fuzzers`]: the fuzz targets.
//! - [`json`], [`atomic`], [`input`], [`terminal`]: small utilities
//!   (the last makes text from outside the kit safe to print).

#![warn(missing_docs)]

pub mod atomic;
pub mod case;
pub mod certify;
pub mod check;
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
