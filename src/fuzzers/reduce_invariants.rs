//! The reference reducers' outputs pass every clause.
//!
//! On a generated case (under [`Config::everything`](crate::generate::Config::everything)
//! with the costs knob on: about half the cases have a token budget, spec
//! §11), a drawn policy and maybe summaries allowed (spec §12), the
//! reference output, with the extra responses `deterministic`,
//! `idempotent` and `budget-monotone` need (also from the reference,
//! planned by [`crate::check::extra_requests`]), gets no failing verdict
//! from [`check`], in the canonical format and, when the history converts,
//! in the OpenAI one. Checked directly as well: the output's cost fits the
//! budget, is valid, reduces to itself (under a message budget with the
//! same budget; under a token budget at the output's costs, when the
//! checker asks for that answer), is the input when the input fits; an
//! unsatisfiable token budget is rejected; and an invalid budget (or, for
//! a token budget, invalid `tokens` or `countPinned`) is rejected by the
//! reducer and that rejection passes `rejects-bad-budget`.
//!
//! **Each answer computed once, as a selection.** In each format the
//! reference's answer to the case is selected once ([`Reference::reduce`]
//! on the input read once, [`reduce::Input::classified`]) and its messages
//! copied once: it is the checker's first answer (what
//! [`check_reducer`](crate::check::check_reducer) would ask for), the
//! direct checks read it or its selection, and it is, borrowed, the answer
//! `matches-reference` is judged against. The extra answers are selected
//! again: an answer whose selection is the first answer's (for the output
//! reduced again: the whole output, the direct idempotence check) is the
//! first answer itself, borrowed ([`ExtrasRef`]), and only an answer that
//! differs is copied out. The checker judges the same answers it would be
//! given as copies (executions per second).
//!
//! **One of each per execution.** The OpenAI judgement and the invalid
//! budget are picked per input (`fuzzers::input_pick`): the OpenAI format
//! on every other input, and one invalid budget of the 5 (11 under a token
//! budget) in turn, rather than all of them on every execution; they hardly
//! depend on the history, and judging all of them made up most of an
//! execution (executions per second). `cargo test` runs every
//! seed this way too; [`check_reference`] with [`Variants::All`] runs them
//! all.

use crate::check::{
    check, check_classified, extra_requests, ExtraKind, Extras, ExtrasRef, Outcome, Request,
};
use crate::formats::{read_history, Format};
use crate::generate::GeneratedCase;
use crate::protocol::Response;
use crate::reduce::{self, select_indices, ReduceError, Reference, Selection};
use crate::terms::{Budget, BudgetFields, Clause, History, Policy};
use crate::validate::{validate_history, Options};
use arbitrary::Unstructured;
use serde_json::{json, Value};

super::fuzz_input!();

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
    let (case, history, policy, summary) = super::case_policy_summary_read(u)?;
    check_read(&case, history, policy, summary, Variants::Pick(pick));
    Ok(())
}

/// [`run`] with every history-independent check ([`Variants::All`]):
/// what `cargo test` runs on the committed seeds besides [`run`].
///
/// # Errors
///
/// Never in practice (the generator does not fail).
///
/// # Panics
///
/// As [`run`].
pub fn run_all(u: &mut Unstructured) -> arbitrary::Result<()> {
    let (case, history, policy, summary) = super::case_policy_summary_read(u)?;
    check_read(&case, history, policy, summary, Variants::All);
    Ok(())
}

/// Which of the history-independent checks [`check_reference`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variants {
    /// All of them: the OpenAI judgement and every invalid budget.
    All,
    /// The OpenAI judgement when the number is odd, and the invalid budget
    /// it picks (the number modulo how many there are, halved).
    Pick(u64),
}

/// The generated case (with its token budget) and the policy drawn.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn carried(u: &mut Unstructured) -> arbitrary::Result<super::Carried> {
    let (case, policy, _) = super::case_policy_summary(u)?;
    Ok(super::Carried::with_costs(&case, Some(policy)))
}

/// How many bytes the case, policy and summaries draw reads of `bytes`
/// (`run` also hashes all of them, without reading, to pick its checks;
/// see [`super::trimmed_len`]); `None` when it fails.
pub fn consumed(bytes: &[u8]) -> Option<usize> {
    super::consumed_by(bytes, super::case_policy_summary)
}

/// The generated case and policy as a case-format line.
pub fn describe(bytes: &[u8]) -> String {
    match super::case_policy_summary(&mut Unstructured::new(bytes)) {
        Ok((case, policy, summary)) => format!(
            "reduce_invariants case: {}",
            super::case_line_with(&case, policy, summary)
        ),
        Err(e) => format!("reduce_invariants: undecodable input: {e}"),
    }
}

/// Judges the reference output for `policy` with every clause (see the
/// module doc), with summaries allowed when `summary` gives their cost.
///
/// # Panics
///
/// When a clause fails or a direct check does not hold.
pub fn check_reference(
    case: &GeneratedCase,
    policy: Policy,
    summary: Option<u64>,
    variants: Variants,
) {
    let history =
        read_history(Format::Canonical, &case.messages).expect("generated histories are readable");
    check_read(case, history, policy, summary, variants);
}

/// [`check_reference`] on the case's messages as read in the canonical
/// format (`history`: what the generator read, handed on): every answer
/// below is selected on this reading ([`reduce::Input::classified`]), and
/// the input is read no more.
fn check_read(
    case: &GeneratedCase,
    history: History,
    policy: Policy,
    summary: Option<u64>,
    variants: Variants,
) {
    let line = || super::case_line_with(case, policy, summary);
    let messages = &case.messages;
    let fields = case.budget_fields();
    let budget = Budget::read(&fields, messages.len()).expect("generated budgets are budgets");
    let pinned = history.pinned();
    let first_sel = select(policy, Format::Canonical, &fields, messages, &history);
    let sel = match &first_sel {
        Ok(sel) => sel,
        Err(e) => {
            // Only an unsatisfiable token budget: countPinned and the
            // pinned message alone over the limit.
            assert!(
                budget.count_pinned() && pinned.is_some_and(|p| budget.cost(p) > budget.limit()),
                "a generated budget was rejected: {e}\n{}",
                line()
            );
            let e = e.clone();
            let req = request(policy, Format::Canonical, messages, &fields, summary);
            let first = Response::Error(e.clone());
            judge_all(&req, history, &Err(e), &first, None, &line);
            return;
        }
    };
    let out = sel.messages();
    let room = budget.available(pinned).expect("satisfiable");
    let rest = (0..messages.len()).filter(|&i| Some(i) != pinned);
    // What the selection costs before orphan removal: at least what is kept.
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
    let out_h = read_history(Format::Canonical, &out).expect("outputs are readable");
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

    // The reference answer in the canonical format is `out`: the checker's
    // first answer, and the output the direct idempotence check reduces
    // again.
    let req = request(policy, Format::Canonical, messages, &fields, summary);
    let first = Response::Messages(out);
    let idempotent = Idempotent {
        budget: &budget,
        output: &out_h,
    };
    judge_all(&req, history, &first_sel, &first, Some(idempotent), &line);
    let openai = match variants {
        Variants::All => true,
        Variants::Pick(p) => p & 1 == 1,
    };
    if let Some(openai) = openai
        .then(|| crate::formats::openai::to_openai(messages).ok())
        .flatten()
    {
        let history = read_history(Format::OpenAi, &openai)
            .unwrap_or_else(|e| panic!("the OpenAI form is unreadable: {e}\n{}", line()));
        let first_sel = select(policy, Format::OpenAi, &fields, &openai, &history);
        let first = answer(&first_sel);
        let first_sel = indices(&first_sel);
        let req = request(policy, Format::OpenAi, &openai, &fields, summary);
        judge_all(&req, history, &first_sel, &first, None, &line);
    }

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
        Variants::Pick(p) => vec![bad_budget((p >> 1) as usize % count)],
    };
    for bad in bad {
        let reference = Reference::new(policy, Format::Canonical);
        let r = reference.reduce(reduce::Input::new(messages).budget_fields(&bad));
        assert!(
            matches!(r, Err(ReduceError::BadBudget(_))),
            "budget {bad:?} not rejected\n{}",
            line()
        );
        let req = Request {
            format: Format::Canonical,
            policy,
            budget: &bad,
            messages,
            summary,
            declared: Default::default(),
        };
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

/// The reference's answer to a request with budget members `fields` and
/// `messages` (classified as `history`), as a selection on `history`
/// ([`reduce::Input::classified`]), its error as the text the reference
/// answers with.
fn select<'a>(
    policy: Policy,
    format: Format,
    fields: &'a BudgetFields,
    messages: &'a [Value],
    history: &'a History,
) -> Result<Selection<'a>, String> {
    Reference::new(policy, format)
        .reduce(reduce::Input::classified(messages, history).budget_fields(fields))
        .map_err(|e| e.to_string())
}

/// What a selection keeps, as indices: kept messages, and the items
/// removed from them.
type Indices = Result<(Vec<usize>, Vec<(usize, Vec<usize>)>), String>;

/// The indices of `sel`, kept beyond the history it borrows.
fn indices(sel: &Result<Selection, String>) -> Indices {
    sel.as_ref()
        .map(|s| (s.kept().to_vec(), s.stripped().to_vec()))
        .map_err(Clone::clone)
}

/// Whether `sel` keeps what `first` does.
fn same(sel: &Result<Selection, String>, first: &Indices) -> bool {
    match (sel, first) {
        (Ok(s), Ok((kept, stripped))) => s.kept() == kept && s.stripped() == stripped,
        (Err(a), Err(b)) => a == b,
        _ => false,
    }
}

/// The response `sel` stands for: the reference's answer (the kept
/// messages, or the error).
fn answer(sel: &Result<Selection, String>) -> Response {
    match sel {
        Ok(s) => Response::Messages(s.messages()),
        Err(e) => Response::Error(e.clone()),
    }
}

/// A request in `format`.
fn request<'a>(
    policy: Policy,
    format: Format,
    messages: &'a [Value],
    budget: &'a BudgetFields,
    summary: Option<u64>,
) -> Request<'a> {
    Request {
        format,
        policy,
        budget,
        messages,
        summary,
        declared: Default::default(),
    }
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
        let sel = select(req.policy, req.format, fields, m, h);
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
                let sel = select(
                    req.policy,
                    req.format,
                    &extra.budget,
                    req.messages,
                    &history,
                );
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
        check_classified(req, history, first, extras, None).expect("generated inputs are readable");
    let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
    assert!(
        failed.is_empty(),
        "the reference output fails in format {}: {failed:?}\n{}",
        req.format,
        line()
    );
}
