//! The reference reducers' outputs pass every clause.
//!
//! On a generated case (under [`Config::everything`](crate::generate::Config::everything))
//! and a drawn policy, the reference output, with the extra responses
//! `deterministic`, `idempotent` and `budget-monotone` need (also from the
//! reference), gets no failing verdict from [`check`], in the canonical
//! format and, when the history converts, in the OpenAI one. Checked
//! directly as well: the output fits the budget, is valid, reduces to
//! itself, is the input when the input fits; and invalid budgets are
//! rejected by the reducer and that rejection passes `rejects-bad-budget`.

use crate::check::{check, Extras, Outcome, Request};
use crate::formats::{view_history, Format};
use crate::generate::GeneratedCase;
use crate::json::json_eq;
use crate::protocol::Response;
use crate::reduce::{reduce, respond, ReduceError};
use crate::terms::{pinned_index, Clause, Policy};
use crate::validate::{validate, Options};
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
    let (case, policy) = super::case_and_policy(u)?;
    check_reference(&case, policy);
    Ok(())
}

/// The generated case and the policy drawn.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn carried(u: &mut Unstructured) -> arbitrary::Result<super::Carried> {
    let (case, policy) = super::case_and_policy(u)?;
    Ok(super::Carried::case(&case, Some(policy)))
}

/// The generated case and policy as a case-format line.
pub fn describe(bytes: &[u8]) -> String {
    match super::case_and_policy(&mut Unstructured::new(bytes)) {
        Ok((case, policy)) => format!(
            "reduce_invariants case: {}",
            super::case_line(&case, policy)
        ),
        Err(e) => format!("reduce_invariants: undecodable input: {e}"),
    }
}

fn reference(policy: Policy, format: Format, messages: &[Value], budget: usize) -> Vec<Value> {
    reduce(policy, format, messages, &Value::from(budget))
        .expect("the reference reduces generated cases")
}

/// Judges the reference output for `policy` with every clause (see the
/// module doc).
///
/// # Panics
///
/// When a clause fails or a direct check does not hold.
pub fn check_reference(case: &GeneratedCase, policy: Policy) {
    let line = || super::case_line(case, policy);
    let budget = case.budget;
    let messages = &case.messages;
    let out = reference(policy, Format::Canonical, messages, budget);

    let views =
        view_history(Format::Canonical, messages).expect("generated histories are readable");
    let pinned = usize::from(pinned_index(&views).is_some());
    assert!(out.len() - pinned <= budget, "over budget\n{}", line());
    let out_views = view_history(Format::Canonical, &out).expect("outputs are readable");
    let v = validate(
        &out_views,
        Options {
            allow_pending: case.allow_pending,
        },
    );
    assert!(v.is_empty(), "invalid output: {v:?}\n{}", line());
    let again = reference(policy, Format::Canonical, &out, budget);
    assert!(
        json_eq(&Value::Array(again), &Value::Array(out.clone())),
        "not idempotent\n{}",
        line()
    );
    if messages.len() - pinned <= budget {
        assert!(
            json_eq(&Value::Array(out.clone()), &Value::Array(messages.clone())),
            "a fitting input changed\n{}",
            line()
        );
    }

    judge_all(policy, Format::Canonical, messages, budget, &line);
    if let Ok(openai) = crate::formats::openai::to_openai(messages) {
        judge_all(policy, Format::OpenAi, &openai, budget, &line);
    }

    for bad in [json!(0), json!(-1), json!(1.5), json!("3"), Value::Null] {
        let r = reduce(policy, Format::Canonical, messages, &bad);
        assert!(
            matches!(r, Err(ReduceError::BadBudget(_))),
            "budget {bad} not rejected\n{}",
            line()
        );
        let req = Request {
            format: Format::Canonical,
            policy,
            max_messages: &bad,
            messages,
        };
        let extras = Extras {
            reference: Some(respond(policy, Format::Canonical, &bad, messages)),
            ..Extras::default()
        };
        let verdicts = check(&req, &Response::Error("bad budget".into()), &extras)
            .expect("generated inputs are readable");
        let rejects = verdicts
            .iter()
            .find(|v| v.clause == Clause::RejectsBadBudget)
            .expect("rejects-bad-budget is judged for every policy");
        assert_eq!(rejects.outcome, Outcome::Pass, "budget {bad}\n{}", line());
        let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
        assert!(failed.is_empty(), "budget {bad}: {failed:?}\n{}", line());
    }
}

/// The reference response in `format`, with reference extras, must pass
/// every clause.
fn judge_all(
    policy: Policy,
    format: Format,
    messages: &[Value],
    budget: usize,
    line: &dyn Fn() -> String,
) {
    let out = reference(policy, format, messages, budget);
    let extras = Extras {
        repeat: Some(Response::Messages(out.clone())),
        again: Some(Response::Messages(reference(policy, format, &out, budget))),
        smaller: (budget >= 2).then(|| {
            (
                budget - 1,
                Response::Messages(reference(policy, format, messages, budget - 1)),
            )
        }),
        reference: Some(Response::Messages(out.clone())),
    };
    let max = Value::from(budget);
    let req = Request {
        format,
        policy,
        max_messages: &max,
        messages,
    };
    let verdicts =
        check(&req, &Response::Messages(out), &extras).expect("generated inputs are readable");
    let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
    assert!(
        failed.is_empty(),
        "the reference output fails in format {format}: {failed:?}\n{}",
        line()
    );
}
