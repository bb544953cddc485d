//! Fuzz targets, one module each, shared by `cargo fuzz` (the thin targets
//! in `fuzz/fuzz_targets/`) and plain `cargo test` (`tests/it/fuzzers.rs`
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
//! | [`parse_no_panic`]    | arbitrary bytes into every reader (JSON → views in every format, validator, reducers, every format's converters, case and input files, budgets, checker): an error, never a panic |
//! | [`format_roundtrip`]  | canonical → any wire format → canonical is the identity on generated histories, views and validity agree, and reduction commutes with conversion |
//! | [`validator_agrees`]  | on generated histories with random damage, the validator and a naive oracle agree on validity |
//! | [`reduce_invariants`] | in a format drawn of the six, with its own shapes, under a provider profile on a quarter of the inputs, the reference reducers' outputs pass every clause of the checker (provider-aware), plus budget, validity, idempotence and identity-when-fits directly |
//! | [`checker_convicts`]  | a reference output with a random mutation that changes it gets at least one failing verdict, and the clause a mutation must break |
//! | [`terms_agree`]       | on generated histories with random damage, `pinned_index`, `turns` and `pair` agree with a naive restatement of spec §2 |
//! | [`repair_invariants`] | on broken histories (the generator's breaks in every format, or random damage), the reference repair (policy `repair`, spec §17) is valid, its own repair, keeps all content, equals a naive restatement of §17.2, and passes every clause |
//!
//! [`TABLE`] is the one list of targets; `fuzz/Cargo.toml` and
//! `fuzz/fuzz_targets/` must name exactly these (`tests/it/fuzzers.rs`
//! checks), and `.ci/fuzz` runs what `cargo fuzz list` finds there.

use crate::generate::{history_read, Config, GeneratedCase};
use crate::terms::{BudgetFields, History, Policy};
use arbitrary::{Arbitrary, Unstructured};
use serde_json::Value;

pub mod checker_convicts;
pub mod format_roundtrip;
pub mod parse_no_panic;
pub mod reduce_invariants;
pub mod repair_invariants;
pub mod terms_agree;
pub mod validator_agrees;

/// One fuzz target: the entry points `fuzz/fuzz_targets/<name>.rs`, the
/// tests, `corpus add` and `corpus seed-fuzz` call.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The name, as in `fuzz/Cargo.toml`, `corpus/fuzz/<name>/` and
    /// `.ci/fuzz` (which asks `cargo fuzz list`).
    pub name: &'static str,
    /// Runs the target on the bytes; panics on a bug.
    pub run: fn(&mut Unstructured) -> arbitrary::Result<()>,
    /// What the target makes of the bytes (what `cargo fuzz fmt` prints).
    pub describe: fn(&[u8]) -> String,
    /// The history an input carries, for targets whose input is the
    /// generator's bytes; `None` for `parse_no_panic`, whose input is JSON
    /// text.
    pub carried: Option<fn(&mut Unstructured) -> arbitrary::Result<Carried>>,
    /// How many bytes of an input the target's decode reads before `run`
    /// judges what it decoded (`None` when the decode fails); the whole
    /// input for `parse_no_panic`. What [`trimmed_len`] cuts at.
    pub consumed: fn(&[u8]) -> Option<usize>,
}

/// The history a fuzz input carries, as its target reads it (what `corpus
/// add` turns into a regression case and `corpus seed-fuzz` picks seeds
/// by).
#[derive(Clone, Debug, PartialEq)]
pub struct Carried {
    /// The budget members the target uses: `maxMessages`, or (spec v2) a
    /// token budget.
    pub budget: BudgetFields,
    /// The history the target judges (canonical; for damaging targets, the
    /// damaged one).
    pub messages: Vec<Value>,
    /// The policy the target draws, when it draws one.
    pub policy: Option<Policy>,
}

impl Carried {
    /// What a target carries that runs on a generated case as it is.
    pub(crate) fn case(case: &GeneratedCase, policy: Option<Policy>) -> Carried {
        Carried {
            budget: BudgetFields::messages(Value::from(case.budget)),
            messages: case.messages.clone(),
            policy,
        }
    }

    /// What a target carries that runs on a generated case with its token
    /// budget, when it has one (spec v2).
    pub(crate) fn with_costs(case: &GeneratedCase, policy: Option<Policy>) -> Carried {
        Carried {
            budget: case.budget_fields(),
            messages: case.messages.clone(),
            policy,
        }
    }
}

macro_rules! table {
    ($($name:ident: $carried:expr),* $(,)?) => {
        /// Every fuzz target, in this order: the one list of them. Seeds
        /// are drawn per target by its position, so a new target goes last.
        pub const TABLE: &[Target] = &[$(Target {
            name: stringify!($name),
            run: $name::run,
            describe: $name::describe,
            carried: $carried,
            consumed: $name::consumed,
        }),*];
    };
}

table! {
    parse_no_panic: None,
    format_roundtrip: Some(format_roundtrip::carried),
    validator_agrees: Some(validator_agrees::carried),
    reduce_invariants: Some(reduce_invariants::carried),
    checker_convicts: Some(checker_convicts::carried),
    terms_agree: Some(terms_agree::carried),
    repair_invariants: Some(repair_invariants::carried),
}

const NAMES: [&str; TABLE.len()] = {
    let mut names = [""; TABLE.len()];
    let mut i = 0;
    while i < TABLE.len() {
        names[i] = TABLE[i].name;
        i += 1;
    }
    names
};

/// The names of the fuzz targets, in [`TABLE`] order.
pub const TARGETS: &[&str] = &NAMES;

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TABLE.iter().find(|t| t.name == name)
}

fn named(name: &str) -> &'static Target {
    target(name).unwrap_or_else(|| panic!("unknown fuzz target {name:?}"))
}

/// Runs target `name` on `bytes` (as the fuzz target would).
///
/// # Panics
///
/// On a bug found by the target, and for an unknown `name`.
pub fn run_target(name: &str, bytes: &[u8]) {
    let _ = (named(name).run)(&mut Unstructured::new(bytes));
}

/// How many bytes of `bytes` target `name` reads, as a prefix it makes
/// the same thing of as of the whole; `bytes.len()` when there is no such
/// shorter prefix. The generator draws from the front of its input
/// (`int_in_range`, `u8`, `bool`: nothing from the end) and stops when the
/// history is built, so the bytes after the last draw are never read. A
/// seed that carries them makes libFuzzer start with long inputs and keep
/// longer ones.
///
/// The prefix is the bytes the target's decode consumed ([`Target::consumed`]),
/// kept only when the target makes the same thing of it: the same
/// [`describe_target`] text (the generated case, the policy, the damage or
/// mutation drawn) and the same [`Carried`] history and budget. Cutting
/// again cuts nothing: the prefix is read to its end. `bytes.len()` for
/// `parse_no_panic` (JSON text: a prefix is another input) and for an
/// input the target cannot decode.
///
/// Not compared: `reduce_invariants` picks which history-independent
/// check it runs from a hash of all the bytes (`input_pick`), so its
/// cut input may run another of them; `cargo test` runs all of them on
/// every seed.
///
/// # Panics
///
/// For an unknown `name`.
pub fn trimmed_len(name: &str, bytes: &[u8]) -> usize {
    let t = named(name);
    let Some(carried) = t.carried else {
        return bytes.len();
    };
    let Some(k) = (t.consumed)(bytes).filter(|&k| k < bytes.len()) else {
        return bytes.len();
    };
    let carries = |b: &[u8]| carried(&mut Unstructured::new(b)).ok();
    let same =
        (t.describe)(&bytes[..k]) == (t.describe)(bytes) && carries(&bytes[..k]) == carries(bytes);
    if same {
        k
    } else {
        bytes.len()
    }
}

/// How many bytes `decode` reads of `bytes` (from the front: the rest is
/// left), or `None` when it fails.
pub(crate) fn consumed_by<T>(
    bytes: &[u8],
    decode: fn(&mut Unstructured) -> arbitrary::Result<T>,
) -> Option<usize> {
    let mut u = Unstructured::new(bytes);
    decode(&mut u).ok().map(|_| bytes.len() - u.len())
}

/// What target `name` makes of `bytes`: the `Debug` of its `Input`.
///
/// # Panics
///
/// For an unknown `name`.
pub fn describe_target(name: &str, bytes: &[u8]) -> String {
    (named(name).describe)(bytes)
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

/// What `decode` makes of `bytes`, as its `Debug`, or why it cannot
/// (`<target>: undecodable input: ...`).
pub(crate) fn describe_decoded<T: std::fmt::Debug>(
    target: &str,
    bytes: &[u8],
    decode: fn(&mut Unstructured) -> arbitrary::Result<T>,
) -> String {
    match decode(&mut Unstructured::new(bytes)) {
        Ok(s) => format!("{s:?}"),
        Err(e) => format!("{target}: undecodable input: {e}"),
    }
}

/// A generated case under [`Config::everything`] with the costs knob on
/// (about half the cases get a token budget, spec §13.4; its shapes are
/// not detected: no target reads them), a policy, and whether summaries
/// are allowed (and S, the case's `summaryTokens` under a token budget,
/// else 1), drawn in that order.
pub(crate) fn case_policy_summary(
    u: &mut Unstructured,
) -> arbitrary::Result<(GeneratedCase, Policy, Option<u64>)> {
    case_policy_summary_read(u).map(|(case, _, policy, summary)| (case, policy, summary))
}

/// [`case_policy_summary`] with the case's messages read in the canonical
/// format, as the generator read them ([`history_read`]): the same draws,
/// and a target that judges the case reads it no more.
pub(crate) fn case_policy_summary_read(
    u: &mut Unstructured,
) -> arbitrary::Result<(GeneratedCase, History, Policy, Option<u64>)> {
    let cfg = Config {
        costs: true,
        ..Config::everything()
    };
    case_policy_summary_under(u, &cfg)
}

/// [`case_policy_summary_read`] with the case drawn under `cfg` (which
/// should have the costs knob on): the case, its canonical reading, a
/// policy and whether summaries are allowed, drawn in that order.
pub(crate) fn case_policy_summary_under(
    u: &mut Unstructured,
    cfg: &Config,
) -> arbitrary::Result<(GeneratedCase, History, Policy, Option<u64>)> {
    let (case, history) = history_read(u, cfg)?;
    let policy = if bool::arbitrary(u)? {
        Policy::Suffix
    } else {
        Policy::Turns
    };
    let summary = bool::arbitrary(u)?.then(|| case.costs.as_ref().map_or(1, |c| c.summary_tokens));
    Ok((case, history, policy, summary))
}

/// A number drawn from the whole of an input's bytes (FNV-1a), without
/// consuming them: what a target uses to pick which of several
/// history-independent checks to run on this execution, so that every
/// execution pays for one of them rather than all (libFuzzer's mutations
/// change it, and the same input picks the same check again). The
/// generator usually reads an input to its end, so a draw after the case
/// would nearly always be the default.
pub(crate) fn input_pick(u: &Unstructured) -> u64 {
    let bytes = u.peek_bytes(u.len()).unwrap_or_default();
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h: u64, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A case as one compact case-format line (with `expected` for `policy`),
/// to paste into a corpus file or `reducer-kit check`.
pub(crate) fn case_line(case: &GeneratedCase, policy: Policy) -> String {
    serde_json::to_string(&case.to_case("fuzz/input".into(), policy))
        .expect("a case always serializes")
}

/// [`case_line`] for a summaries run: the case says `summary: true` and,
/// under a token budget, its `summaryTokens`.
pub(crate) fn case_line_with(case: &GeneratedCase, policy: Policy, summary: Option<u64>) -> String {
    let mut c = case.to_case("fuzz/input".into(), policy);
    if let Some(s) = summary {
        c.summary = true;
        c.spec = 2;
        if c.max_tokens.is_some() {
            c.summary_tokens = Some(s);
        }
    }
    serde_json::to_string(&c).expect("a case always serializes")
}

/// Compact JSON of a history.
pub(crate) fn json_line(messages: &[Value]) -> String {
    Value::Array(messages.to_vec()).to_string()
}
