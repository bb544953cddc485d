//! Fuzz targets, one module each, shared by `cargo fuzz` (the thin targets
//! in `fuzz/fuzz_targets/`) and plain `cargo test` (`tests/fuzzers.rs`
//! replays the seed corpus in `corpus/fuzz/<target>/` and seeded random
//! bytes), as in wasm-tools.
//!
//! Each module has `run(&mut Unstructured) -> arbitrary::Result<()>`, which
//! panics on a bug, and an `Input` type: the raw bytes, whose `Debug` (what
//! `cargo fuzz fmt <target> <file>` prints) shows what `run` makes of them
//! (the generated case as a case-format line, the damage or mutation
//! applied).
//!
//! | target              | what it checks |
//! |---------------------|----------------|
//! | [`parse_no_panic`]    | arbitrary bytes into every reader (JSON → views in every format, validator, reducers, OpenAI and Anthropic converters, case and input files, budgets, checker): an error, never a panic |
//! | [`format_roundtrip`]  | canonical → OpenAI or Anthropic → canonical is the identity on generated histories, views and validity agree, and reduction commutes with conversion |
//! | [`validator_agrees`]  | on generated histories with random damage, the validator and a naive oracle agree on validity |
//! | [`reduce_invariants`] | the reference reducers' outputs pass every clause of the checker, plus budget, validity, idempotence and identity-when-fits directly |
//! | [`checker_convicts`]  | a reference output with a random mutation that changes it gets at least one failing verdict, and the clause a mutation must break |

use crate::generate::{history, Config, GeneratedCase};
use crate::terms::Policy;
use arbitrary::{Arbitrary, Unstructured};
use serde_json::Value;

pub mod checker_convicts;
pub mod format_roundtrip;
pub mod parse_no_panic;
pub mod reduce_invariants;
pub mod validator_agrees;

/// The names of the fuzz targets, as in `fuzz/Cargo.toml` and
/// `corpus/fuzz/`.
pub const TARGETS: &[&str] = &[
    "parse_no_panic",
    "format_roundtrip",
    "validator_agrees",
    "reduce_invariants",
    "checker_convicts",
];

/// Runs target `name` on `bytes` (as the fuzz target would).
///
/// # Panics
///
/// On a bug found by the target, and for an unknown `name`.
pub fn run_target(name: &str, bytes: &[u8]) {
    let mut u = Unstructured::new(bytes);
    let _ = match name {
        "parse_no_panic" => parse_no_panic::run(&mut u),
        "format_roundtrip" => format_roundtrip::run(&mut u),
        "validator_agrees" => validator_agrees::run(&mut u),
        "reduce_invariants" => reduce_invariants::run(&mut u),
        "checker_convicts" => checker_convicts::run(&mut u),
        other => panic!("unknown fuzz target {other:?}"),
    };
}

/// What target `name` makes of `bytes`: the `Debug` of its `Input`.
///
/// # Panics
///
/// For an unknown `name`.
pub fn describe_target(name: &str, bytes: &[u8]) -> String {
    match name {
        "parse_no_panic" => parse_no_panic::describe(bytes),
        "format_roundtrip" => format_roundtrip::describe(bytes),
        "validator_agrees" => validator_agrees::describe(bytes),
        "reduce_invariants" => reduce_invariants::describe(bytes),
        "checker_convicts" => checker_convicts::describe(bytes),
        other => panic!("unknown fuzz target {other:?}"),
    }
}

/// Defines `Input` in a target module: the raw bytes, taken whole, with a
/// `Debug` that calls the module's `describe` and a `run` that calls its
/// `run`.
macro_rules! fuzz_input {
    () => {
        /// One fuzz input: the raw bytes, taken whole. Its `Debug` (printed
        /// by `cargo fuzz fmt`) shows what [`run`] makes of them.
        pub struct Input(pub Vec<u8>);

        impl<'a> arbitrary::Arbitrary<'a> for Input {
            fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
                Ok(Input(u.bytes(u.len())?.to_vec()))
            }

            fn arbitrary_take_rest(u: arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
                Ok(Input(u.take_rest().to_vec()))
            }
        }

        impl std::fmt::Debug for Input {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&describe(&self.0))
            }
        }

        impl Input {
            /// Runs the target on these bytes.
            ///
            /// # Errors
            ///
            /// As [`run`]: only when the bytes cannot be decoded at all.
            pub fn run(&self) -> arbitrary::Result<()> {
                run(&mut arbitrary::Unstructured::new(&self.0))
            }
        }
    };
}
pub(crate) use fuzz_input;

/// A generated case under [`Config::everything`] (swarm on) and a policy.
pub(crate) fn case_and_policy(u: &mut Unstructured) -> arbitrary::Result<(GeneratedCase, Policy)> {
    let case = history(u, &Config::everything())?;
    let policy = if bool::arbitrary(u)? {
        Policy::Suffix
    } else {
        Policy::Turns
    };
    Ok((case, policy))
}

/// A case as one compact case-format line (with `expected` for `policy`),
/// to paste into a corpus file or `reducer-kit check`.
pub(crate) fn case_line(case: &GeneratedCase, policy: Policy) -> String {
    serde_json::to_string(&case.to_case("fuzz/input".into(), policy))
        .expect("a case always serializes")
}

/// Compact JSON of a history.
pub(crate) fn json_line(messages: &[Value]) -> String {
    Value::Array(messages.to_vec()).to_string()
}
