//! The reference reducers' outputs pass every clause, in every format and
//! under the provider profiles.
//!
//! **What is drawn.** Each input draws, from its first bytes, one wire
//! format of the six ([`Format::ALL`]) and, on about a quarter of the
//! inputs, a provider profile that fits it ([`profiles_for`]: any of the
//! five for canonical histories; `openai-chat` or `anthropic` for OpenAI
//! Chat Completions; the format's own provider for the others), then a
//! case the way `certify` draws one in that format under that profile
//! with protocol 2 ([`crate::certify::generator_config_without`] of [`knob::outside`]):
//! every shape the format carries but those a default run leaves out
//! (spec §9.5: approval items where the format or the profile has no
//! place for them), its own shapes on
//! ([`Config::with_native_shapes`](crate::generate::Config::with_native_shapes):
//! reasoning items in Responses, spec §14.1; the user's text beside
//! results in Anthropic and Bedrock, spec §1.6), about half the
//! cases with a token budget (spec §11), then a policy and maybe summaries
//! allowed (spec §12). The case is converted into its format as `certify`
//! sends it (its `wire` form: under a token budget the wire form must have one
//! message per message); a case with no such form (rare: the generator
//! draws what the format carries) is judged in the canonical format
//! instead, and [`Drawn::judged_in`] says so.
//!
//! **What is checked.** The reference of the policy in that format, under
//! that profile ([`Reference::with_provider`]), answers the case and the
//! extra requests `deterministic`, `idempotent` and `budget-monotone` need
//! (planned by [`crate::check::extra_requests`]), and the checker's
//! provider-aware judgement ([`check`](crate::check::check()) under the profile, as
//! `certify --provider` judges: `provider-accepts`, and the profile's
//! excuses of spec §15.5) gives no failing verdict. Checked directly as
//! well: the output's cost fits the budget, is valid, reduces to itself
//! (under a message budget with the same budget; under a token budget at
//! the output's costs, when the checker asks for that answer), is the
//! input when the input fits; an answer that is an error is an
//! unsatisfiable token budget or, under a profile, no accepted output
//! (spec §15.4); and an invalid budget (or, for a token budget, invalid
//! `tokens` or `countPinned`) is rejected by the reducer and that
//! rejection passes `rejects-bad-budget`.
//!
//! **Each answer computed once, as a selection.** The reference's answer
//! to the case is selected once ([`Reference::reduce`] on the input read
//! once, [`reduce::Input::classified`]) and its messages copied once: it
//! is the checker's first answer (what
//! [`check_reducer`](crate::check::check_reducer) would ask for), the
//! direct checks read it or its selection, and it is, borrowed, the answer
//! `matches-reference` is judged against. The extra answers are selected
//! again: an answer whose selection is the first answer's (for the output
//! reduced again: the whole output, the direct idempotence check) is the
//! first answer itself, borrowed ([`ExtrasRef`]), and only an answer that
//! differs is copied out. The checker judges the same answers it would be
//! given as copies (executions per second).
//!
//! **One of each per execution.** One format and at most one profile per
//! input, drawn from its first bytes (a mutation past them keeps the
//! format and the profile). The invalid budget is picked per input (`fuzzers::input_pick`):
//! one of the 5 (11 under a token budget) in turn, rather than all of them
//! on every execution; they hardly depend on the history, and judging all
//! of them made up most of an execution (executions per second). `cargo
//! test` runs every seed this way too; [`check_drawn`] with
//! [`Variants::All`] judges them all.

use crate::check::{
    check, check_classified, extra_requests, ExtraKind, Extras, ExtrasRef, Outcome, Request,
};
use crate::formats::{read_history, to_wire, Format};
use crate::generate::{knob, Config, GeneratedCase};
use crate::protocol::Response;
use crate::reduce::{self, select_indices, ReduceError, Reference, Selection};
use crate::terms::{Budget, BudgetFields, Clause, History, Policy, Provider};
use crate::validate::{validate_history, Options};
use arbitrary::Unstructured;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::fmt;

super::fuzz_input!();

/// The format a case is drawn and judged in, and the provider profile the
/// reference honours and the checker judges by, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pick {
    /// The wire format.
    pub format: Format,
    /// The provider profile (spec §15), one of [`profiles_for`] the
    /// format.
    pub provider: Option<Provider>,
}

impl Pick {
    /// The canonical format, no profile.
    pub const CANONICAL: Pick = Pick {
        format: Format::Canonical,
        provider: None,
    };
}

/// The provider profiles drawn with histories in `format`: each of the
/// five for canonical histories (a reducer of canonical messages may serve
/// any provider), `openai-chat` and `anthropic` for OpenAI Chat
/// Completions messages (a gateway that speaks OpenAI to an Anthropic
/// model), and the format's own provider for the other formats; the
/// pairings `tests/mutant_conviction.rs` certifies.
pub fn profiles_for(format: Format) -> &'static [Provider] {
    match format {
        Format::Canonical => &Provider::ALL,
        Format::OpenAi => &[Provider::OpenAiChat, Provider::Anthropic],
        Format::Responses => &[Provider::OpenAiResponses],
        Format::Anthropic => &[Provider::Anthropic],
        Format::Gemini => &[Provider::Gemini],
        Format::Bedrock => &[Provider::Bedrock],
    }
}

/// What [`run`] judges: the pick, then the case drawn for it.
pub struct Drawn {
    /// The format and profile drawn.
    pub pick: Pick,
    /// The generated case (canonical messages).
    pub case: GeneratedCase,
    /// The case's messages read in the canonical format.
    pub history: History,
    /// The policy drawn.
    pub policy: Policy,
    /// Summaries allowed, and their cost (spec §12).
    pub summary: Option<u64>,
}

impl Drawn {
    /// The format the case is judged in: the pick's, or canonical when the
    /// case has no form in it that `certify` would send.
    pub fn judged_in(&self) -> Format {
        let format = self.pick.format;
        if wire(format, &self.case.messages, self.case.costs.is_some()).is_ok() {
            format
        } else {
            Format::Canonical
        }
    }

    fn line(&self) -> String {
        super::case_line_with(&self.case, self.policy, self.summary)
    }
}

impl fmt::Debug for Drawn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reduce_invariants in {}", self.pick.format)?;
        if let Some(p) = self.pick.provider {
            write!(f, " under the {p} profile")?;
        }
        write!(f, " case: {}", self.line())
    }
}

/// Decodes what [`run`] judges: a byte picks the format, one whether a
/// profile is drawn (a quarter of the values) and, if so, one which of
/// [`profiles_for`] the format; then the case ([`decode_as`]). Bytes run
/// out: canonical, no profile.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn decode(u: &mut Unstructured) -> arbitrary::Result<Drawn> {
    let format = Format::ALL[u.int_in_range(0..=Format::ALL.len() - 1)?];
    let provider = if u.int_in_range(0..=3u8)? == 3 {
        let fit = profiles_for(format);
        Some(fit[u.int_in_range(0..=fit.len() - 1)?])
    } else {
        None
    };
    decode_as(u, Pick { format, provider })
}

/// The case of `pick` drawn from `u`: under `certify`'s generator
/// configuration for the format and profile with protocol 2
/// ([`crate::certify::generator_config_without`] of [`knob::outside`]), then the policy and
/// summaries.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn decode_as(u: &mut Unstructured, pick: Pick) -> arbitrary::Result<Drawn> {
    let cfg = Config {
        costs: true,
        ..knob::without(
            Config::for_format(pick.format),
            &knob::outside(pick.format, pick.provider),
        )
    };
    let (case, history, policy, summary) = super::case_policy_summary_under(u, &cfg)?;
    Ok(Drawn {
        pick,
        case,
        history,
        policy,
        summary,
    })
}

/// Checks the reference output of a generated case.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
///
/// # Panics
///
/// When a property of the module doc fails, with the case as a case line.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let pick = super::input_pick(u);
    let d = decode(u)?;
    check_drawn(&d, Variants::Pick(pick));
    Ok(())
}

/// [`run`] with every invalid budget ([`Variants::All`]): what `cargo
/// test` runs on the committed seeds besides [`run`].
///
/// # Errors
///
/// Never in practice (the generator does not fail).
///
/// # Panics
///
/// As [`run`].
pub fn run_all(u: &mut Unstructured) -> arbitrary::Result<()> {
    let d = decode(u)?;
    check_drawn(&d, Variants::All);
    Ok(())
}

/// Which of the history-independent checks [`check_drawn`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variants {
    /// All of them: every invalid budget.
    All,
    /// The invalid budget the number picks (the number modulo how many
    /// there are).
    Pick(u64),
}

/// The generated case (with its token budget, canonical) and the policy
/// drawn.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn carried(u: &mut Unstructured) -> arbitrary::Result<super::Carried> {
    let d = decode(u)?;
    Ok(super::Carried::with_costs(&d.case, Some(d.policy)))
}

/// How many bytes [`decode`] reads of `bytes` (`run` also hashes all of
/// them, without reading, to pick its invalid budget; see
/// [`super::trimmed_len`]); `None` when it fails.
pub fn consumed(bytes: &[u8]) -> Option<usize> {
    super::consumed_by(bytes, decode)
}

/// The format, the profile, and the generated case and policy as a
/// case-format line.
pub fn describe(bytes: &[u8]) -> String {
    super::describe_decoded("reduce_invariants", bytes, decode)
}

/// Judges the reference output for the drawn case with every clause (see
/// the module doc), in the format it is judged in ([`Drawn::judged_in`]).
///
/// # Panics
///
/// When a clause fails or a direct check does not hold.
pub fn check_drawn(d: &Drawn, variants: Variants) {
    let line = || format!("{d:?}");
    let case = &d.case;
    let (policy, summary, provider) = (d.policy, d.summary, d.pick.provider);
    let (format, messages, history): (Format, Cow<[Value]>, History) =
        match wire(d.pick.format, &case.messages, case.costs.is_some()) {
            Ok(w) if d.pick.format != Format::Canonical => {
                let h = read_history(d.pick.format, &w).unwrap_or_else(|e| {
                    panic!("the {} form is unreadable: {e}\n{}", d.pick.format, line())
                });
                (d.pick.format, w, h)
            }
            _ => (
                Format::Canonical,
                Cow::Borrowed(&case.messages[..]),
                d.history.clone(),
            ),
        };
    let messages = &messages[..];
    let reference = Reference::new(policy, format).with_provider(provider);
    let judge = Judge { reference };
    let fields = case.budget_fields();
    let budget = Budget::read(&fields, messages.len()).expect("generated budgets are budgets");
    let pinned = history.pinned();
    let first_sel = select(reference, &fields, messages, &history);
    let sel = match &first_sel {
        Ok(sel) => sel,
        Err(e) => {
            // Only an unsatisfiable token budget (countPinned and the
            // pinned message alone over the limit), or under a profile no
            // accepted output and no turn start that fits alone.
            let unsatisfiable =
                budget.count_pinned() && pinned.is_some_and(|p| budget.cost(p) > budget.limit());
            assert!(
                unsatisfiable || matches!(e, ReduceError::NoAcceptedOutput(_)),
                "a generated budget was rejected: {e}\n{}",
                line()
            );
            let e = e.to_string();
            let req = request(policy, format, messages, &fields, summary, provider);
            let first = Response::Error(e.clone());
            judge_all(&req, judge, history, &Err(e), &first, None, &line);
            return;
        }
    };
    let out = sel.messages();
    let room = budget.available(pinned).expect("satisfiable");
    let rest = (0..messages.len()).filter(|&i| Some(i) != pinned);
    // What the policy's own selection costs before orphan removal: at
    // least what is kept (a profile keeps a part of it).
    let kept_cost = budget.cost_of(
        select_indices(policy, &history, &budget)
            .into_iter()
            .filter(|&j| Some(j) != pinned),
    );
    if !budget.is_tokens() {
        assert!(
            out.len() - usize::from(pinned.is_some()) <= budget.max_messages(),
            "over budget\n{}",
            line()
        );
    } else {
        assert!(
            kept_cost <= room,
            "over budget: {kept_cost} > {room}\n{}",
            line()
        );
    }
    let out_h = read_history(format, &out).expect("outputs are readable");
    let v = validate_history(
        &out_h,
        Options {
            allow_pending: case.allow_pending,
        },
    );
    assert!(v.is_empty(), "invalid output: {v:?}\n{}", line());
    if budget.cost_of(rest) <= room {
        // Every message kept whole: the output is the input.
        assert!(sel.keeps_all(), "a fitting input changed\n{}", line());
    }
    let first_sel = indices(&first_sel);

    // The reference answer is `out`: the checker's first answer, and the
    // output the direct idempotence check reduces again.
    let req = request(policy, format, messages, &fields, summary, provider);
    let first = Response::Messages(out);
    let idempotent = Idempotent {
        budget: &budget,
        output: &out_h,
    };
    judge_all(
        &req,
        judge,
        history,
        &first_sel,
        &first,
        Some(idempotent),
        &line,
    );

    // The invalid budgets, by number: 5 message budgets, then (under a
    // token budget) 5 or 6 changes to the case's token budget. Only those
    // judged are built.
    let n = messages.len();
    let count = if budget.is_tokens() {
        10 + usize::from(n > 0)
    } else {
        5
    };
    let bad_budget = |k: usize| -> BudgetFields {
        let plain = [json!(0), json!(-1), json!(1.5), json!("3"), Value::Null];
        if k < plain.len() {
            return BudgetFields::messages(plain[k].clone());
        }
        let mut b = fields.clone();
        match k {
            5 => b.max_tokens = Some(json!(0)),
            6 => b.tokens = Some(json!(vec![1; n + 1])),
            7 => b.tokens = None,
            8 => b.count_pinned = Some(json!("yes")),
            9 => b.max_messages = Some(json!(3)),
            _ => {
                let mut t = vec![json!(1); n];
                t[n - 1] = json!(-1);
                b.tokens = Some(Value::Array(t));
            }
        }
        b
    };
    let bad: Vec<BudgetFields> = match variants {
        Variants::All => (0..count).map(bad_budget).collect(),
        Variants::Pick(p) => vec![bad_budget((p % count as u64) as usize)],
    };
    for bad in bad {
        let r = reference.reduce(reduce::Input::new(messages).budget_fields(&bad));
        assert!(
            matches!(r, Err(ReduceError::BadBudget(_))),
            "budget {bad:?} not rejected\n{}",
            line()
        );
        let req = request(policy, format, messages, &bad, summary, provider);
        let extras = Extras {
            reference: Some(Response::from(r)),
            ..Extras::default()
        };
        let verdicts = check(&req, &Response::Error("bad budget".into()), &extras)
            .expect("generated inputs are readable");
        // A budget written other than as an integer is judged at the
        // protocol level (spec §6.2).
        let judge = match bad.spelled() {
            Some((_, v)) if crate::terms::Budget::parse(v).is_err() => Clause::ProtocolBudget,
            _ => Clause::RejectsBadBudget,
        };
        let rejects = verdicts
            .iter()
            .find(|v| v.clause == judge)
            .expect("rejects-bad-budget and protocol-budget are judged for every policy");
        assert_eq!(rejects.outcome, Outcome::Pass, "budget {bad:?}\n{}", line());
        let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
        assert!(failed.is_empty(), "budget {bad:?}: {failed:?}\n{}", line());
    }
}

/// The case's messages in `format` as `certify` sends them: under a token
/// budget (`costs`) only a wire form of one message per message, or the
/// costs could not travel.
fn wire(format: Format, messages: &[Value], costs: bool) -> Result<Cow<'_, [Value]>, ()> {
    if format == Format::Canonical {
        return Ok(Cow::Borrowed(messages));
    }
    match to_wire(format, messages) {
        Ok(w) if !costs || w.len() == messages.len() => Ok(Cow::Owned(w)),
        _ => Err(()),
    }
}

/// The reference's answer to a request with budget members `fields` and
/// `messages` (classified as `history`), as a selection on `history`
/// ([`reduce::Input::classified`]).
fn select<'a>(
    reference: Reference,
    fields: &'a BudgetFields,
    messages: &'a [Value],
    history: &'a History,
) -> Result<Selection<'a>, ReduceError> {
    reference.reduce(reduce::Input::classified(messages, history).budget_fields(fields))
}

/// What a selection keeps, as indices: kept messages, and the items
/// removed from them.
type Indices = Result<(Vec<usize>, Vec<(usize, Vec<usize>)>), String>;

/// The indices of `sel`, kept beyond the history it borrows; its error as
/// the text the reference answers with.
fn indices(sel: &Result<Selection, ReduceError>) -> Indices {
    sel.as_ref()
        .map(|s| (s.kept().to_vec(), s.stripped().to_vec()))
        .map_err(ToString::to_string)
}

/// Whether `sel` keeps what `first` does.
fn same(sel: &Result<Selection, ReduceError>, first: &Indices) -> bool {
    match (sel, first) {
        (Ok(s), Ok((kept, stripped))) => s.kept() == kept && s.stripped() == stripped,
        (Err(a), Err(b)) => a.to_string() == *b,
        _ => false,
    }
}

/// The response `sel` stands for: the reference's answer (the kept
/// messages, or the error).
fn answer(sel: &Result<Selection, ReduceError>) -> Response {
    match sel {
        Ok(s) => Response::Messages(s.messages()),
        Err(e) => Response::Error(e.to_string()),
    }
}

/// A request in `format`, judged under `provider`'s profile.
fn request<'a>(
    policy: Policy,
    format: Format,
    messages: &'a [Value],
    budget: &'a BudgetFields,
    summary: Option<u64>,
    provider: Option<Provider>,
) -> Request<'a> {
    Request {
        format,
        policy,
        budget,
        messages,
        summary,
        declared: Default::default(),
        provider,
    }
}

/// The reference that answers (of the request's policy and format, under
/// the profile the request names, which the checker judges by).
#[derive(Clone, Copy)]
struct Judge {
    reference: Reference,
}

/// What the direct idempotence check of [`judge_all`] needs: the request's
/// budget, read, and the output's history.
#[derive(Clone, Copy)]
struct Idempotent<'a> {
    budget: &'a Budget,
    output: &'a History,
}

/// The reference's answer `first` to `req` (the selection `first_sel` on
/// the input, classified as `history`), with the extra requests the
/// checker plans answered by the reference, must pass every clause: what
/// [`check_reducer`](crate::check::check_reducer) judges with the reference
/// as the reducer, its first answer given (computed once by the caller,
/// who also checks it directly).
///
/// Each extra answer is computed as a selection. One that is the first
/// answer (the same selection of the input; for the output reduced again,
/// every message of the output kept whole) is `first` itself, borrowed
/// ([`ExtrasRef`]), as the answer `matches-reference` is judged against is:
/// the reference's determinism is judged by `deterministic` on the
/// selection made again, its idempotence by `idempotent` on the output's.
///
/// With `idempotent`, a direct check besides the checker's clause: the
/// output reduced again must be the output, whenever the checker asks for
/// that answer (`idempotent`: under a token budget at the output's costs)
/// and, under a message budget, in any case (computed here when the
/// checker does not ask).
fn judge_all(
    req: &Request,
    judge: Judge,
    history: History,
    first_sel: &Indices,
    first: &Response,
    idempotent: Option<Idempotent>,
    line: &dyn Fn() -> String,
) {
    let out = match first {
        Response::Messages(m) => Some(m.as_slice()),
        Response::Error(_) | Response::Unsupported(_) => None,
    };
    let plan = extra_requests(req, first);
    let read_out;
    let out_h: Option<&History> = match (idempotent, out) {
        (Some(i), _) => Some(i.output),
        (None, Some(m)) if plan.iter().any(|e| e.kind == ExtraKind::Again) => {
            read_out = read_history(req.format, m).unwrap_or_else(|e| {
                panic!(
                    "the reference output is unreadable in format {}: {e}\n{}",
                    req.format,
                    line()
                )
            });
            Some(&read_out)
        }
        _ => None,
    };
    // The output reduced again with `fields`, and whether that is the
    // output itself.
    let again = |fields: &BudgetFields| {
        let (m, h) = (out.expect("an output"), out_h.expect("its history"));
        let sel = select(judge.reference, fields, m, h);
        let whole = sel.as_ref().is_ok_and(Selection::keeps_all);
        (whole, (!whole).then(|| answer(&sel)))
    };
    // Each extra answer, `None` when it is `first`.
    let mut answers: Vec<(ExtraKind, u64, Option<Response>)> = Vec::with_capacity(plan.len());
    let mut again_checked = false;
    for extra in &plan {
        let r = match extra.kind {
            ExtraKind::Again => {
                let (whole, r) = again(&extra.budget);
                if idempotent.is_some() {
                    assert!(whole, "not idempotent\n{}", line());
                    again_checked = true;
                }
                r
            }
            ExtraKind::Repeat | ExtraKind::Smaller => {
                let sel = select(judge.reference, &extra.budget, req.messages, &history);
                (!same(&sel, first_sel)).then(|| answer(&sel))
            }
        };
        answers.push((extra.kind, extra.limit(), r));
    }
    if idempotent.is_some_and(|i| !i.budget.is_tokens()) && !again_checked && out.is_some() {
        assert!(again(req.budget).0, "not idempotent\n{}", line());
    }
    let mut extras = ExtrasRef {
        reference: Some(first),
        ..ExtrasRef::default()
    };
    for (kind, limit, r) in &answers {
        let r = r.as_ref().unwrap_or(first);
        match kind {
            ExtraKind::Repeat => extras.repeat = Some(r),
            ExtraKind::Again => extras.again = Some(r),
            ExtraKind::Smaller => extras.smaller = Some((*limit, r)),
        }
    }
    let verdicts =
        check_classified(req, history, first, extras).expect("generated inputs are readable");
    let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
    assert!(
        failed.is_empty(),
        "the reference output fails in format {}: {failed:?}\n{}",
        req.format,
        line()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{shapes, Shape};
    use rand::{RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random bytes, 64 to 1,087 of them, of stream `n`.
    fn bytes(n: u64) -> Vec<u8> {
        let mut rng = ChaCha8Rng::seed_from_u64(48);
        rng.set_stream(n);
        let mut buf = vec![0u8; 64 + (rng.next_u32() % 1024) as usize];
        rng.fill_bytes(&mut buf);
        buf
    }

    /// Whether the case shows a shape only one wire format has.
    fn native(d: &Drawn) -> bool {
        let s = shapes(&d.case.messages, 0);
        s.contains(&Shape::ReasoningItem) || s.contains(&Shape::ResultsBesideText)
    }

    /// Every pick (a format, and no profile or one that fits it), forced,
    /// on 24 inputs each: the reference passes every check (no false
    /// alarm), and nearly every case is judged in its format.
    #[test]
    fn every_format_and_profile_passes() {
        let mut picks = 0;
        for format in Format::ALL {
            let fit = profiles_for(format).iter().map(|&p| Some(p));
            for provider in std::iter::once(None).chain(fit) {
                picks += 1;
                let pick = Pick { format, provider };
                let mut in_format = 0;
                for n in 0..24 {
                    let b = bytes(n);
                    let d = decode_as(&mut Unstructured::new(&b), pick).unwrap();
                    check_drawn(&d, Variants::Pick(n));
                    in_format += usize::from(d.judged_in() == format);
                }
                assert!(in_format >= 20, "{pick:?}: {in_format} of 24 in the format");
            }
        }
        assert_eq!(picks, 17);
    }

    /// The formats' own shapes are drawn: reasoning items in Responses,
    /// text beside results in Anthropic, Bedrock and Gemini (at least 4
    /// cases of 400; 6 in each on these bytes, and 117 in Responses), and
    /// in no other format.
    #[test]
    fn each_format_draws_its_own_shapes() {
        for format in Format::ALL {
            let pick = Pick {
                format,
                provider: None,
            };
            let native = (0..400)
                .filter(|&n| native(&decode_as(&mut Unstructured::new(&bytes(n)), pick).unwrap()))
                .count();
            match format {
                Format::Responses | Format::Anthropic | Format::Bedrock | Format::Gemini => {
                    assert!(native >= 4, "{format}: {native} of 400")
                }
                _ => assert_eq!(native, 0, "{format}"),
            }
            eprintln!("{format}: {native} of 400 with the format's own shapes");
        }
    }

    /// The first bytes pick every format and every profile that fits it;
    /// no bytes: canonical, no profile.
    #[test]
    fn the_first_bytes_pick_every_format_and_profile() {
        let mut seen = std::collections::BTreeSet::new();
        for a in 0..=255u8 {
            for b in [0u8, 3, 255] {
                for c in 0..5u8 {
                    let d = decode(&mut Unstructured::new(&[a, b, c])).unwrap();
                    seen.insert((d.pick.format.name(), d.pick.provider.map(Provider::name)));
                }
            }
        }
        assert_eq!(seen.len(), 17, "{seen:?}");
        assert_eq!(
            decode(&mut Unstructured::new(&[])).unwrap().pick,
            Pick::CANONICAL
        );
    }
}
