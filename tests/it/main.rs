//! The kit's integration tests, one binary with a module per area (as
//! ripgrep keeps them): one link for all of them, where a binary per file
//! linked the library and its dependencies some thirty times.
//!
//! Three other binaries stand apart: `tests/checker/` (the checker's
//! tests, built and run for each mutant of `src/check/` with the library's
//! unit tests: `benches/mutants/run checker`), `tests/mutant_conviction.rs`
//! (the harness that judges each mutant of the reference, its tests
//! `#[ignore]`d: `benches/mutants/run`) and `tests/shrink_interrupt.rs` (it
//! asks for a stop, `certify::interrupt::request`, which is global to the
//! process and would end every later reducer request of these tests).
//! A module is run alone with a filter: `cargo test --test it golden::`.
//!
//! No test here sets an environment variable or the current directory of
//! the process, or asks for a stop (the modules share the process): a child
//! command gets its own (`Command::env`, `Command::current_dir`).

mod anthropic;
mod bounded;
mod certify;
mod certify_ux;
mod cli;
mod common;
mod corpus;
mod corpus_cmd;
mod default_shapes;
mod docs;
mod fuzzers;
mod generator;
mod generator_runs;
mod golden;
mod hostile;
mod html_report;
mod in_process;
mod large_shapes;
mod layout;
mod mutants_summary;
mod one_change;
mod prepared;
mod process;
mod progress;
mod readme;
mod recipe;
mod seed;
mod show;
mod shrinking;
mod spec_index;
mod stop_after_first;
mod tau_bench;
