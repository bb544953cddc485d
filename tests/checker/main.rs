//! The checker's integration tests (`src/check/`), a binary apart from
//! `tests/it/` because `benches/mutants/run checker` builds and runs it with
//! the library's unit tests for each mutant of the checker: a test filter
//! cannot pick these modules without dropping some of the library's tests,
//! and the whole suite per mutant would take minutes.

mod checker_mutations;
#[path = "../it/common.rs"]
mod common;
mod declared;
mod providers;
mod repair;
mod tokens;
