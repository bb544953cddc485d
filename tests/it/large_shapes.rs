//! The two shapes once found quadratic, at full size, with the exact
//! verdicts (their speed is measured in `benches/`, never timed here): one
//! agent turn of 100,002 messages over the budget (the overflow-question
//! rule), and an output none of whose messages maps to an input message;
//! each judged on values ([`check`]) and on canonical texts
//! ([`check_prepared`]), with the same verdicts.

use reducer_kit::check::{
    check, check_prepared, extra_requests, Extras, Outcome, PreparedAnswers, PreparedInput, Request,
};
use reducer_kit::formats::{read_history, Format};
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{Budget, BudgetFields, Policy};
use serde_json::{json, Value};

#[path = "../../benches/shapes/mod.rs"]
mod shapes;

/// Every verdict as (clause id, outcome kind, text).
fn verdicts(
    req: &Request,
    first: &Response,
    same_extras: bool,
) -> Vec<(String, &'static str, String)> {
    let answer = |budget: &BudgetFields, messages: &[Value]| {
        Response::from(
            Reference::new(req.policy, req.format)
                .reduce(Input::new(messages).budget_fields(budget)),
        )
    };
    let reference = answer(req.budget, req.messages);
    let mut extras = Extras {
        reference: Some(reference),
        ..Extras::default()
    };
    for extra in extra_requests(req, first) {
        let r = if same_extras {
            first.clone()
        } else {
            answer(&extra.budget, &extra.messages)
        };
        extras.record(&extra, r);
    }
    let verdicts = check(req, first, &extras).unwrap();
    // The same verdicts comparing canonical texts (histories read
    // beforehand): there the index is built after a scan of the input.
    let input = PreparedInput::new(req).unwrap();
    let answers = PreparedAnswers::new(req.format, first, &extras);
    assert_eq!(check_prepared(req, &input, &answers), verdicts);
    verdicts
        .into_iter()
        .map(|v| {
            let (kind, text) = match v.outcome {
                Outcome::Pass => ("pass", String::new()),
                Outcome::Fail(t) => ("FAIL", t),
                Outcome::NotJudged(t) => ("not judged", t),
            };
            (v.clause.id().to_string(), kind, text)
        })
        .collect()
}

fn failures(v: &[(String, &'static str, String)]) -> Vec<(String, String)> {
    v.iter()
        .filter(|(_, k, _)| *k == "FAIL")
        .map(|(c, _, t)| (c.clone(), t.clone()))
        .collect()
}

#[test]
fn one_long_overflow_turn() {
    let n = 100_002;
    let h = shapes::long_turn(n);
    let max = json!(50_000);
    let history = read_history(Format::Canonical, &h).unwrap();
    let budget = Budget::parse(&max).unwrap();
    let s = Reference::new(Policy::Turns, Format::Canonical)
        .reduce(Input::history(&history).budget(&budget))
        .unwrap();
    // The system message, the question, then the turn's last 49,999
    // messages (from 50,003 on), less the first: a tool result whose call
    // was cut, removed as an orphan.
    assert_eq!(s.kept().len(), 50_000);
    assert_eq!(&s.kept()[..3], &[0, 1, 50_004]);
    assert_eq!(s.kept().last(), Some(&(n - 1)));
    assert!(s.stripped().is_empty());

    let budget = BudgetFields::messages(max.clone());
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Turns,
        budget: &budget,
        messages: &h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let Response::Messages(out) = Response::from(
        Reference::new(Policy::Turns, Format::Canonical).reduce(Input::new(&h).max_messages(&max)),
    ) else {
        panic!("a valid request")
    };
    let v = verdicts(&req, &Response::Messages(out.clone()), false);
    assert_eq!(failures(&v), vec![]);
    let judged: Vec<(&str, &str)> = v.iter().map(|(c, k, _)| (c.as_str(), *k)).collect();
    assert!(judged.contains(&("overflow-question", "pass")));
    assert!(judged.contains(&("whole-turns", "not judged")));
    assert!(judged.contains(&("maximal", "not judged")));

    // Dropping one of the most recent calls and its result (the output
    // stays valid) is convicted by overflow-question, naming the call.
    let mut cut = out.clone();
    cut.drain(30_000..30_002);
    let v = verdicts(&req, &Response::Messages(cut), false);
    let f = failures(&v);
    assert!(
        f.contains(&(
            "overflow-question".into(),
            "input message 80002 (the newest turn's question or one of its most recent messages) is dropped".into()
        )),
        "{f:?}"
    );
}

#[test]
fn an_output_that_matches_nothing() {
    let n = 100_000;
    let h = shapes::normal(n);
    let max = json!(n / 2 + 1);
    let budget = BudgetFields::messages(max.clone());
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Suffix,
        budget: &budget,
        messages: &h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let Response::Messages(out) = Response::from(
        Reference::new(Policy::Suffix, Format::Canonical).reduce(Input::new(&h).max_messages(&max)),
    ) else {
        panic!("a valid request")
    };
    let garbled: Vec<Value> = shapes::garbled(&out);
    let v = verdicts(&req, &Response::Messages(garbled.clone()), true);
    let f = failures(&v);
    let clauses: Vec<&str> = f.iter().map(|(c, _)| c.as_str()).collect();
    // Every message changed: the first, a system message in the pinned
    // one's place, is still the pinned one (spec §6.3), and every clause
    // that judges which input messages were kept is not judged beside a
    // fabrication (spec §9.1): no-fabrication alone, naming the first.
    assert_eq!(clauses, vec!["no-fabrication"], "{f:?}");
    assert_eq!(
        f[0].1,
        "output message 0 is no input message: it is input message 0 with $.x added (1)"
    );
}
