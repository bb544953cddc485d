//! Checker mutation tests: for every clause, a mutation of a correct output
//! that breaks it, and the exact set of clauses the checker convicts the
//! mutant of. A clause whose judgement is deleted from the checker makes at
//! least one of these fail.

use reducer_kit::check::{
    check, check_prepared, Extras, Outcome, PreparedAnswers, PreparedInput, Request,
};
use reducer_kit::formats::Format;
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{Budget, BudgetFields, Clause, Policy};
use serde_json::{json, Value};

#[path = "checker_mutations/place_and_start.rs"]
mod place_and_start;

fn text(role: &str, t: &str) -> Value {
    json!({"role": role, "contents": [{"$type": "text", "text": t}]})
}

/// 0 system; turn q1 = 1..=4 (a tool call and result); turn q2 = 5..=10 (an
/// approval flow, then two parallel calls answered in one batched tool
/// message); turn q3 = 11..=12.
fn history() -> Vec<Value> {
    vec![
        text("system", "S"),
        text("user", "q1"),
        json!({"role": "assistant", "contents": [{"$type": "functionCall", "callId": "a1", "name": "GetOrder", "arguments": {"id": 1}}]}),
        json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "a1", "result": "Paid"}]}),
        text("assistant", "answer1"),
        text("user", "q2"),
        json!({"role": "assistant", "contents": [{"$type": "toolApprovalRequest", "requestId": "r1",
            "toolCall": {"$type": "functionCall", "callId": "b0", "name": "Refund"}}]}),
        json!({"role": "user", "contents": [{"$type": "toolApprovalResponse", "requestId": "r1", "approved": true,
            "toolCall": {"$type": "functionCall", "callId": "b0", "name": "Refund"}}]}),
        json!({"role": "assistant", "contents": [
            {"$type": "functionCall", "callId": "b1", "name": "Refund"},
            {"$type": "functionCall", "callId": "b2", "name": "Notify"}]}),
        json!({"role": "tool", "contents": [
            {"$type": "functionResult", "callId": "b1", "result": "ok"},
            {"$type": "functionResult", "callId": "b2", "result": "sent"}]}),
        text("assistant", "answer2"),
        text("user", "q3"),
        text("assistant", "answer3"),
    ]
}

fn pick(h: &[Value], idx: &[usize]) -> Vec<Value> {
    idx.iter().map(|&i| h[i].clone()).collect()
}

fn convicted(
    policy: Policy,
    max: Value,
    input: &[Value],
    output: Response,
    mut extras: Extras,
) -> Vec<&'static str> {
    // matches-reference is judged against the reference's answer, which the
    // caller supplies.
    extras.reference.get_or_insert_with(|| {
        Response::from(
            Reference::new(policy, Format::Canonical).reduce(Input::new(input).max_messages(&max)),
        )
    });
    let req = Request {
        format: Format::Canonical,
        policy,
        budget: &BudgetFields::messages(max.clone()),
        messages: input,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let verdicts = check(&req, &output, &extras).unwrap();
    // The same verdicts, descriptions included, on an input and answers
    // read beforehand (one input judged twice: nothing is consumed).
    let prepared = PreparedInput::new(&req).unwrap();
    let answers = PreparedAnswers::new(Format::Canonical, &output, &extras);
    assert_eq!(check_prepared(&req, &prepared, &answers), verdicts);
    assert_eq!(check_prepared(&req, &prepared, &answers), verdicts);
    verdicts
        .into_iter()
        .filter(|v| v.failed())
        .map(|v| v.clause.id())
        .collect()
}

fn mutant(policy: Policy, max: u64, idx: &[usize]) -> Vec<&'static str> {
    let h = history();
    convicted(
        policy,
        json!(max),
        &h,
        Response::Messages(pick(&h, idx)),
        Extras::default(),
    )
}

#[test]
fn reference_outputs_used_below_are_what_the_mutants_start_from() {
    let h = history();
    let r = |p, m: u64| {
        Reference::new(p, Format::Canonical)
            .reduce(Input::new(&h).max_messages(&json!(m)))
            .unwrap()
            .messages()
    };
    assert_eq!(r(Policy::Suffix, 2), pick(&h, &[0, 11, 12]));
    assert_eq!(r(Policy::Suffix, 4), pick(&h, &[0, 10, 11, 12]));
    assert_eq!(r(Policy::Suffix, 5), pick(&h, &[0, 8, 9, 10, 11, 12]));
    assert_eq!(r(Policy::Suffix, 6), pick(&h, &[0, 8, 9, 10, 11, 12]));
    assert_eq!(r(Policy::Turns, 3), pick(&h, &[0, 11, 12]));
    assert_eq!(
        r(Policy::Turns, 8),
        pick(&h, &[0, 5, 6, 7, 8, 9, 10, 11, 12])
    );
    assert_eq!(r(Policy::Turns, 1), pick(&h, &[0, 11]));
    for (p, m) in [
        (Policy::Suffix, 2),
        (Policy::Suffix, 4),
        (Policy::Suffix, 5),
        (Policy::Turns, 3),
        (Policy::Turns, 8),
        (Policy::Turns, 1),
    ] {
        let out = r(p, m);
        let idx: Vec<usize> = out
            .iter()
            .map(|o| h.iter().position(|x| x == o).unwrap())
            .collect();
        assert_eq!(mutant(p, m, &idx), Vec::<&str>::new(), "{p} {m}");
    }
}

#[test]
fn budget_exceeded() {
    assert_eq!(
        mutant(Policy::Suffix, 2, &[0, 10, 11, 12]),
        ["budget", "matches-reference"]
    );
}

#[test]
fn pinned_system_message_dropped_or_altered() {
    assert_eq!(
        mutant(Policy::Turns, 3, &[11, 12]),
        ["system-pinned", "matches-reference"]
    );
    let h = history();
    // Changed in its place, it is still the pinned message (its place and
    // role): one changed message, one clause (spec §6.3).
    let altered = vec![text("system", "S2"), h[11].clone(), h[12].clone()];
    assert_eq!(
        convicted(
            Policy::Turns,
            json!(3),
            &h,
            Response::Messages(altered),
            Extras::default()
        ),
        ["no-fabrication"]
    );
    // A later system message placed first is not the pinned one; the pinned
    // copy after it cannot be matched, the later one is counted against the
    // budget and splits its turn.
    let mut later = h.clone();
    later.insert(11, text("system", "late"));
    let out = vec![
        later[11].clone(),
        later[0].clone(),
        later[12].clone(),
        later[13].clone(),
    ];
    assert_eq!(
        convicted(
            Policy::Turns,
            json!(3),
            &later,
            Response::Messages(out),
            Extras::default()
        ),
        // The policy clauses judge which input messages were kept; an
        // output message that is none says nothing of that (spec §9.2).
        ["budget", "system-pinned", "no-fabrication"]
    );
}

#[test]
fn fabricated_reordered_and_duplicated_messages() {
    let h = history();
    let fabricated = vec![
        h[0].clone(),
        h[11].clone(),
        text("assistant", "hello"),
        h[12].clone(),
    ];
    assert_eq!(
        convicted(
            Policy::Turns,
            json!(3),
            &h,
            Response::Messages(fabricated),
            Extras::default()
        ),
        ["no-fabrication"]
    );
    assert_eq!(mutant(Policy::Turns, 3, &[0, 12, 11]), ["no-fabrication"]);
    assert_eq!(
        mutant(Policy::Turns, 3, &[0, 11, 12, 12]),
        ["no-fabrication"]
    );
    // An altered payload is a fabrication too, and only that: the policy
    // clauses, which judge which input messages were kept, are not judged
    // (spec §9.2), and the failure says what changed.
    let mut altered = pick(&h, &[0, 8, 9, 10, 11, 12]);
    altered[2]["contents"][0]["result"] = json!("refused");
    assert_eq!(
        convicted(
            Policy::Suffix,
            json!(5),
            &h,
            Response::Messages(altered.clone()),
            Extras::default()
        ),
        ["no-fabrication"]
    );
    assert_eq!(
        detail(Policy::Suffix, json!(5), &h, altered, Clause::NoFabrication),
        Some(format!(
            "output message 2 is no input message: it is input message 9 changed at $.contents[0].result: {} became \"refused\"",
            h[9]["contents"][0]["result"]
        ))
    );
    // A number a JSON library read as a double says so.
    let mut doubled = h.clone();
    doubled[11]["contents"][0]["text"] =
        serde_json::from_str("123456789012345678901234567890").unwrap();
    let mut out = pick(&doubled, &[0, 11, 12]);
    out[1]["contents"][0]["text"] = serde_json::from_str("1.2345678901234568e+29").unwrap();
    assert_eq!(
        detail(Policy::Turns, json!(3), &doubled, out, Clause::NoFabrication),
        Some("output message 1 is no input message: it is input message 11 changed at $.contents[0].text: 123456789012345678901234567890 became 1.2345678901234568e+29 (the number as the nearest double: what a JSON library that reads numbers as doubles writes; --declare json-numbers if that is the reducer's)".to_string())
    );
}

/// The failure detail of `clause` for `output`, when it fails.
fn detail(
    policy: Policy,
    max: Value,
    input: &[Value],
    output: Vec<Value>,
    clause: Clause,
) -> Option<String> {
    let req = Request {
        format: Format::Canonical,
        policy,
        budget: &BudgetFields::messages(max),
        messages: input,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    check(&req, &Response::Messages(output), &Extras::default())
        .unwrap()
        .into_iter()
        .find(|v| v.clause == clause)
        .and_then(|v| match v.outcome {
            Outcome::Fail(d) => Some(d),
            _ => None,
        })
}

#[test]
fn orphan_result_kept() {
    assert_eq!(
        mutant(Policy::Suffix, 4, &[0, 9, 10, 11, 12]),
        ["no-orphan-result", "valid-output", "matches-reference"]
    );
}

#[test]
fn orphan_approval_response_kept() {
    assert_eq!(
        mutant(Policy::Suffix, 6, &[0, 7, 8, 9, 10, 11, 12]),
        ["no-orphan-approval", "valid-output", "matches-reference"]
    );
}

/// A message emptied by orphan removal is left out (spec §3 step 6):
/// kept as a shell with no items, it comes from no input message (spec
/// §7) and is a fabrication; every other clause holds or, judging which
/// input messages were kept, is not judged beside it.
#[test]
fn emptied_message_kept_as_a_shell() {
    let h = history();
    let mut shell = pick(&h, &[0, 7, 8, 9, 10, 11, 12]);
    shell[1]["contents"] = json!([]);
    assert_eq!(
        convicted(
            Policy::Suffix,
            json!(6),
            &h,
            Response::Messages(shell),
            Extras::default()
        ),
        ["no-fabrication"]
    );
    // spec/approval-approved-overflow: the approval-only user message,
    // cut from its request, kept empty.
    let case = reducer_kit::case::load_file(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/spec/approvals.json"),
    )
    .unwrap()
    .into_iter()
    .find(|c| c.id == "spec/approval-approved-overflow")
    .unwrap();
    let m = &case.messages;
    let out = vec![
        m[2].clone(),
        json!({"role": "user", "contents": []}),
        m[5].clone(),
        m[6].clone(),
        m[7].clone(),
    ];
    assert_eq!(
        convicted(
            Policy::Turns,
            json!(5),
            m,
            Response::Messages(out),
            Extras::default()
        ),
        ["no-fabrication"]
    );
}

#[test]
fn call_kept_without_its_results() {
    let h = history();
    let mut partial = pick(&h, &[0, 8, 9, 10, 11, 12]);
    partial[2]["contents"].as_array_mut().unwrap().remove(1);
    assert_eq!(
        convicted(
            Policy::Suffix,
            json!(5),
            &h,
            Response::Messages(partial),
            Extras::default()
        ),
        ["calls-keep-results", "valid-output", "matches-reference"]
    );
    assert_eq!(
        mutant(Policy::Suffix, 5, &[0, 8, 10, 11, 12]),
        [
            "calls-keep-results",
            "valid-output",
            "contiguous-suffix",
            "matches-reference"
        ]
    );
    // An approval request kept without its response.
    assert_eq!(
        mutant(Policy::Turns, 8, &[0, 5, 6, 8, 9, 10, 11, 12]),
        [
            "calls-keep-results",
            "valid-output",
            "whole-turns",
            "matches-reference"
        ]
    );
}

#[test]
fn bad_budget_answered_with_output() {
    // A budget written as an integer is rejects-bad-budget's; one written
    // otherwise (a fraction, a string, a boolean, null) is read at the
    // protocol level (spec §6.2).
    for (bad, clause) in [
        (json!(0), "rejects-bad-budget"),
        (json!(-1), "rejects-bad-budget"),
        (json!(1.5), "protocol-budget"),
        (json!("3"), "protocol-budget"),
        (json!(true), "protocol-budget"),
        (Value::Null, "protocol-budget"),
    ] {
        let h = history();
        assert_eq!(
            convicted(
                Policy::Turns,
                bad.clone(),
                &h,
                Response::Messages(pick(&h, &[0, 11])),
                Extras::default()
            ),
            [clause, "matches-reference"],
            "{bad}"
        );
        assert_eq!(
            convicted(
                Policy::Turns,
                bad,
                &h,
                Response::Error("no".into()),
                Extras::default()
            ),
            Vec::<&str>::new()
        );
    }
}

#[test]
fn valid_request_rejected() {
    let h = history();
    assert_eq!(
        convicted(
            Policy::Suffix,
            json!(4),
            &h,
            Response::Error("budget too small".into()),
            Extras::default()
        ),
        ["valid-output", "matches-reference"]
    );
    // The same budget written 4.0 or 4e0 is a budget the protocol spells
    // so (spec §2): refusing it fails protocol-budget, not valid-output.
    for spelled in ["4.0", "4e0"] {
        assert_eq!(
            convicted(
                Policy::Suffix,
                serde_json::from_str(spelled).unwrap(),
                &h,
                Response::Error("maxMessages must be an int".into()),
                Extras::default()
            ),
            ["protocol-budget", "matches-reference"],
            "{spelled}"
        );
    }
}

#[test]
fn different_response_to_the_same_request() {
    let h = history();
    let out = Response::Messages(pick(&h, &[0, 11, 12]));
    let extras = Extras {
        repeat: Some(Response::Messages(pick(&h, &[0, 12]))),
        ..Extras::default()
    };
    assert_eq!(
        convicted(Policy::Turns, json!(3), &h, out.clone(), extras),
        ["deterministic"]
    );
    let extras = Extras {
        repeat: Some(out.clone()),
        ..Extras::default()
    };
    assert_eq!(
        convicted(Policy::Turns, json!(3), &h, out, extras),
        Vec::<&str>::new()
    );
}

#[test]
fn turn_kept_in_part() {
    assert_eq!(
        mutant(Policy::Turns, 8, &[0, 6, 7, 8, 9, 10, 11, 12]),
        ["whole-turns", "matches-reference"]
    );
}

#[test]
fn older_turn_kept_while_newer_dropped() {
    assert_eq!(
        mutant(Policy::Turns, 8, &[0, 1, 2, 3, 4, 11, 12]),
        ["newest-first", "matches-reference"]
    );
}

#[test]
fn budget_wasted() {
    assert_eq!(
        mutant(Policy::Turns, 8, &[0, 11, 12]),
        ["maximal", "matches-reference"]
    );
    assert_eq!(
        mutant(Policy::Suffix, 4, &[0, 11, 12]),
        ["maximal-suffix", "matches-reference"]
    );
}

#[test]
fn overflow_without_the_question() {
    assert_eq!(
        mutant(Policy::Turns, 1, &[0, 12]),
        ["overflow-question", "matches-reference"]
    );
    assert_eq!(
        mutant(Policy::Turns, 1, &[0]),
        ["overflow-question", "matches-reference"]
    );
}

#[test]
fn gap_inside_the_suffix() {
    assert_eq!(
        mutant(Policy::Suffix, 4, &[0, 10, 12]),
        ["contiguous-suffix", "matches-reference"]
    );
}

/// `spec/suffix-split-approval`: a suffix that starts on the assistant
/// message holding an approval response beside its text keeps that message
/// without the response (its request, message 1, is cut away): an illegal
/// start of section 4 that no longer run excuses.
#[test]
fn suffix_started_on_a_split_group() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/spec/suffix.json");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = cases
        .iter()
        .find(|c| c["id"] == "spec/suffix-split-approval")
        .expect("the case is in corpus/spec/suffix.json");
    let h: Vec<Value> = serde_json::from_value(case["messages"].clone()).unwrap();
    let mut stripped = h[2].clone();
    stripped["contents"].as_array_mut().unwrap().remove(0);
    let answer = vec![stripped, h[3].clone(), h[4].clone(), h[5].clone()];
    assert_eq!(
        convicted(
            Policy::Suffix,
            json!(4),
            &h,
            Response::Messages(answer.clone()),
            Extras::default()
        ),
        ["contiguous-suffix", "matches-reference"]
    );
    assert_eq!(
        detail(Policy::Suffix, json!(4), &h, answer, Clause::ContiguousSuffix).as_deref(),
        Some("the run starts at input message 2, kept without what answers input message 1 (a result or approval response beside other content): not a legal start")
    );
    // Kept whole, the approval response is an orphan: that clause's
    // failure, not contiguous-suffix's.
    assert_eq!(
        convicted(
            Policy::Suffix,
            json!(4),
            &h,
            Response::Messages(h[2..].to_vec()),
            Extras::default()
        ),
        ["no-orphan-approval", "valid-output", "matches-reference"]
    );
    // A tool message holding a note beside its result is an illegal start
    // too: kept without the result, it is kept in part.
    let t: Vec<Value> = serde_json::from_value(json!([
        {"role": "user", "contents": [{"$type": "text", "text": "Is A1 open?"}]},
        {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "c1", "name": "GetOrder", "arguments": {}}]},
        {"role": "tool", "contents": [{"$type": "text", "text": "from the cache"}, {"$type": "functionResult", "callId": "c1", "result": "open"}]},
        {"role": "assistant", "contents": [{"$type": "text", "text": "A1 is open."}]}
    ]))
    .unwrap();
    let mut note = t[2].clone();
    note["contents"].as_array_mut().unwrap().remove(1);
    assert_eq!(
        detail(
            Policy::Suffix,
            json!(2),
            &t,
            vec![note, t[3].clone()],
            Clause::ContiguousSuffix
        )
        .as_deref(),
        Some("the run starts at input message 2, kept without what answers input message 1 (a result or approval response beside other content): not a legal start")
    );
    // An approval-only message kept in part keeps an orphan: the orphan's
    // clause names the defect, not contiguous-suffix
    // (spec/approval-partial-strip-suffix without its first message).
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/spec/approvals.json");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let strip = cases
        .iter()
        .find(|c| c["id"] == "spec/approval-partial-strip-suffix")
        .unwrap();
    let input: Vec<Value> = serde_json::from_value(strip["messages"].clone()).unwrap();
    let expected: Vec<Value> = serde_json::from_value(strip["expected"].clone()).unwrap();
    assert_eq!(
        convicted(
            Policy::Suffix,
            strip["maxMessages"].clone(),
            &input,
            Response::Messages(expected[1..].to_vec()),
            Extras::default()
        ),
        [
            "no-orphan-approval",
            "valid-output",
            "maximal-suffix",
            "matches-reference"
        ]
    );
    // The reference starts at the call.
    assert!(convicted(
        Policy::Suffix,
        json!(4),
        &h,
        Response::Messages(h[3..].to_vec()),
        Extras::default()
    )
    .is_empty());
}

#[test]
fn input_that_fits_comes_back_changed() {
    assert_eq!(
        mutant(Policy::Turns, 20, &[0, 5, 6, 7, 8, 9, 10, 11, 12]),
        ["maximal", "identity-when-fits", "matches-reference"]
    );
    assert_eq!(
        mutant(Policy::Suffix, 20, &[0, 5, 6, 7, 8, 9, 10, 11, 12]),
        ["maximal-suffix", "identity-when-fits", "matches-reference"]
    );
}

#[test]
fn reducing_the_output_again_changes_it() {
    let h = history();
    let out = Response::Messages(pick(&h, &[0, 11, 12]));
    let extras = Extras {
        again: Some(Response::Messages(pick(&h, &[0, 11]))),
        ..Extras::default()
    };
    assert_eq!(
        convicted(Policy::Turns, json!(3), &h, out.clone(), extras),
        ["idempotent"]
    );
    let extras = Extras {
        again: Some(out.clone()),
        ..Extras::default()
    };
    assert_eq!(
        convicted(Policy::Turns, json!(3), &h, out, extras),
        Vec::<&str>::new()
    );
}

#[test]
fn smaller_budget_keeps_what_the_larger_dropped() {
    let h = history();
    let out = Response::Messages(pick(&h, &[0, 10, 11, 12]));
    // For budget 3 this reducer keeps message 9, which its budget-4 output dropped.
    let smaller = Some((3, Response::Messages(pick(&h, &[0, 9, 11, 12]))));
    assert_eq!(
        convicted(
            Policy::Suffix,
            json!(4),
            &h,
            out.clone(),
            Extras {
                smaller,
                ..Extras::default()
            }
        ),
        ["budget-monotone"]
    );
    let smaller = Some((
        3,
        Response::Messages(pick(&h, &[0, 10, 11, 12])[1..].to_vec()),
    ));
    assert_eq!(
        convicted(
            Policy::Suffix,
            json!(4),
            &h,
            out,
            Extras {
                smaller,
                ..Extras::default()
            }
        ),
        Vec::<&str>::new()
    );
}

#[test]
fn only_the_reference_can_tell() {
    // An invalid input (an orphan result): policy clauses do not apply, and a
    // safe output that differs from the reference fails only matches-reference.
    let h = vec![
        text("user", "q"),
        json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "x", "result": "?"}]}),
        text("assistant", "a"),
    ];
    assert_eq!(
        Reference::new(Policy::Turns, Format::Canonical)
            .reduce(Input::new(&h).max_messages(&json!(5)))
            .unwrap()
            .messages(),
        vec![h[0].clone(), h[2].clone()]
    );
    assert_eq!(
        convicted(
            Policy::Turns,
            json!(5),
            &h,
            Response::Messages(vec![h[2].clone()]),
            Extras::default()
        ),
        ["matches-reference"]
    );
}

// ---- Spec v2: costs (§11) and summaries (§12) ----

/// The costs of [`history`]'s messages for the token mutants: the tool
/// result of turn q1 is heavy.
const COSTS: [u64; 13] = [5, 1, 2, 40, 1, 1, 1, 1, 2, 3, 1, 1, 2];

/// The clauses convicted for `output` under a token budget of `max` with
/// [`COSTS`], summaries allowed when `summary` gives S; the reference
/// answers are the reference reducer's (for the budget less S too).
fn convicted_v2(
    policy: Policy,
    max: u64,
    summary: Option<u64>,
    output: Vec<Value>,
) -> Vec<&'static str> {
    let h = history();
    let fields = BudgetFields::tokens(json!(max), json!(COSTS), None);
    let budget = Budget::read(&fields, h.len()).unwrap();
    let reference = Reference::new(policy, Format::Canonical);
    let extras = Extras {
        reference: Some(Response::from(
            reference.reduce(Input::new(&h).budget_fields(&fields)),
        )),
        reference_less_summary: summary
            .map(|s| Response::from(reference.reduce(Input::new(&h).budget(&budget.less(s))))),
        ..Extras::default()
    };
    let req = Request {
        format: Format::Canonical,
        policy,
        budget: &fields,
        messages: &h,
        summary,
        declared: Default::default(),
        provider: None,
    };
    check(&req, &Response::Messages(output), &extras)
        .unwrap()
        .into_iter()
        .filter(|v| v.failed())
        .map(|v| v.clause.id())
        .collect()
}

fn summary(t: &str) -> Value {
    text("assistant", &format!("Summary: {t}"))
}

#[test]
fn token_reference_outputs_pass() {
    let h = history();
    // suffix, maxTokens 10: 12..=7 cost 10, but 7 (an approval response)
    // is no legal start, so from 8 (cost 9).
    assert_eq!(
        convicted_v2(Policy::Suffix, 10, None, pick(&h, &[0, 8, 9, 10, 11, 12])),
        Vec::<&str>::new()
    );
    // turns, maxTokens 12: q3 (3) and q2 (9) fit, q1 (44) does not.
    assert_eq!(
        convicted_v2(
            Policy::Turns,
            12,
            None,
            pick(&h, &[0, 5, 6, 7, 8, 9, 10, 11, 12])
        ),
        Vec::<&str>::new()
    );
}

#[test]
fn an_over_budget_cost_selection() {
    let h = history();
    // One older message (cost 1) takes the output to 11 > 10.
    assert_eq!(
        convicted_v2(
            Policy::Suffix,
            10,
            None,
            pick(&h, &[0, 6, 7, 8, 9, 10, 11, 12])
        ),
        ["budget", "matches-reference"]
    );
    // The heavy result's turn under turns: 3 + 9 + 44 > 12.
    assert_eq!(
        convicted_v2(Policy::Turns, 12, None, h.clone()),
        ["budget", "matches-reference"]
    );
}

#[test]
fn a_summary_across_a_group() {
    let h = history();
    // The summary stands for 1..=8, the call of 9's results among them.
    let mut out = pick(&h, &[0]);
    out.push(summary("q1 and the refund"));
    out.extend(pick(&h, &[9, 10, 11, 12]));
    assert_eq!(
        convicted_v2(Policy::Suffix, 10, Some(2), out),
        ["no-orphan-result", "valid-output", "matches-reference"]
    );
}

#[test]
fn a_second_summary_or_one_in_the_middle_or_with_a_call() {
    let h = history();
    let mut two = pick(&h, &[0]);
    two.push(summary("one"));
    two.push(summary("two"));
    two.extend(pick(&h, &[11, 12]));
    // The second summary is no input message: no-fabrication names it, and
    // the policy clauses, which judge kept input messages, are not judged.
    assert_eq!(
        convicted_v2(Policy::Suffix, 10, Some(2), two),
        ["no-fabrication"]
    );
    let mut middle = pick(&h, &[0, 10]);
    middle.push(summary("middle"));
    middle.extend(pick(&h, &[11, 12]));
    // Without its summary the answer is the reference's for B less S:
    // only the place is wrong.
    assert_eq!(
        convicted_v2(Policy::Suffix, 10, Some(2), middle),
        ["summary-shape"]
    );
    let mut call = pick(&h, &[0]);
    call.push(json!({"role": "assistant", "contents": [
        {"$type": "text", "text": "Summary"},
        {"$type": "functionCall", "callId": "s1", "name": "Recall"}]}));
    call.extend(pick(&h, &[8, 9, 10, 11, 12]));
    // 8..=12 cost 9, with the summary 11 > 10.
    assert_eq!(
        convicted_v2(Policy::Suffix, 10, Some(2), call),
        [
            "budget",
            "valid-output",
            "summary-shape",
            "matches-reference"
        ]
    );
}

#[test]
fn a_summary_that_keeps_an_older_message() {
    let h = history();
    // q1 kept after the summary while 2..=10 are dropped.
    let mut out = pick(&h, &[0]);
    out.push(summary("the rest"));
    out.extend(pick(&h, &[1, 11, 12]));
    assert_eq!(
        convicted_v2(Policy::Turns, 12, Some(2), out),
        [
            "summary-replaces-prefix",
            "whole-turns",
            "newest-first",
            "matches-reference"
        ]
    );
}

/// `check_reducer` judges `matches-reference` against the reference answer
/// it is given (and leaves it unjudged without one): a reducer that keeps
/// one turn too few fails it, and only it among the clauses that compare.
#[test]
fn check_reducer_judges_the_reference_it_is_given() {
    let h = history();
    let max = json!(9);
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Turns,
        budget: &BudgetFields::messages(max.clone()),
        messages: &h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let expected = Response::from(
        Reference::new(Policy::Turns, Format::Canonical).reduce(Input::new(&h).max_messages(&max)),
    );
    // The newest turn alone (with the pinned system message): within the
    // budget and whole, but not the most turns that fit.
    let short = |_: &BudgetFields, m: &[Value]| {
        Response::Messages(match m.len() {
            0..=3 => m.to_vec(),
            n => pick(m, &[0, n - 2, n - 1]),
        })
    };
    let outcome = |verdicts: Vec<reducer_kit::check::Verdict>, clause: Clause| {
        verdicts
            .into_iter()
            .find(|v| v.clause == clause)
            .map(|v| v.outcome)
            .unwrap()
    };
    let judged = reducer_kit::check::check_reducer(&req, short, Some(expected)).unwrap();
    assert!(matches!(
        outcome(judged, Clause::MatchesReference),
        Outcome::Fail(d) if d.contains("differs from the reference")
    ));
    let unjudged = reducer_kit::check::check_reducer(&req, short, None).unwrap();
    assert!(!matches!(
        outcome(unjudged, Clause::MatchesReference),
        Outcome::Fail(_) | Outcome::Pass
    ));
}
