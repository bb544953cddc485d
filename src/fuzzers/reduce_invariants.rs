//! The reference reducers' outputs pass every clause.
//!
//! On a generated case (under [`Config::everything`](crate::generate::Config::everything)
//! with the costs knob on: about half the cases have a token budget, spec
//! v2 §11), a drawn policy and maybe summaries allowed (spec v2 §12), the
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
//! **Each answer computed once.** In each format the reference's answer to
//! the case is computed once: it is the checker's first answer (what
//! [`check_reducer`](crate::check::check_reducer) would ask for), the
//! direct checks read it, and a copy of it is the answer `matches-reference`
//! is judged against; the reference's determinism is judged by
//! `deterministic`, on the answer computed again. The output reduced again
//! is the checker's `idempotent` answer, which the direct idempotence check
//! reads too.
//!
//! **One of each per execution.** The OpenAI judgement and the invalid
//! budget are picked per input (`fuzzers::input_pick`): the OpenAI format
//! on every other input, and one invalid budget of the 5 (11 under a token
//! budget) in turn, rather than all of them on every execution; they hardly
//! depend on the history, and judging all of them made up most of an
//! execution (issue 14: executions per second). `cargo test` runs every
//! seed this way too; [`check_reference`] with [`Variants::All`] runs them
//! all.

use crate::check::{check, extra_requests, ExtraKind, Extras, Outcome, Request};
use crate::formats::{read_history, Format};
use crate::generate::GeneratedCase;
use crate::json::json_eq;
use crate::protocol::Response;
use crate::reduce::{
    reduce_classified, reduce_request, reference, respond_request, select_indices, ReduceError,
};
use crate::terms::{Budget, BudgetFields, Clause, Policy};
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
    let (case, policy, summary) = super::case_policy_summary(u)?;
    check_reference(&case, policy, summary, Variants::Pick(pick));
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
    let (case, policy, summary) = super::case_policy_summary(u)?;
    check_reference(&case, policy, summary, Variants::All);
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
    let line = || super::case_line_with(case, policy, summary);
    let messages = &case.messages;
    let fields = case.budget_fields();
    let budget = Budget::read(&fields, messages.len()).expect("generated budgets are budgets");
    // Read once: the reference output below is reduced from this reading
    // (`reduce_classified`, what `reduce_request` does after reading).
    let history =
        read_history(Format::Canonical, messages).expect("generated histories are readable");
    let pinned = history.pinned();
    let out = match reduce_classified(policy, Format::Canonical, messages, &history, &budget) {
        Ok(out) => out,
        Err(ReduceError::BadBudget(e)) => {
            // Only an unsatisfiable token budget: countPinned and the
            // pinned message alone over the limit.
            assert!(
                budget.count_pinned() && pinned.is_some_and(|p| budget.cost(p) > budget.limit()),
                "a generated budget was rejected: {e}\n{}",
                line()
            );
            let first = respond_request(policy, Format::Canonical, &fields, messages);
            let req = request(policy, Format::Canonical, messages, &fields, summary);
            judge_all(&req, first, None, &line);
            return;
        }
        Err(e) => panic!("{e}\n{}", line()),
    };
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
        assert!(same(&out, messages), "a fitting input changed\n{}", line());
    }

    // The reference answer in the canonical format is `out`: the checker's
    // first answer, and what the direct idempotence check compares the
    // checker's `idempotent` answer with (the output reduced again).
    let req = request(policy, Format::Canonical, messages, &fields, summary);
    judge_all(&req, Response::Messages(out), Some(&budget), &line);
    let openai = match variants {
        Variants::All => true,
        Variants::Pick(p) => p & 1 == 1,
    };
    if let Some(openai) = openai
        .then(|| crate::formats::openai::to_openai(messages).ok())
        .flatten()
    {
        let first = respond_request(policy, Format::OpenAi, &fields, &openai);
        let req = request(policy, Format::OpenAi, &openai, &fields, summary);
        judge_all(&req, first, None, &line);
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
        let r = reduce_request(policy, Format::Canonical, messages, &bad);
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
        };
        let extras = Extras {
            reference: Some(respond_request(policy, Format::Canonical, &bad, messages)),
            ..Extras::default()
        };
        let verdicts = check(&req, &Response::Error("bad budget".into()), &extras)
            .expect("generated inputs are readable");
        let rejects = verdicts
            .iter()
            .find(|v| v.clause == Clause::RejectsBadBudget)
            .expect("rejects-bad-budget is judged for every policy");
        assert_eq!(rejects.outcome, Outcome::Pass, "budget {bad:?}\n{}", line());
        let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
        assert!(failed.is_empty(), "budget {bad:?}: {failed:?}\n{}", line());
    }
}

/// Whether two histories are equal message by message ([`json_eq`]).
fn same(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| json_eq(x, y))
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
    }
}

/// The reference's answer `first` to `req`, with the extra requests the
/// checker plans answered by the reference, must pass every clause: what
/// [`check_reducer`](crate::check::check_reducer) judges with the reference
/// as the reducer, its first answer given (computed once by the caller,
/// who also checks it directly) and `matches-reference` judged against
/// a copy of that answer (the reference's determinism is judged by
/// `deterministic`, on an answer computed again). With `idempotent` (the
/// request's budget, read), a direct check besides the checker's clause:
/// the output reduced again must be the output, whenever the checker asks
/// for that answer (`idempotent`: under a token budget at the output's
/// costs) and, under a message budget, in any case (computed here when the
/// checker does not ask).
fn judge_all(
    req: &Request,
    first: Response,
    idempotent: Option<&Budget>,
    line: &dyn Fn() -> String,
) {
    let mut reducer = reference(req.policy, req.format);
    let mut extras = Extras {
        reference: Some(first.clone()),
        ..Extras::default()
    };
    let mut again_checked = false;
    for extra in extra_requests(req, &first) {
        let r = reducer(&extra.budget, &extra.messages);
        if idempotent.is_some() && extra.kind == ExtraKind::Again {
            assert_idempotent(&first, &r, line);
            again_checked = true;
        }
        extras.record(&extra, r);
    }
    if idempotent.is_some_and(|b| !b.is_tokens()) && !again_checked {
        if let Response::Messages(out) = &first {
            assert_idempotent(&first, &reducer(req.budget, out), line);
        }
    }
    let verdicts = check(req, &first, &extras).expect("generated inputs are readable");
    let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
    assert!(
        failed.is_empty(),
        "the reference output fails in format {}: {failed:?}\n{}",
        req.format,
        line()
    );
}

/// The output `first`, reduced again with the same budget, gave `again`:
/// the output itself.
fn assert_idempotent(first: &Response, again: &Response, line: &dyn Fn() -> String) {
    let idempotent = match (first, again) {
        (Response::Messages(out), Response::Messages(again)) => same(again, out),
        _ => false,
    };
    assert!(idempotent, "not idempotent\n{}", line());
}
