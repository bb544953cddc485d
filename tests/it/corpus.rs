//! Every case under corpus/ (spec examples, seeds, regressions): the
//! reference expectation of the case (`case::expect`: the reference reducer
//! of the case's policy and the validator) is exactly the stored one, and
//! the checker passes every clause on the reference output, judging each
//! clause the case names.

use reducer_kit::case::expect::expectation;
use reducer_kit::case::{load_dir, ExpectedError};
use reducer_kit::check::{check_reducer, Outcome, Request};
use reducer_kit::formats::{view_history, Format};
use reducer_kit::json::first_difference;
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::Clause;
use reducer_kit::validate::{validate, Options};
use serde_json::Value;
use std::path::Path;

#[test]
fn every_case_matches_the_reference_and_passes_the_checker() {
    let cases = load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")).unwrap();
    let mut failures = Vec::new();
    for (file, case) in &cases {
        let place = format!("{} ({})", case.id, file.display());
        let budget = case.budget_fields();
        let got = expectation(case.policy, &budget, &case.messages, case.allow_pending)
            .unwrap_or_else(|e| panic!("{place}: {e}"));
        match (
            &case.expected,
            case.expected_error,
            &got.expected,
            got.expected_error,
        ) {
            (Some(want), None, Some(out), None) => {
                if let Some(path) =
                    first_difference(&Value::Array(want.clone()), &Value::Array(out.clone()))
                {
                    failures.push(format!("{place}: output differs from `expected` at {path}"));
                }
            }
            (None, Some(ExpectedError::BadBudget), None, Some(ExpectedError::BadBudget)) => {}
            _ => failures.push(format!(
                "{place}: expected {:?} / {:?}, got {:?} / {:?}",
                case.expected.as_ref().map(Vec::len),
                case.expected_error,
                got.expected.as_ref().map(Vec::len),
                got.expected_error
            )),
        }
        if got.violations != case.violations {
            failures.push(format!(
                "{place}: the validator reports {:?}, the case expects {:?}",
                got.violations, case.violations
            ));
        }
        let views = view_history(Format::Canonical, &case.messages).unwrap();
        let strict = validate(
            &views,
            Options {
                allow_pending: false,
            },
        );
        if case.allow_pending && strict.is_empty() {
            failures.push(format!(
                "{place}: allowPending is set but the input is valid without it"
            ));
        }
        let req = Request {
            format: Format::Canonical,
            policy: case.policy,
            budget: &budget,
            messages: &case.messages,
            summary: case.summary.then(|| case.summary_tokens.unwrap_or(1)),
            declared: Default::default(),
            provider: None,
        };
        let reference = Reference::new(case.policy, Format::Canonical);
        let verdicts = check_reducer(
            &req,
            |b, m| Response::from(reference.reduce(Input::new(m).budget_fields(b))),
            Some(Response::from(
                reference.reduce(Input::new(req.messages).budget_fields(req.budget)),
            )),
        )
        .unwrap();
        for v in &verdicts {
            if let Outcome::Fail(d) = &v.outcome {
                failures.push(format!("{place}: {}: {d}", v.clause));
            }
        }
        for id in &case.clauses {
            let clause = Clause::from_id(id).unwrap();
            if clause.level() == reducer_kit::terms::Level::Protocol {
                continue;
            }
            match verdicts
                .iter()
                .find(|v| v.clause == clause)
                .map(|v| &v.outcome)
            {
                Some(Outcome::Pass) => {}
                // A counterexample saved from a run in another wire format
                // (compat/) may name a clause the canonical form does not
                // judge (reasoning-attached) or judges on other counts.
                None | Some(Outcome::NotJudged(_)) if case.id.starts_with("compat/") => {}
                other => failures.push(format!("{place}: names clause {id}, which is {other:?}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(cases.len() >= 16, "only {} cases", cases.len());
}
