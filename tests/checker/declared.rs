//! Declared contracts (spec §16): each declaration narrows a clause on real
//! inputs, and never voids it.

use reducer_kit::check::{check, Extras, Outcome, Request};
use reducer_kit::formats::Format;
use reducer_kit::protocol::Response;
use reducer_kit::terms::{BudgetFields, Clause, Declared, Policy};
use serde_json::{json, Value};

fn text(role: &str, t: &str) -> Value {
    json!({"role": role, "contents": [{"$type": "text", "text": t}]})
}

fn call(id: &str) -> Value {
    json!({"$type": "functionCall", "callId": id, "name": "lookup", "arguments": {}})
}

fn result(id: &str) -> Value {
    json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": id, "result": "ok"}]})
}

/// Q1, A1, Q2 (0-2); an assistant calling a and b (3); their results
/// (4, 5); the answer (6).
fn history() -> Vec<Value> {
    vec![
        text("user", "q1"),
        text("assistant", "a1"),
        text("user", "q2"),
        json!({"role": "assistant", "contents": [call("a"), call("b")]}),
        result("a"),
        result("b"),
        text("assistant", "done"),
    ]
}

fn pick(h: &[Value], idx: &[usize]) -> Vec<Value> {
    idx.iter().map(|&i| h[i].clone()).collect()
}

/// Every clause's outcome for `output` under `declare`, policy suffix,
/// budget `max` messages: the failing clauses with their details, and the
/// clauses not judged.
fn judged(
    declare: &str,
    max: u64,
    h: &[Value],
    output: Vec<Value>,
) -> (Vec<(Clause, String)>, Vec<Clause>) {
    let budget = BudgetFields::messages(json!(max));
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Suffix,
        budget: &budget,
        messages: h,
        summary: None,
        declared: Declared::parse(declare).unwrap(),
        provider: None,
    };
    let verdicts = check(&req, &Response::Messages(output), &Extras::default()).unwrap();
    let mut failed = Vec::new();
    let mut not_judged = Vec::new();
    for v in verdicts {
        match v.outcome {
            Outcome::Fail(d) => failed.push((v.clause, d)),
            Outcome::NotJudged(_) => not_judged.push(v.clause),
            Outcome::Pass => {}
        }
    }
    (failed, not_judged)
}

fn clauses(failed: &[(Clause, String)]) -> Vec<&'static str> {
    failed.iter().map(|(c, _)| c.id()).collect()
}

#[test]
fn a_soft_budget_may_keep_a_call_group_whole_and_nothing_else() {
    let h = history();
    // Budget 3: the newest run that fits is 4-6; the call (3) is kept
    // with its results, as Semantic Kernel moves its cut.
    let group = pick(&h, &[3, 4, 5, 6]);
    let (failed, _) = judged("", 3, &h, group.clone());
    assert_eq!(
        failed,
        [(
            Clause::Budget,
            "4 messages besides the pinned system message, budget 3; every message over it keeps a call group whole (--declare soft-budget, if the reducer documents that)".to_string()
        )]
    );
    let (failed, _) = judged("soft-budget", 3, &h, group);
    assert_eq!(clauses(&failed), Vec::<&str>::new());
    // An unrelated extra message still fails budget.
    let (failed, _) = judged("soft-budget", 3, &h, pick(&h, &[2, 3, 4, 5, 6]));
    assert_eq!(
        failed,
        [(
            Clause::Budget,
            "5 messages besides the pinned system message, budget 3; under soft-budget the excess must keep a call group whole, but input message 2 is in no call group with a message of the newest run that fits (input messages 4-6)".to_string()
        )]
    );
    // One message over a budget of one token is kept whole.
    let tokens = BudgetFields::tokens(json!(1), json!([1, 1, 1, 1, 1, 1, 5]), Some(json!(false)));
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Suffix,
        budget: &tokens,
        messages: &h,
        summary: None,
        declared: Declared::parse("soft-budget").unwrap(),
        provider: None,
    };
    let verdicts = check(
        &req,
        &Response::Messages(pick(&h, &[6])),
        &Extras::default(),
    )
    .unwrap();
    let budget = verdicts
        .iter()
        .find(|v| v.clause == Clause::Budget)
        .unwrap();
    assert_eq!(budget.outcome, Outcome::Pass);
}

#[test]
fn a_budget_in_turns_counts_turns() {
    let h = history();
    // Two turns (Q1 A1, Q2 ...) in a budget of 2 turns: everything.
    let (failed, not_judged) = judged("budget-unit=turns", 2, &h, h.clone());
    assert_eq!(clauses(&failed), Vec::<&str>::new());
    assert!(not_judged.contains(&Clause::MaximalSuffix));
    assert!(not_judged.contains(&Clause::MatchesReference));
    // One turn: the newest whole; keeping both is over.
    let (failed, _) = judged("budget-unit=turns", 1, &h, pick(&h, &[2, 3, 4, 5, 6]));
    assert_eq!(clauses(&failed), Vec::<&str>::new());
    let (failed, _) = judged("budget-unit=turns", 1, &h, h.clone());
    assert_eq!(
        failed,
        [(
            Clause::Budget,
            "the kept messages touch 2 turns, budget 1 turns (budget-unit=turns)".to_string()
        )]
    );
}

#[test]
fn a_budget_in_items_counts_calls_and_results_apart() {
    let h = history();
    // The call message costs 2 items, each result 1, the answer 1: the
    // last four messages cost 5.
    let (failed, _) = judged("budget-unit=items", 5, &h, pick(&h, &[3, 4, 5, 6]));
    assert_eq!(clauses(&failed), Vec::<&str>::new());
    let (failed, _) = judged("budget-unit=items", 4, &h, pick(&h, &[3, 4, 5, 6]));
    assert_eq!(
        failed[0],
        (
            Clause::Budget,
            "4 kept messages of M count 5 (budget-unit=items), budget 4; every message over it keeps a call group whole (--declare soft-budget, if the reducer documents that)".to_string()
        )
    );
    // Results batched: the two tool messages count one.
    let (failed, _) = judged(
        "budget-unit=batched-results",
        3,
        &h,
        pick(&h, &[3, 4, 5, 6]),
    );
    assert_eq!(clauses(&failed), Vec::<&str>::new());
}

#[test]
fn no_budget_leaves_the_budget_unjudged_and_safety_judged() {
    let h = history();
    let (failed, not_judged) = judged("no-budget", 2, &h, pick(&h, &[5, 6]));
    assert_eq!(clauses(&failed), ["no-orphan-result", "valid-output"]);
    for c in [
        Clause::Budget,
        Clause::MaximalSuffix,
        Clause::IdentityWhenFits,
        Clause::MatchesReference,
    ] {
        assert!(not_judged.contains(&c), "{c}");
    }
}

#[test]
fn a_placeholder_stands_where_the_reducer_cut() {
    let h = history();
    let note = text("user", "Skipped 3 messages.");
    // Head and tail with the note between: no fabrication, and not counted.
    let mut out = pick(&h, &[0]);
    out.push(note.clone());
    out.extend(pick(&h, &[4, 5, 6]));
    let (failed, _) = judged("placeholder", 4, &h, out.clone());
    // Its own clause passes; what the reducer cut (4 and 5 without their
    // call) is judged as ever.
    assert_eq!(
        clauses(&failed),
        ["no-orphan-result", "valid-output", "contiguous-suffix"]
    );
    let mut out = pick(&h, &[0]);
    out.push(note.clone());
    out.extend(pick(&h, &[3, 4, 5, 6]));
    let (failed, _) = judged("placeholder", 5, &h, out.clone());
    assert_eq!(clauses(&failed), ["contiguous-suffix"]);
    // Without the declaration the note is a fabrication.
    let (failed, _) = judged("", 5, &h, out);
    assert_eq!(clauses(&failed), ["budget", "no-fabrication"]);
    // Where nothing was cut, or with a call in it, it fails its clause.
    let mut out = pick(&h, &[0, 1]);
    out.push(note);
    out.extend(pick(&h, &[2, 3, 4, 5, 6]));
    let (failed, _) = judged("placeholder", 9, &h, out);
    assert_eq!(
        failed,
        [
            (
                Clause::PlaceholderShape,
                "the placeholder (output message 2) stands where nothing was dropped (between input messages 1 and 2)".to_string()
            ),
            (
                Clause::IdentityWhenFits,
                "the input fits but the output differs at $[2].contents[0].text".to_string()
            )
        ]
    );
    let mut out = pick(&h, &[0]);
    out.push(json!({"role": "assistant", "contents": [call("z")]}));
    out.extend(pick(&h, &[3, 4, 5, 6]));
    let (failed, _) = judged("placeholder", 5, &h, out);
    assert_eq!(
        failed.iter().find(|(c, _)| *c == Clause::PlaceholderShape),
        Some(&(
            Clause::PlaceholderShape,
            "the placeholder (output message 1) holds a call \"z\"".to_string()
        ))
    );
}

/// A message with a call taken out is a fabrication, and says so.
#[test]
fn a_message_with_a_call_taken_out_says_so() {
    let h = history();
    let mut out = pick(&h, &[2, 3, 4, 5, 6]);
    out[1]["contents"].as_array_mut().unwrap().remove(1);
    let (failed, _) = judged("", 5, &h, out);
    assert_eq!(
        failed[0],
        (
            Clause::NoFabrication,
            "output message 1 is no input message: it is input message 3 with a call \"b\" taken out: only results and approval responses may be taken out".to_string()
        )
    );
}

/// Semantic Kernel's `locate_safe_reduction_index` (semantic-kernel 1.45.0,
/// `chat_history_reducer_utils.py:117-129`) moves its cut back while the
/// message at the cut and the one before it both hold a call or a result:
/// on `[user, call a, result a, call b, result b, answer]` with
/// `target_count=2` the library keeps messages 1-5. `soft-budget=tool-run`
/// (spec §16.8) allows that and nothing more.
#[test]
fn a_tool_run_soft_budget_keeps_adjacent_tool_steps_and_nothing_else() {
    let h = vec![
        text("user", "weather and shipment?"),
        json!({"role": "assistant", "contents": [call("a")]}),
        result("a"),
        json!({"role": "assistant", "contents": [call("b")]}),
        result("b"),
        text("assistant", "sunny, shipped"),
    ];
    let sk = pick(&h, &[1, 2, 3, 4, 5]);
    // soft-budget keeps one call group whole: call a and result a are in
    // none with the newest run that fits (result b, the answer).
    let (failed, _) = judged("soft-budget", 2, &h, sk.clone());
    assert_eq!(
        failed,
        [(
            Clause::Budget,
            "5 messages besides the pinned system message, budget 2; under soft-budget the excess must keep a call group whole, but input message 2 is in no call group with a message of the newest run that fits (input messages 4-5)".to_string()
        )]
    );
    let (failed, not_judged) = judged("soft-budget=tool-run", 2, &h, sk);
    assert_eq!(clauses(&failed), Vec::<&str>::new());
    assert!(not_judged.contains(&Clause::MatchesReference));
    // The user message before the run is no part of it.
    let (failed, _) = judged("soft-budget=tool-run", 2, &h, h.clone());
    assert_eq!(
        failed,
        [(
            Clause::Budget,
            "6 messages besides the pinned system message, budget 2; under soft-budget=tool-run the excess must be the run of adjacent messages holding calls or results at the cut, but input message 0 is outside it (the run is input messages 1-4)".to_string()
        )]
    );
    // A cut at a message that holds no call or result moves nowhere.
    let mut h2 = h.clone();
    h2.push(text("user", "thanks"));
    let (failed, _) = judged("soft-budget=tool-run", 2, &h2, pick(&h2, &[3, 4, 5, 6]));
    assert_eq!(
        failed,
        [(
            Clause::Budget,
            "4 messages besides the pinned system message, budget 2; under soft-budget=tool-run the excess must be the run of adjacent messages holding calls or results at the cut, but input message 3 is outside it (input message 5, the oldest of the newest run that fits, holds no call or result)".to_string()
        )]
    );
}

/// The system prompt (0) before Q1, A1, Q2, the call of a and b, their
/// results and the answer (1-7).
fn with_system() -> Vec<Value> {
    let mut h = vec![text("system", "be brief")];
    h.extend(history());
    h
}

#[test]
fn a_budget_that_counts_the_pinned_message_counts_it() {
    let h = with_system();
    // Budget 4 counting the system prompt leaves three of M: the newest
    // three start on a result whose call would be cut away, so the suffix
    // is the answer alone. Not counting it, the call group and the answer
    // fit.
    let answer = pick(&h, &[0, 7]);
    let (failed, _) = judged("count-pinned", 4, &h, answer.clone());
    assert_eq!(clauses(&failed), Vec::<&str>::new());
    let (failed, _) = judged("", 4, &h, answer);
    assert_eq!(clauses(&failed), ["maximal-suffix"]);
    let whole = pick(&h, &[0, 4, 5, 6, 7]);
    let (failed, _) = judged("", 4, &h, whole.clone());
    assert_eq!(clauses(&failed), Vec::<&str>::new());
    let (failed, _) = judged("count-pinned", 4, &h, whole);
    assert_eq!(
        failed[0],
        (
            Clause::Budget,
            "4 kept messages of M and the pinned system message count 5 (count-pinned), budget 4; every message over it keeps a call group whole (--declare soft-budget, if the reducer documents that)".to_string()
        )
    );
    // A budget of 1 leaves the system prompt alone.
    let (failed, _) = judged("count-pinned", 1, &h, pick(&h, &[0]));
    assert_eq!(clauses(&failed), Vec::<&str>::new());
    // In items, the call message costs 2 and the system prompt 1.
    let (failed, _) = judged(
        "count-pinned,budget-unit=items",
        5,
        &h,
        pick(&h, &[0, 4, 5, 6, 7]),
    );
    assert_eq!(
        failed[0],
        (
            Clause::Budget,
            "4 kept messages of M and the pinned system message count 6 (budget-unit=items, count-pinned), budget 5; every message over it keeps a call group whole (--declare soft-budget, if the reducer documents that)".to_string()
        )
    );
    assert_eq!(
        Declared::parse("count-pinned,budget-unit=turns")
            .unwrap_err()
            .to_string(),
        "count-pinned and budget-unit cannot both be declared: a budget in turns or invocations counts spans of the input, not the pinned message (spec §16.9)"
    );
}
