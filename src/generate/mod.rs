//! The generator of valid tool-bearing histories, modelled on
//! wasm-smith.
//!
//! [`history`] builds a canonical history (spec §1) from an
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
//! [`shapes`] reports which [`Shape`]s a case shows. With a break knob on
//! ([`Config::for_repair`], spec §17.6) the valid history is then broken
//! on purpose ([`breakage::apply`]): it breaks a validator rule, and
//! [`GeneratedCase::breaks`] says how.
//!
//! [`seeded_cases`] is a deterministic stream of cases: the same seed gives
//! the same cases on every machine (ChaCha8 bytes fed to `Unstructured`).
//!
//! With [`Config::costs`] on (protocol 2 runs), about half of the cases
//! also get a token budget ([`Costs`], spec §13.4), drawn after
//! everything else: from the rest of the bytes in [`history`], from a
//! second buffer of the same ChaCha8 stream in [`seeded_case`], so that a
//! seeded case's messages and message budget are the same with the knob on
//! or off.
//!
//! | file | owns |
//! |------|------|
//! | `mod.rs` | [`GeneratedCase`], [`history`], the seeded streams |
//! | `builder/` | the steps that build one history and the budget draw (`mod.rs`); ids, messages and items (`content.rs`) |
//! | `config.rs` | [`Config`]: one knob per shape, swarm drawing |
//! | [`breakage`] | broken histories on purpose (spec §17.6): the [`Break`]s and where they apply |
//! | `costs.rs` | [`Costs`]: token budgets for protocol 2 |
//! | [`server_ids`] | the server ids of a stored Responses conversation (`msg_…`, `fc_…`) |
//! | `shape.rs` | [`Shape`]s, detected from any canonical case |
//! | [`knob`] | the config's switches by name (`certify --without`), and whether a case shows one |
//! | [`shrink`] | shrinking a case greedily to a smaller valid one ([`shrink::QuickCase`], also quickcheck's `Arbitrary`) |

pub mod breakage;
mod builder;
mod config;
mod costs;
pub mod knob;
pub mod server_ids;
mod shape;
pub mod shrink;

pub use breakage::Break;
pub use config::{
    Config, MAX_APPROVAL_REQUESTS, MAX_LARGE_PAYLOAD_BYTES, MAX_PARALLEL_CALLS, MAX_STEPS,
    MAX_TURNS,
};
pub use costs::Costs;
pub use shape::{shapes, token_shapes, Shape, KNOWN_OPAQUE_TYPES, LARGE_PAYLOAD_THRESHOLD};

use crate::case::expect::expectation;
use crate::case::Case;
use crate::formats::{read_history, Format};
use crate::terms::{Budget, BudgetFields, History, Policy};
use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::collections::BTreeSet;

/// One generated case: a valid canonical history and a budget.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedCase {
    /// The history, canonical format (spec §1).
    pub messages: Vec<Value>,
    /// `maxMessages`, ≥ 1, drawn around the edges (1, a turn boundary,
    /// exactly fits, one short, larger than the history).
    pub budget: usize,
    /// Whether the history may end with pending calls and approval requests
    /// in its newest turn (the config had `pending` on); validate with
    /// `allow_pending` set to this.
    pub allow_pending: bool,
    /// The token budget that replaces `budget` in a protocol 2 run, when
    /// the config has [`Config::costs`] on and the draw chose one.
    pub costs: Option<Costs>,
    /// The shapes the case shows: [`shapes`] of `messages` and `budget`;
    /// with a token budget, those of the history (not of `budget`) and
    /// [`token_shapes`].
    pub shapes: BTreeSet<Shape>,
    /// The breaks applied to the history (spec §17.6), in order: empty
    /// unless the config turns a break knob on ([`Config::breaks`]); the
    /// history is then broken (it breaks a validator rule).
    pub breaks: Vec<Break>,
}

impl Costs {
    /// The costs as a [`Budget`], `None` when `max_tokens` is 0 (never for
    /// a drawn one).
    pub fn budget(&self) -> Option<Budget> {
        Budget::of_tokens(self.max_tokens, self.tokens.clone(), self.count_pinned)
    }
}

/// The shapes of a case with `budget` and maybe a token budget (see
/// [`GeneratedCase::shapes`]).
fn case_shapes(messages: &[Value], budget: usize, costs: Option<&Costs>) -> BTreeSet<Shape> {
    match costs.and_then(Costs::budget) {
        Some(b) => shapes_with(messages, Some(&b)),
        None => shapes(messages, budget),
    }
}

/// The shapes of a canonical history under a budget: [`shapes`] under a
/// message budget; under a token budget those of the history and
/// [`token_shapes`]; with no valid budget (`None`), those of the history
/// and budget 0 (no budget shape).
pub fn shapes_with(messages: &[Value], budget: Option<&Budget>) -> BTreeSet<Shape> {
    match budget {
        None => shapes(messages, 0),
        Some(b) if !b.is_tokens() => shapes(messages, b.max_messages()),
        Some(b) => {
            let mut out = shapes(messages, 0);
            out.retain(|s| !s.is_message_budget());
            out.extend(token_shapes(messages, b));
            out
        }
    }
}

impl GeneratedCase {
    /// The budget members of the case as a protocol 2 request sends them:
    /// the token budget when it has one, else `maxMessages`.
    pub fn budget_fields(&self) -> BudgetFields {
        match self.costs.as_ref().and_then(Costs::budget) {
            Some(b) => b.to_fields(),
            None => BudgetFields::messages(Value::from(self.budget)),
        }
    }

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
        let budget = self.budget_fields();
        let e = expectation(policy, &budget, &self.messages, self.allow_pending)
            .expect("the reference reducer reads every generated case");
        let mut case = Case {
            id,
            spec: 1,
            policy,
            max_messages: budget.max_messages,
            max_tokens: budget.max_tokens,
            tokens: budget.tokens,
            count_pinned: budget.count_pinned,
            summary: false,
            summary_tokens: None,
            messages: self.messages.clone(),
            expected: None,
            expected_error: None,
            clauses: Vec::new(),
            allow_pending: self.allow_pending,
            violations: Vec::new(),
            description: String::new(),
            run: None,
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
    build(u, None, cfg, true).map(|(case, _)| case)
}

/// [`history`] without detecting the case's shapes (`shapes` is left
/// empty): the same messages, budget and costs from the same bytes, for
/// callers that never read the shapes (detection is a tenth of a fuzz
/// execution; the fuzz targets make this draw through a crate-internal
/// variant that also hands on the history's canonical reading).
///
/// # Errors
///
/// As [`history`].
pub fn history_without_shapes(
    u: &mut Unstructured,
    cfg: &Config,
) -> arbitrary::Result<GeneratedCase> {
    build(u, None, cfg, false).map(|(case, _)| case)
}

/// [`history_without_shapes`] and the case's messages read in the
/// canonical format ([`read_history`]): the reading the budget draw made,
/// handed on so that a fuzz target reads its history once.
///
/// # Errors
///
/// As [`history`].
pub(crate) fn history_read(
    u: &mut Unstructured,
    cfg: &Config,
) -> arbitrary::Result<(GeneratedCase, History)> {
    let (case, reading) = build(u, None, cfg, false)?;
    let history = reading.unwrap_or_else(|| canonical_reading(&case.messages));
    Ok((case, history))
}

/// A generated history read in the canonical format.
fn canonical_reading(messages: &[Value]) -> History {
    read_history(Format::Canonical, messages).expect("generated histories are readable")
}

/// The canonical reading of `messages` in `slot`, made on first use: the
/// budget and cost draws share one.
fn canonical<'h>(slot: &'h mut Option<History>, messages: &[Value]) -> &'h History {
    slot.get_or_insert_with(|| canonical_reading(messages))
}

/// [`history`], drawing the costs (when `cfg.costs`) from `costs_from`, or
/// else from the rest of `u`; the shapes only when `detect_shapes`. With
/// the case, its canonical reading when a draw made one.
fn build(
    u: &mut Unstructured,
    costs_from: Option<&mut Unstructured>,
    cfg: &Config,
    detect_shapes: bool,
) -> arbitrary::Result<(GeneratedCase, Option<History>)> {
    let ceiling = cfg;
    let cfg = if cfg.swarm {
        Config::arbitrary_within(u, cfg)?
    } else {
        cfg.clone().sanitize()
    };
    let mut messages = builder::messages(u, &cfg)?;
    // Broken on purpose (spec §17.6), with the ceiling's breaks and
    // format: a swarm draw restricts the shapes, not the breaks.
    let breaks = if ceiling.breaks() {
        breakage::apply(
            u,
            &mut messages,
            &ceiling.clone().sanitize_for(ceiling.format),
        )?
    } else {
        Vec::new()
    };
    let mut reading = None;
    let budget = builder::draw_budget(u, &messages, &mut reading, cfg.format)?;
    let costs = match (cfg.costs, costs_from) {
        (false, _) => None,
        (true, Some(c)) => costs::draw(c, &messages, &mut reading)?,
        (true, None) => costs::draw(u, &messages, &mut reading)?,
    };
    // Half the Responses histories with reasoning are stored as a session
    // stores a model's output, server ids and all (spec §14.7): drawn last,
    // so that nothing else changes. The run's config decides whether ids
    // may come (`--without extra-fields` turns them off), not a swarm
    // draw's, which turns extra fields off in about half the cases.
    if ceiling.extra_fields && has_reasoning(&messages) && u.ratio(1, 2)? {
        server_ids::stamp(&mut messages);
    }
    let shapes = if detect_shapes {
        case_shapes(&messages, budget, costs.as_ref())
    } else {
        BTreeSet::new()
    };
    let case = GeneratedCase {
        messages,
        budget,
        allow_pending: cfg.pending && breaks.is_empty(),
        costs,
        shapes,
        breaks,
    };
    Ok((case, reading))
}

/// Whether a canonical history holds a reasoning item.
fn has_reasoning(messages: &[Value]) -> bool {
    messages.iter().any(|m| {
        m.get("contents")
            .and_then(Value::as_array)
            .is_some_and(|a| {
                a.iter()
                    .any(|i| i.get("$type").and_then(Value::as_str) == Some("reasoning"))
            })
    })
}

/// Case `n` of the stream `seed`: ChaCha8 seeded with `seed`, stream `n`,
/// gives a buffer of 256 to 8,192 bytes that [`history`] reads, then (with
/// [`Config::costs`]) 256 more bytes for the costs. The same (seed, n, cfg)
/// gives the same case on every machine, whatever other cases were made
/// before; the costs knob changes nothing but the costs.
pub fn seeded_case(seed: u64, n: u64, cfg: &Config) -> GeneratedCase {
    seeded(seed, n, cfg, true)
}

/// [`seeded_case`] without detecting the case's shapes (`shapes` is left
/// empty): the same messages, budget and costs, for callers that never
/// read the shapes (`certify`'s generated cases, [`crate::certify::generated_case_from`]):
/// detection is about a quarter of a seeded case's CPU time
/// (`benches/README.md`).
pub fn seeded_case_without_shapes(seed: u64, n: u64, cfg: &Config) -> GeneratedCase {
    seeded(seed, n, cfg, false)
}

/// [`seeded_case`], the shapes detected only when `detect_shapes`.
fn seeded(seed: u64, n: u64, cfg: &Config, detect_shapes: bool) -> GeneratedCase {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(n);
    let len = 256usize << (rng.next_u32() % 6);
    let mut buf = vec![0u8; len];
    rng.fill_bytes(&mut buf);
    let mut cost_bytes = [0u8; 256];
    if cfg.costs {
        rng.fill_bytes(&mut cost_bytes);
    }
    build(
        &mut Unstructured::new(&buf),
        Some(&mut Unstructured::new(&cost_bytes)),
        cfg,
        detect_shapes,
    )
    .expect("the generator never fails")
    .0
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

    #[test]
    fn history_read_hands_on_the_reading_of_the_same_case() {
        // The fuzz targets' draw: the same case as history_without_shapes
        // from the same bytes, and the reading a fresh read gives.
        let cfg = Config {
            costs: true,
            ..Config::everything()
        };
        let mut token_budgets = 0;
        for seed in 0..40u32 {
            let bytes: Vec<u8> = (0..1024u32)
                .map(|i| (i.wrapping_mul(7919).wrapping_add(seed * 104_729) % 251) as u8)
                .collect();
            let plain = history_without_shapes(&mut Unstructured::new(&bytes), &cfg).unwrap();
            let (case, reading) = history_read(&mut Unstructured::new(&bytes), &cfg).unwrap();
            assert_eq!(case, plain, "seed {seed}");
            let fresh = read_history(Format::Canonical, &case.messages).unwrap();
            assert_eq!(format!("{reading:?}"), format!("{fresh:?}"), "seed {seed}");
            token_budgets += usize::from(case.costs.is_some());
        }
        // Both paths of the shared reading: made by the budget draw alone,
        // and reused by the cost draw.
        assert!(token_budgets > 0 && token_budgets < 40, "{token_budgets}");
    }

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
    fn seeded_cases_without_shapes_are_the_same_cases() {
        for cfg in [Config::everything(), Config::for_repair(Format::Canonical)] {
            let cfg = Config { costs: true, ..cfg };
            for n in 0..60 {
                let with = seeded_case(5, n, &cfg);
                let without = seeded_case_without_shapes(5, n, &cfg);
                assert!(without.shapes.is_empty());
                assert_eq!(
                    GeneratedCase {
                        shapes: BTreeSet::new(),
                        ..with
                    },
                    without
                );
            }
        }
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
    fn new_format_config_histories_convert_both_ways() {
        use crate::formats::{from_wire, to_wire};
        for format in [Format::Responses, Format::Gemini, Format::Bedrock] {
            let cfg = Config::for_format(format);
            let mut reasoning = 0;
            for c in seeded_cases(6, 400, &cfg) {
                assert!(valid(&c));
                let w = to_wire(format, &c.messages).unwrap_or_else(|e| {
                    panic!("{format}: {e}: {}", Value::Array(c.messages.clone()))
                });
                let back = from_wire(format, &w).unwrap();
                assert!(crate::json::json_eq(
                    &Value::Array(back),
                    &Value::Array(c.messages.clone())
                ));
                reasoning += usize::from(c.shapes.contains(&Shape::ReasoningItem));
            }
            assert_eq!(reasoning > 0, format == Format::Responses, "{format}");
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
