//! The generator of valid tool-bearing histories (issue 3), modelled on
//! wasm-smith.
//!
//! [`history`] builds a canonical history (semantics §1) from an
//! [`arbitrary::Unstructured`] in a fixed order of private steps: the leading
//! segment, the turns (a user question, then steps: assistant replies, tool
//! steps with 1–8 parallel calls and their results, approval flows, later
//! system messages, then maybe a final answer), a pending tail, the pinned
//! system message, and last the budget. Every count is drawn by a helper that
//! never fails when the bytes run out and then gives the smallest choice, so
//! fewer bytes give simpler histories (no bytes give an empty history with
//! budget 1).
//!
//! Every history is valid by construction: it passes
//! [`crate::validate::validate`], with `allow_pending` only when the config
//! has [`Config::pending`] on. Each shape sits behind a [`Config`] knob;
//! [`shapes`] reports which [`Shape`]s a case shows.
//!
//! [`seeded_cases`] is a deterministic stream of cases: the same seed gives
//! the same cases on every machine (ChaCha8 bytes fed to `Unstructured`).
//!
//! | file | owns |
//! |------|------|
//! | `mod.rs` | [`GeneratedCase`], [`history`], the seeded streams |
//! | `builder/` | the steps that build one history and the budget draw (`mod.rs`); ids, messages and items (`content.rs`) |
//! | `config.rs` | [`Config`]: one knob per shape, swarm drawing |
//! | `shape.rs` | [`Shape`]s, detected from any canonical case |
//! | [`shrink`] | shrinking a case greedily to a smaller valid one ([`shrink::QuickCase`], also quickcheck's `Arbitrary`) |

mod builder;
mod config;
mod shape;
pub mod shrink;

pub use config::{
    Config, MAX_APPROVAL_REQUESTS, MAX_LARGE_PAYLOAD_BYTES, MAX_PARALLEL_CALLS, MAX_STEPS,
    MAX_TURNS,
};
pub use shape::{shapes, Shape, KNOWN_OPAQUE_TYPES, LARGE_PAYLOAD_THRESHOLD};

use crate::case::expect::expectation;
use crate::case::{Case, SPEC_VERSION};
use crate::terms::Policy;
use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::collections::BTreeSet;

/// One generated case: a valid canonical history and a budget.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedCase {
    /// The history, canonical format (semantics §1).
    pub messages: Vec<Value>,
    /// `maxMessages`, ≥ 1, drawn around the edges (1, a turn boundary,
    /// exactly fits, one short, larger than the history).
    pub budget: usize,
    /// Whether the history may end with pending calls and approval requests
    /// in its newest turn (the config had `pending` on); validate with
    /// `allow_pending` set to this.
    pub allow_pending: bool,
    /// The shapes the case shows ([`shapes`] of `messages` and `budget`).
    pub shapes: BTreeSet<Shape>,
}

impl GeneratedCase {
    /// The case in the case format (`crate::case`), with the reference
    /// expectation of `policy` ([`crate::case::expect::expectation`]; a
    /// generated history is valid under its `allow_pending`, so
    /// `violations` stays empty).
    ///
    /// # Panics
    ///
    /// When the reference cannot read the history, which never happens for
    /// a generated one.
    pub fn to_case(&self, id: String, policy: Policy) -> Case {
        let max_messages = Value::from(self.budget);
        let e = expectation(policy, &max_messages, &self.messages, self.allow_pending)
            .expect("the reference reducer accepts every generated case");
        let mut case = Case {
            id,
            spec: SPEC_VERSION,
            policy,
            max_messages,
            messages: self.messages.clone(),
            expected: None,
            expected_error: None,
            clauses: Vec::new(),
            allow_pending: self.allow_pending,
            violations: Vec::new(),
            description: String::new(),
        };
        e.apply_to(&mut case);
        case
    }
}

/// Builds one case from `u` under `cfg` (after a swarm draw when
/// `cfg.swarm`). See the module doc for the order of steps.
///
/// # Errors
///
/// None in practice: every draw falls back to its smallest choice when the
/// bytes run out. The `Result` follows the `arbitrary` convention.
///
/// # Examples
///
/// ```
/// use reducer_kit::generate::{history, Config};
/// use reducer_kit::{formats::{view_history, Format}, validate::{validate, Options}};
/// let bytes: Vec<u8> = (0..2000u32).map(|i| (i * 7919 % 251) as u8).collect();
/// let case = history(&mut arbitrary::Unstructured::new(&bytes), &Config::default()).unwrap();
/// let views = view_history(Format::Canonical, &case.messages).unwrap();
/// assert!(validate(&views, Options { allow_pending: case.allow_pending }).is_empty());
/// assert!(case.budget >= 1);
/// ```
pub fn history(u: &mut Unstructured, cfg: &Config) -> arbitrary::Result<GeneratedCase> {
    let cfg = if cfg.swarm {
        Config::arbitrary_within(u, cfg)?
    } else {
        cfg.clone().sanitize()
    };
    let messages = builder::messages(u, &cfg)?;
    let budget = builder::draw_budget(u, &messages)?;
    let shapes = shapes(&messages, budget);
    Ok(GeneratedCase {
        messages,
        budget,
        allow_pending: cfg.pending,
        shapes,
    })
}

/// Case `n` of the stream `seed`: ChaCha8 seeded with `seed`, stream `n`,
/// gives a buffer of 256 to 8,192 bytes that [`history`] reads. The same
/// (seed, n, cfg) gives the same case on every machine, whatever other
/// cases were made before.
pub fn seeded_case(seed: u64, n: u64, cfg: &Config) -> GeneratedCase {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(n);
    let len = 256usize << (rng.next_u32() % 6);
    let mut buf = vec![0u8; len];
    rng.fill_bytes(&mut buf);
    history(&mut Unstructured::new(&buf), cfg).expect("the generator never fails")
}

/// The cases `0..count` of the stream `seed` (see [`seeded_case`]).
///
/// # Examples
///
/// ```
/// use reducer_kit::generate::{seeded_cases, Config};
/// let a: Vec<_> = seeded_cases(7, 20, &Config::default()).collect();
/// let b: Vec<_> = seeded_cases(7, 20, &Config::default()).collect();
/// assert_eq!(a, b);
/// ```
pub fn seeded_cases(seed: u64, count: u64, cfg: &Config) -> impl Iterator<Item = GeneratedCase> {
    let cfg = cfg.clone();
    (0..count).map(move |n| seeded_case(seed, n, &cfg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{view_history, Format};
    use crate::validate::{validate, Options};

    fn valid(case: &GeneratedCase) -> bool {
        let views = view_history(Format::Canonical, &case.messages).unwrap();
        let v = validate(
            &views,
            Options {
                allow_pending: case.allow_pending,
            },
        );
        assert!(
            v.is_empty(),
            "{v:?}\n{}",
            Value::Array(case.messages.clone())
        );
        true
    }

    #[test]
    fn no_bytes_give_the_empty_history() {
        let c = history(&mut Unstructured::new(&[]), &Config::everything()).unwrap();
        assert!(c.messages.is_empty());
        assert_eq!(c.budget, 1);
        assert!(!c.allow_pending);
        let expected: BTreeSet<Shape> = [
            Shape::Empty,
            Shape::NoTurns,
            Shape::PinnedAbsent,
            Shape::BudgetOne,
            Shape::BudgetLarger,
        ]
        .into();
        assert_eq!(c.shapes, expected);
    }

    #[test]
    fn all_ones_stay_valid_and_bounded() {
        let cfg = Config {
            swarm: false,
            ..Config::everything()
        };
        for fill in [0x00u8, 0x01, 0x7f, 0xff] {
            let bytes = vec![fill; 4096];
            let c = history(&mut Unstructured::new(&bytes), &cfg).unwrap();
            assert!(valid(&c));
            assert!(c.budget >= 1);
        }
    }

    #[test]
    fn anthropic_config_histories_convert_both_ways() {
        let cfg = Config::everything().sanitize_for(Format::Anthropic);
        for c in seeded_cases(4, 300, &cfg) {
            assert!(valid(&c));
            let a = crate::formats::anthropic::to_anthropic(&c.messages)
                .unwrap_or_else(|e| panic!("{e}: {}", Value::Array(c.messages.clone())));
            let back = crate::formats::anthropic::from_anthropic(&a).unwrap();
            assert!(crate::json::json_eq(
                &Value::Array(back),
                &Value::Array(c.messages.clone())
            ));
        }
    }

    #[test]
    fn openai_config_histories_convert_both_ways() {
        for c in seeded_cases(3, 300, &Config::for_openai()) {
            assert!(valid(&c));
            let o = crate::formats::openai::to_openai(&c.messages).unwrap();
            let back = crate::formats::openai::from_openai(&o).unwrap();
            assert!(crate::json::json_eq(
                &Value::Array(back),
                &Value::Array(c.messages.clone())
            ));
        }
    }
}
