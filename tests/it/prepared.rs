//! The checker judges alike on values ([`check`]) and on histories read
//! beforehand ([`check_prepared`], which compares canonical texts): the
//! same verdicts, descriptions included, for mutated reference outputs of
//! generated cases (the mutations of the `checker_convicts` fuzz target,
//! token budgets and summaries among them), judged with the extra answers
//! of a reducer that answers them as the reference does, and of one that
//! repeats its first answer.

use arbitrary::Unstructured;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reducer_kit::check::{
    check, check_prepared, extra_requests, Extras, PreparedAnswers, PreparedInput, Request,
};
use reducer_kit::formats::Format;
use reducer_kit::fuzzers::checker_convicts::decode;
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::Budget;
use serde_json::Value;

/// Takes the first result or approval response out of the first output
/// message that has another item beside it: the message then equals its
/// input message but for a removed item (spec §7).
fn strip_one_result(response: &mut Response) -> bool {
    let Response::Messages(out) = response else {
        return false;
    };
    for m in out.iter_mut() {
        let Some(Value::Array(items)) = m.get_mut("contents") else {
            continue;
        };
        let removable = items.iter().position(|i| {
            matches!(
                i.get("$type").and_then(Value::as_str),
                Some("functionResult" | "toolApprovalResponse" | "functionApprovalResponse")
            )
        });
        if let (Some(r), true) = (removable, items.len() > 1) {
            items.remove(r);
            return true;
        }
    }
    false
}

#[test]
fn canonical_texts_and_values_give_the_same_verdicts() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let (mut judged, mut failing, mut mutations) = (0, 0, std::collections::HashSet::new());
    let mut stripped = 0;
    for round in 0..1500 {
        let len = rng.gen_range(16..2048);
        let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let mut s = decode(&mut Unstructured::new(&bytes)).unwrap();
        if round % 4 < 2 && strip_one_result(&mut s.response) {
            stripped += 1;
        }
        let budget = s.case.budget_fields();
        let req = Request {
            format: Format::Canonical,
            policy: s.policy,
            budget: &budget,
            messages: &s.case.messages,
            summary: s.summary,
            declared: Default::default(),
            provider: None,
        };
        let b = Budget::read(&budget, s.case.messages.len()).unwrap();
        let reference = Reference::new(s.policy, Format::Canonical);
        let mut extras = Extras {
            reference: Some(Response::Messages(s.reference.clone())),
            reference_less_summary: s.summary.map(|x| {
                Response::from(reference.reduce(Input::new(&s.case.messages).budget(&b.less(x))))
            }),
            ..Extras::default()
        };
        let repeats = round % 2 == 1;
        for extra in extra_requests(&req, &s.response) {
            let r = if repeats {
                s.response.clone()
            } else {
                Response::from(
                    reference.reduce(Input::new(&extra.messages).budget_fields(&extra.budget)),
                )
            };
            extras.record(&extra, r);
        }
        let values = check(&req, &s.response, &extras).unwrap();
        let input = PreparedInput::new(&req).unwrap();
        let answers = PreparedAnswers::new(Format::Canonical, &s.response, &extras);
        assert_eq!(check_prepared(&req, &input, &answers), values, "{:?}", s);
        judged += 1;
        failing += usize::from(values.iter().any(|v| v.failed()));
        mutations.insert(std::mem::discriminant(&s.mutation));
    }
    // The rounds judged failing and passing answers, under most mutations.
    assert_eq!(judged, 1500);
    assert!(failing > 500 && failing < 1500, "{failing} failing");
    assert!(mutations.len() >= 14, "{} mutations", mutations.len());
    assert!(stripped > 30, "{stripped} answers less a result");
}
