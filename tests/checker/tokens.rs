//! Token budgets and summaries (spec §11–§13): small inputs and
//! the worked examples of spec/spec.md, each judged with the
//! exact set of failing clauses; the extra requests a token budget plans;
//! the protocol 2 runs of `certify`, `serve`, `reduce` and `check` end to
//! end, on the example reducers.

use reducer_kit::check::{check, extra_requests, ExtraKind, Extras, Request};
use reducer_kit::formats::Format;
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{Budget, BudgetFields, Policy};
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::on_kit_cases;

fn text(role: &str, t: &str) -> Value {
    json!({"role": role, "contents": [{"$type": "text", "text": t}]})
}

/// The issue's history: `[0:user 5, 1:assistant call 1, 2:tool result 40,
/// 3:assistant 3, 4:user 2]` (spec/tokens-suffix-split-group).
fn issue() -> Vec<Value> {
    vec![
        text("user", "Refund order 42, please."),
        json!({"role": "assistant", "contents": [{"$type": "functionCall", "callId": "c1", "name": "GetOrder", "arguments": {"id": 42}}]}),
        json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": "Order 42: paid, shipped, returned; refund eligible."}]}),
        text("assistant", "Order 42 is refunded."),
        text("user", "Thanks!"),
    ]
}

fn tokens(max: u64, costs: &[u64]) -> BudgetFields {
    BudgetFields::tokens(json!(max), json!(costs), None)
}

fn pick(h: &[Value], idx: &[usize]) -> Vec<Value> {
    idx.iter().map(|&i| h[i].clone()).collect()
}

fn summary() -> Value {
    text("assistant", "Summary: order 42 was looked up.")
}

/// The ids of the clauses `output` fails, with the reference's answers
/// (for the budget, and for the budget less S with summaries) supplied.
fn failing(
    policy: Policy,
    budget: &BudgetFields,
    input: &[Value],
    summary: Option<u64>,
    output: Vec<Value>,
) -> Vec<&'static str> {
    let req = Request {
        format: Format::Canonical,
        policy,
        budget,
        messages: input,
        summary,
        declared: Default::default(),
        provider: None,
    };
    let b = Budget::read(budget, input.len()).unwrap();
    let reference = Reference::new(policy, Format::Canonical);
    let extras = Extras {
        reference: Some(Response::from(
            reference.reduce(Input::new(input).budget_fields(budget)),
        )),
        reference_less_summary: summary
            .map(|s| Response::from(reference.reduce(Input::new(input).budget(&b.less(s))))),
        ..Extras::default()
    };
    check(&req, &Response::Messages(output), &extras)
        .unwrap()
        .into_iter()
        .filter(|v| v.failed())
        .map(|v| v.clause.id())
        .collect()
}

#[test]
fn the_reference_keeps_the_issues_answers() {
    let h = issue();
    let costs = [5, 1, 40, 3, 2];
    let r = |p, n| {
        Reference::new(p, Format::Canonical)
            .reduce(Input::new(&h).budget_fields(&tokens(n, &costs)))
            .unwrap()
            .messages()
    };
    // suffix at 45: from the end 2 + 3 + 40 fits, the start is the tool
    // message, so it moves on: [3, 4] (cost 5).
    assert_eq!(r(Policy::Suffix, 45), pick(&h, &[3, 4]));
    // At 46 the group fits whole: [1, 2, 3, 4].
    assert_eq!(r(Policy::Suffix, 46), pick(&h, &[1, 2, 3, 4]));
    // turns at 45: the turns cost 49 and 2.
    assert_eq!(r(Policy::Turns, 45), pick(&h, &[4]));
}

#[test]
fn dropping_the_oldest_until_it_fits_keeps_an_orphan_result() {
    let h = issue();
    let b = tokens(45, &[5, 1, 40, 3, 2]);
    // The drop-oldest answer: [2, 3, 4], exactly 45.
    assert_eq!(
        failing(Policy::Suffix, &b, &h, None, pick(&h, &[2, 3, 4])),
        ["no-orphan-result", "valid-output", "matches-reference"]
    );
    // Keeping the whole group costs 46 > 45.
    assert_eq!(
        failing(Policy::Suffix, &b, &h, None, pick(&h, &[1, 2, 3, 4])),
        ["budget", "matches-reference"]
    );
    assert_eq!(
        failing(Policy::Suffix, &b, &h, None, pick(&h, &[3, 4])),
        Vec::<&str>::new()
    );
}

#[test]
fn a_summary_across_the_group_orphans_the_result() {
    let h = issue();
    let costs = [5, 1, 40, 3, 2];
    let with = |idx: &[usize]| {
        let mut out = vec![summary()];
        out.extend(pick(&h, idx));
        out
    };
    // The issue's setting, maxTokens 45 and S = 5: [summary, 2, 3, 4]
    // costs 50.
    let b = tokens(45, &costs);
    assert_eq!(
        failing(Policy::Suffix, &b, &h, Some(5), with(&[2, 3, 4])),
        [
            "budget",
            "no-orphan-result",
            "valid-output",
            "matches-reference"
        ]
    );
    assert_eq!(
        failing(Policy::Suffix, &b, &h, Some(5), with(&[3, 4])),
        Vec::<&str>::new(),
        "[summary, 3, 4] passes every clause"
    );
    // spec/summary-across-group: maxTokens 50, S = 5, so 45 beside the
    // summary; [summary, 2, 3, 4] fits and fails only the orphan.
    let b = tokens(50, &costs);
    assert_eq!(
        failing(Policy::Suffix, &b, &h, Some(5), with(&[2, 3, 4])),
        ["no-orphan-result", "valid-output", "matches-reference"]
    );
    assert_eq!(
        failing(Policy::Suffix, &b, &h, Some(5), with(&[3, 4])),
        Vec::<&str>::new()
    );
    // Without summaries allowed, the same summary is a fabrication (and
    // the policy clauses, which judge kept input messages, are not judged).
    assert_eq!(
        failing(Policy::Suffix, &b, &h, None, with(&[3, 4])),
        ["no-fabrication"]
    );
    // The reference (no summary) passes a summaries run too.
    assert_eq!(
        failing(Policy::Suffix, &b, &h, Some(5), pick(&h, &[1, 2, 3, 4])),
        Vec::<&str>::new()
    );
}

/// spec/summary-turns: a system message and three turns of a question and
/// an answer.
fn three_turns() -> Vec<Value> {
    vec![
        text("system", "Be brief."),
        text("user", "q1"),
        text("assistant", "a1"),
        text("user", "q2"),
        text("assistant", "a2"),
        text("user", "q3"),
        text("assistant", "a3"),
    ]
}

/// A message of the input with its pending call taken out is no input
/// message, so under summaries it reads as the summary (spec §12.2: "it
/// is no input message"): `[system, that message]` at `maxMessages` 1 is one
/// summary and nothing of M, the reference's answer for budget 0 with the
/// summary beside it. Without summaries the same output is a fabrication
/// that keeps nothing of M although its newest message fits.
/// (checker_convicts' `DropFirstCall` mutation makes this output; under
/// summaries it may be right.)
#[test]
fn a_message_less_its_pending_call_reads_as_a_summary() {
    let h = vec![
        text("system", "S"),
        text("user", "weather in Paris?"),
        json!({"role": "assistant", "contents": [
            {"$type": "text", "text": "done. Paris"},
            {"$type": "functionCall", "callId": "call_5", "name": "GetWeather", "arguments": {}}]}),
    ];
    let m1 = BudgetFields::messages(json!(1));
    let out = vec![h[0].clone(), text("assistant", "done. Paris")];
    assert_eq!(
        failing(Policy::Suffix, &m1, &h, Some(1), out.clone()),
        Vec::<&str>::new()
    );
    assert_eq!(
        failing(Policy::Suffix, &m1, &h, None, out),
        ["no-fabrication"]
    );
}

#[test]
fn the_summary_examples_of_spec_v2_section_12() {
    let h = three_turns();
    let m3 = BudgetFields::messages(json!(3));
    let out = |parts: &[Value]| parts.to_vec();
    let s = summary();
    // [system, summary, q3, a3]: the newest turn fits beside the summary.
    assert_eq!(
        failing(
            Policy::Turns,
            &m3,
            &h,
            Some(1),
            out(&[h[0].clone(), s.clone(), h[5].clone(), h[6].clone()])
        ),
        Vec::<&str>::new()
    );
    // A kept message before the summary (without it, the answer is the
    // reference's for budget 2).
    assert_eq!(
        failing(
            Policy::Turns,
            &m3,
            &h,
            Some(1),
            out(&[h[0].clone(), h[5].clone(), s.clone(), h[6].clone()])
        ),
        ["summary-shape"]
    );
    // A summary that carries a call, and one that is a tool message.
    let call = json!({"role": "assistant", "contents": [{"$type": "text", "text": "so far"}, {"$type": "functionCall", "callId": "x", "name": "F"}]});
    assert_eq!(
        failing(
            Policy::Turns,
            &m3,
            &h,
            Some(1),
            out(&[h[0].clone(), call, h[5].clone(), h[6].clone()])
        ),
        ["valid-output", "summary-shape"]
    );
    let tool = text("tool", "so far");
    assert_eq!(
        failing(
            Policy::Turns,
            &m3,
            &h,
            Some(1),
            out(&[h[0].clone(), tool, h[5].clone(), h[6].clone()])
        ),
        ["summary-shape"]
    );
    // maxMessages 4: [system, summary, q2, a2, a3] drops q3 but keeps older
    // messages.
    let m4 = BudgetFields::messages(json!(4));
    assert_eq!(
        failing(
            Policy::Turns,
            &m4,
            &h,
            Some(1),
            out(&[
                h[0].clone(),
                s.clone(),
                h[3].clone(),
                h[4].clone(),
                h[6].clone()
            ])
        ),
        [
            "summary-replaces-prefix",
            "whole-turns",
            "matches-reference"
        ]
    );
    // A second summary is a fabrication (four messages besides the pinned
    // one: within budget).
    assert_eq!(
        failing(
            Policy::Turns,
            &m4,
            &h,
            Some(1),
            out(&[
                h[0].clone(),
                s.clone(),
                s.clone(),
                h[5].clone(),
                h[6].clone()
            ])
        ),
        ["no-fabrication"]
    );
    // spec/summary-budget-one: [system, summary] is exact at maxMessages 1.
    let m1 = BudgetFields::messages(json!(1));
    assert_eq!(
        failing(
            Policy::Turns,
            &m1,
            &h,
            Some(1),
            out(&[h[0].clone(), s.clone()])
        ),
        Vec::<&str>::new()
    );
    // spec/summary-fits: M fits, so a summary breaks identity-when-fits
    // (and with B less S = 5 the run could start at a1).
    let m6 = BudgetFields::messages(json!(6));
    let mut replaced = h.clone();
    replaced[1] = s.clone();
    replaced.remove(2);
    assert_eq!(
        failing(Policy::Suffix, &m6, &h, Some(1), replaced),
        ["maximal-suffix", "identity-when-fits", "matches-reference"]
    );
}

/// spec/tokens-count-pinned and its neighbours: the travel history of
/// spec §11.4.
fn travel() -> (Vec<Value>, Vec<u64>) {
    let h = vec![
        text("system", "You are a travel assistant."),
        text("user", "Book a table for two."),
        text("assistant", "Done: 7pm at Luigi's."),
        text("user", "Is UA12 on time?"),
        json!({"role": "assistant", "contents": [{"$type": "functionCall", "callId": "c1", "name": "FlightStatus", "arguments": {"flight": "UA12"}}]}),
        json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": "on time"}]}),
        text("assistant", "UA12 is on time."),
        text("user", "And the weather?"),
        text("assistant", "Sunny."),
    ];
    (h, vec![10, 4, 6, 3, 1, 30, 2, 2, 3])
}

#[test]
fn the_worked_table_of_spec_v2_section_11_4() {
    let (h, costs) = travel();
    let run = |n: u64, count: bool| {
        let b = BudgetFields::tokens(json!(n), json!(costs), Some(json!(count)));
        Reference::new(Policy::Turns, Format::Canonical)
            .reduce(Input::new(&h).budget_fields(&b))
            .map(|s| s.messages())
            .map_err(|e| e.to_string())
    };
    assert_eq!(run(20, false), Ok(pick(&h, &[0, 7, 8])));
    assert_eq!(run(50, false), Ok(pick(&h, &[0, 3, 4, 5, 6, 7, 8])));
    assert_eq!(run(50, true), Ok(pick(&h, &[0, 7, 8])));
    assert_eq!(run(14, true), Ok(pick(&h, &[0, 7])));
    assert_eq!(run(10, true), Ok(pick(&h, &[0])));
    assert_eq!(
        run(9, true),
        Err("the pinned system message (message 0) costs 10, more than maxTokens 9, and countPinned is true".into())
    );
    // A reducer that fills the room at 40 with the first turn fails
    // budget-monotone (and newest-first): spec/tokens-budget-monotone.
    let b = BudgetFields::tokens(json!(41), json!(costs), None);
    let first = Response::Messages(pick(&h, &[0, 3, 4, 5, 6, 7, 8]));
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Turns,
        budget: &b,
        messages: &h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let extras = extra_requests(&req, &first);
    let smaller = extras
        .iter()
        .find(|e| e.kind == ExtraKind::Smaller)
        .unwrap();
    assert_eq!(smaller.budget.max_tokens, Some(json!(40)));
    let mut answers = Extras {
        reference: Some(first.clone()),
        ..Extras::default()
    };
    answers.record(smaller, Response::Messages(pick(&h, &[0, 1, 2, 7, 8])));
    let failed: Vec<&str> = check(&req, &first, &answers)
        .unwrap()
        .into_iter()
        .filter(|v| v.failed())
        .map(|v| v.clause.id())
        .collect();
    assert_eq!(failed, ["budget-monotone"]);
}

#[test]
fn the_extra_requests_of_a_token_budget_carry_the_outputs_costs() {
    let h = issue();
    let b = tokens(50, &[5, 1, 40, 3, 2]);
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Suffix,
        budget: &b,
        messages: &h,
        summary: Some(5),
        declared: Default::default(),
        provider: None,
    };
    let mut out = vec![summary()];
    out.extend(pick(&h, &[3, 4]));
    let first = Response::Messages(out.clone());
    let extras = extra_requests(&req, &first);
    let kinds: Vec<ExtraKind> = extras.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [ExtraKind::Repeat, ExtraKind::Again, ExtraKind::Smaller]
    );
    // Again: the summary at S = 5, the kept messages at their input costs.
    assert_eq!(extras[1].messages, out);
    assert_eq!(extras[1].budget.tokens, Some(json!([5, 3, 2])));
    assert_eq!(extras[1].budget.max_tokens, Some(json!(50)));
    // Smaller: used = 5 + 3 + 2 = 10, so 9.
    assert_eq!(extras[2].budget.max_tokens, Some(json!(9)));
    assert_eq!(extras[2].budget.tokens, Some(json!([5, 1, 40, 3, 2])));
    // A fabricated message has no cost to send: no again-request.
    let mut bad = pick(&h, &[3, 4]);
    bad.insert(0, text("assistant", "made up"));
    let req = Request {
        summary: None,
        ..req
    };
    let kinds: Vec<ExtraKind> = extra_requests(&req, &Response::Messages(bad))
        .iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds, [ExtraKind::Repeat, ExtraKind::Smaller]);
    // Message budgets: as in version 1.
    let m = BudgetFields::messages(json!(3));
    let req = Request { budget: &m, ..req };
    let first = Response::Messages(pick(&h, &[3, 4]));
    let e = extra_requests(&req, &first);
    assert_eq!(e[1].budget, m);
    assert_eq!(e[2].budget, BudgetFields::messages(json!(2)));
}

/// Spec §7 under a token budget: two equal user messages costing 11 and 17
/// (generated case `gen/1/1590` under `--protocol 2 --provider gemini`).
/// An answer keeping one message `[user "a"]` would be matched to the later
/// one (17, over B = 14), but the earlier one fits alone and the bytes are
/// the same: it is matched to that one, so the reference's answer under the
/// Gemini profile (the newest user message that fits alone, message 0)
/// passes `budget` and `idempotent`, whose again-request sends it at 11.
#[test]
fn one_kept_message_is_read_as_the_equal_one_that_fits() {
    use reducer_kit::check::check_reducer;
    use reducer_kit::terms::Provider;
    let h = vec![text("user", "a"), text("user", "a")];
    let b = tokens(14, &[11, 17]);
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Turns,
        budget: &b,
        messages: &h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let gemini = Some(Provider::Gemini);
    let reference = Reference::new(Policy::Turns, Format::Canonical).with_provider(gemini);
    let answer = Response::from(reference.reduce(Input::new(&h).budget_fields(&b)));
    assert_eq!(answer, Response::Messages(vec![h[0].clone()]));
    let again = &extra_requests(&req, &answer)[1];
    assert_eq!(again.kind, ExtraKind::Again);
    assert_eq!(again.budget.tokens, Some(json!([11])));
    let verdicts = check_reducer(
        &Request {
            provider: gemini,
            ..req
        },
        |b, m| Response::from(reference.reduce(Input::new(m).budget_fields(b))),
        Some(answer.clone()),
    )
    .unwrap();
    let failed: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.failed())
        .map(|v| v.clause.id())
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    // When neither fits alone, the latest is read: over the budget.
    let over = tokens(10, &[11, 17]);
    let req = Request {
        budget: &over,
        ..req
    };
    let verdicts = check(&req, &answer, &Extras::default()).unwrap();
    let budget = verdicts.iter().find(|v| v.clause.id() == "budget").unwrap();
    assert_eq!(
        budget.outcome,
        reducer_kit::check::Outcome::Fail(
            "counted cost 17, maxTokens 10: 1 kept messages of M cost 17; it is one message of M kept whole (--declare soft-budget, if the reducer documents that)".into()
        )
    );
    // When the latest fits, it is the one read: the newest message kept
    // alone under `suffix` is the newest, not an equal older one.
    let h2 = vec![text("user", "a"), text("assistant", "b"), text("user", "a")];
    let b2 = tokens(1, &[1, 1, 1]);
    let req2 = Request {
        budget: &b2,
        messages: &h2,
        policy: Policy::Suffix,
        ..req
    };
    let newest = Response::Messages(vec![h2[2].clone()]);
    let failed: Vec<&str> = check(&req2, &newest, &Extras::default())
        .unwrap()
        .iter()
        .filter(|v| v.failed())
        .map(|v| v.clause.id())
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    // Two kept messages are matched as ever, each to the latest: the
    // earlier, cheaper `a` does not stand in for the later one.
    let h3 = vec![
        text("user", "a"),
        text("assistant", "b"),
        text("user", "a"),
        text("assistant", "c"),
    ];
    let b3 = tokens(4, &[1, 1, 9, 1]);
    let req3 = Request {
        budget: &b3,
        messages: &h3,
        ..req
    };
    let two = Response::Messages(vec![h3[2].clone(), h3[3].clone()]);
    let verdicts = check(&req3, &two, &Extras::default()).unwrap();
    let budget = verdicts.iter().find(|v| v.clause.id() == "budget").unwrap();
    assert_eq!(
        budget.outcome,
        reducer_kit::check::Outcome::Fail(
            "counted cost 10, maxTokens 4: 2 kept messages of M cost 10".into()
        )
    );
}

// ---- end to end ---------------------------------------------------------

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn kit() -> &'static str {
    env!("CARGO_BIN_EXE_reducer-kit")
}

fn example(name: &str) -> String {
    root()
        .join("examples/reducers")
        .join(name)
        .display()
        .to_string()
}

/// Runs `certify` with a JSON report; gives the exit code and the report.
fn certify(args: &[&str], reducer: &[&str]) -> (Option<i32>, Value) {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    let out = Command::new(kit())
        .arg("certify")
        .args(args)
        .args(["--report-json", report.to_str().unwrap(), "--"])
        .args(reducer)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|_| panic!("no report: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), serde_json::from_str(&text).unwrap())
}

fn failed_clauses(r: &Value) -> Vec<String> {
    r["clauses"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, t)| t["failed"].as_u64() > Some(0))
        .map(|(c, _)| c.clone())
        .collect()
}

fn levels(r: &Value) -> Vec<bool> {
    ["protocol", "safety", "policy", "exact"]
        .iter()
        .map(|l| r["levels"][l].as_bool().unwrap())
        .collect()
}

#[test]
fn protocol_1_skips_the_version_2_cases_and_protocol_2_runs_them() {
    let serve = [kit(), "serve", "--policy", "suffix", "--persistent"];
    // The kit's own corpora, without corpus/compat/ (which compat/run
    // rewrites: its token adapters' counterexamples are version 2 cases).
    let (code, r) = certify(
        &on_kit_cases(&["--policy", "suffix", "--persistent", "--cases", "0"]),
        &serve,
    );
    assert_eq!(code, Some(0));
    assert_eq!(r["spec"], 1);
    let skipped: Vec<&str> = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x["skipped"].as_str())
        .collect();
    // spec/tokens.json (27 cases, two of which are the same request as
    // another: the same budget and messages under the other policy) and
    // spec/summaries.json (4) need protocol 2; spec/repair.json's 18
    // broken histories are run by --policy repair alone (spec §17.6);
    // spec/exact-numbers has numbers no double holds and 6 cases budgets
    // written other than as an integer, outside every default run (spec
    // §9.5).
    assert_eq!(r["casesSkipped"], 54);
    assert_eq!(
        skipped
            .iter()
            .filter(|s| s.starts_with("a budget written other than as an integer (budget-spellings): outside a default canonical run; --with budget-spellings runs it"))
            .count(),
        6
    );
    assert_eq!(
        skipped
            .iter()
            .filter(|s| s.starts_with("numbers no double holds (as 1e400) (non-double-numbers): outside a default canonical run; --with non-double-numbers runs it"))
            .count(),
        1
    );
    assert_eq!(
        skipped
            .iter()
            .filter(|s| s.starts_with("needs protocol 2"))
            .count(),
        29
    );
    assert_eq!(
        skipped
            .iter()
            .filter(|s| s.starts_with("a case of policy repair"))
            .count(),
        18
    );
    let mut serve2 = serve.to_vec();
    serve2.extend(["--protocol", "2"]);
    let (code, r) = certify(
        &on_kit_cases(&[
            "--policy",
            "suffix",
            "--persistent",
            "--cases",
            "300",
            "--protocol",
            "2",
            "--summaries",
        ]),
        &serve2,
    );
    assert_eq!(code, Some(0), "{}", r["certificate"]);
    assert_eq!(r["spec"], 2);
    assert_eq!(r["summaries"], true);
    // Only the broken histories of policy repair, spec/exact-numbers and
    // the 8 budgets written other than as an integer (two token budgets).
    assert_eq!(r["casesSkipped"], 27);
    assert!(r["certificate"]
        .as_str()
        .unwrap()
        .contains("spec v2 policy suffix format canonical with summaries: levels passed [protocol, safety, policy, exact]"));
    let with_tokens = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x.get("maxTokens").is_some())
        .count();
    assert!(with_tokens > 120, "{with_tokens} token cases");
    // A protocol 1 reducer under protocol 2 does not echo the requests'
    // ids (spec §13.7): every answer fails protocol-json, and nothing
    // else is judged.
    let (code, r) = certify(
        &on_kit_cases(&[
            "--policy",
            "suffix",
            "--persistent",
            "--cases",
            "100",
            "--protocol",
            "2",
            "--shrink-tries",
            "0",
        ]),
        &serve,
    );
    assert_eq!(code, Some(1));
    assert_eq!(failed_clauses(&r), ["protocol-json"]);
    let detail = r["results"][0]["failures"][0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(
            "the answer does not echo the request's `id` (1); it wrote \"{\\\"messages\\\":"
        ),
        "{detail}"
    );
}

#[test]
fn the_token_examples_certify_as_designed() {
    let args = |policy| {
        vec![
            "--policy",
            policy,
            "--persistent",
            "--cases",
            "250",
            "--protocol",
            "2",
            "--shrink-tries",
            "40",
        ]
    };
    for policy in ["suffix", "turns"] {
        let script = example("token_reducer.py");
        let (code, r) = certify(
            &args(policy),
            &["python3", &script, "--policy", policy, "--persistent"],
        );
        assert_eq!(code, Some(0), "{policy}: {}", r["certificate"]);
        assert_eq!(levels(&r), [true, true, true, true]);
    }
    let script = example("token_drop_oldest.py");
    let (code, r) = certify(&args("suffix"), &["python3", &script, "--persistent"]);
    assert_eq!(code, Some(1));
    assert_eq!(levels(&r), [true, false, false, false]);
    let failed = failed_clauses(&r);
    for c in ["no-orphan-result", "valid-output"] {
        assert!(failed.iter().any(|f| f == c), "{failed:?}");
    }
    // One counterexample per kind of failure: one of the
    // valid-output ones is the orphan result.
    let cxs: Vec<&Value> = r["counterexamples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["clause"] == "valid-output")
        .collect();
    assert!(
        cxs.iter().any(|cx| cx["detail"]
            .as_str()
            .unwrap()
            .contains("result-follows-call")),
        "{cxs:?}"
    );
}

#[test]
fn the_summarizing_examples_certify_as_designed() {
    let args = |policy| {
        vec![
            "--policy",
            policy,
            "--persistent",
            "--cases",
            "250",
            "--protocol",
            "2",
            "--summaries",
            "--shrink-tries",
            "40",
        ]
    };
    for policy in ["turns", "suffix"] {
        let script = example("summarizing_reducer.py");
        let (code, r) = certify(
            &args(policy),
            &["python3", &script, "--policy", policy, "--persistent"],
        );
        assert_eq!(code, Some(0), "{policy}: {}", r["certificate"]);
        assert!(
            r["clauses"]["summary-shape"]["passed"].as_u64().unwrap() > 20,
            "{policy}: summaries were made: {}",
            r["clauses"]["summary-shape"]
        );
    }
    let script = example("summarize_across_group.py");
    let (code, r) = certify(&args("suffix"), &["python3", &script, "--persistent"]);
    assert_eq!(code, Some(1));
    assert_eq!(levels(&r), [true, false, false, false]);
    let failed = failed_clauses(&r);
    assert!(failed.iter().any(|f| f == "no-orphan-result"), "{failed:?}");
    // The issue's case, run alone: the summary swallows the call.
    let (_, r) = certify(
        &[
            "--policy",
            "suffix",
            "--protocol",
            "2",
            "--summaries",
            "--case",
            "spec/summary-across-group",
            "--shrink-tries",
            "0",
        ],
        &["python3", &script],
    );
    assert_eq!(
        failed_clauses(&r),
        ["no-orphan-result", "valid-output", "matches-reference"]
    );
}

fn run(args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    use std::io::Write;
    let mut child = Command::new(kit())
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn reduce_and_check_take_token_budgets() {
    let h = Value::Array(issue()).to_string();
    let dir = tempfile::tempdir().unwrap();
    let costs = dir.path().join("costs.json");
    std::fs::write(&costs, "[5, 1, 40, 3, 2]").unwrap();
    let costs = costs.to_str().unwrap();
    let (code, out, _) = run(
        &[
            "reduce",
            "--policy",
            "suffix",
            "--max-tokens",
            "45",
            "--tokens",
            costs,
        ],
        &h,
    );
    assert_eq!(code, Some(0));
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(got, Value::Array(pick(&issue(), &[3, 4])));
    // The envelope's own members.
    let env = json!({"maxTokens": 46, "tokens": [5, 1, 40, 3, 2], "messages": issue()}).to_string();
    let (_, out, _) = run(&["reduce", "--policy", "suffix"], &env);
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(got["messages"], Value::Array(pick(&issue(), &[1, 2, 3, 4])));
    // text-length: every message costs at least 1; message 2 costs the most.
    let (code, out, _) = run(
        &[
            "reduce",
            "--policy",
            "suffix",
            "--max-tokens",
            "12",
            "--costs",
            "text-length",
        ],
        &h,
    );
    assert_eq!(code, Some(0));
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), json!([]));
    // --max-tokens with no costs at all is a usage error (exit 2); an
    // envelope's token budget without costs is invalid input (exit 1, the
    // reference's error).
    let (code, _, err) = run(&["reduce", "--policy", "suffix", "--max-tokens", "45"], &h);
    assert_eq!(code, Some(2));
    assert_eq!(
        err.trim_end(),
        "reducer-kit: error: <stdin>: --max-tokens needs the messages' costs: --tokens FILE, --costs text-length, or the envelope's tokens"
    );
    let env = json!({"maxTokens": 46, "messages": issue()}).to_string();
    let (code, _, err) = run(&["reduce", "--policy", "suffix"], &env);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("tokens must be an array with one cost per message (5 messages), got null"),
        "{err}"
    );
    // A --tokens file of the wrong length is blamed on that file.
    let short = dir.path().join("short.json");
    std::fs::write(&short, "[5, 1, 40]").unwrap();
    let short = short.to_str().unwrap();
    let (code, out, err) = run(&["reduce", "--max-tokens", "45", "--tokens", short], &h);
    assert_eq!(code, Some(2));
    assert_eq!(out, "");
    assert_eq!(
        err.trim_end(),
        format!("reducer-kit: error: {short}: 3 costs for the 5 messages of <stdin> (one cost per message)")
    );
    let (code, _, err) = run(
        &[
            "reduce",
            "--policy",
            "suffix",
            "--count-pinned",
            "--max",
            "3",
        ],
        &h,
    );
    assert_eq!(code, Some(2), "{err}");
    // check with a summary: the issue's summarizer output.
    let input = dir.path().join("in.json");
    std::fs::write(
        &input,
        json!({"maxTokens": 50, "tokens": [5, 1, 40, 3, 2], "summaryTokens": 5, "messages": issue()}).to_string(),
    )
    .unwrap();
    let output = dir.path().join("out.json");
    let mut bad = vec![summary()];
    bad.extend(pick(&issue(), &[2, 3, 4]));
    std::fs::write(&output, Value::Array(bad).to_string()).unwrap();
    let (code, out, _) = run(
        &[
            "check",
            "--policy",
            "suffix",
            "--summaries",
            input.to_str().unwrap(),
            output.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, Some(1));
    let fails: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("FAIL        "))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        fails,
        ["no-orphan-result", "valid-output", "matches-reference"]
    );
    assert!(out.contains("pass        summary-shape"), "{out}");
    assert!(out.contains("pass        summary-replaces-prefix"), "{out}");
}

/// In a format with a top-level system prompt, `reduce` reads it as the
/// pinned system message, as `check`, `serve` and `certify` do: its cost
/// (`systemTokens`, a --tokens file's first cost, or its text length)
/// counts under countPinned. It was ignored: `reduce` kept [b, c] (cost 6)
/// beside a system prompt costing 5 at maxTokens 6, and `check` convicted
/// that output of `budget` and `matches-reference`.
#[test]
fn reduce_reads_the_anthropic_system_as_the_pinned_message() {
    let dir = tempfile::tempdir().unwrap();
    let messages = json!([
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"}
    ]);
    let input = json!({"system": "s", "systemTokens": 5, "maxTokens": 6, "countPinned": true,
        "tokens": [3, 3, 3], "messages": messages});
    let (code, out, err) = run(
        &["reduce", "--format", "anthropic", "--policy", "suffix"],
        &input.to_string(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap(),
        json!({"system": "s", "systemTokens": 5, "maxTokens": 6, "countPinned": true,
            "tokens": [3, 3, 3], "messages": []})
    );
    let in_path = dir.path().join("in.json");
    let out_path = dir.path().join("out.json");
    std::fs::write(&in_path, input.to_string()).unwrap();
    std::fs::write(&out_path, &out).unwrap();
    let (code, judged, _) = run(
        &[
            "check",
            "--format",
            "anthropic",
            "--policy",
            "suffix",
            in_path.to_str().unwrap(),
            out_path.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, Some(0), "{judged}");
    assert!(judged.ends_with("10 passed, 0 failed\n"), "{judged}");
    // A --tokens file has the system prompt's cost first, for reduce as
    // for check: [1, 3, 3, 3] at 6 keeps [b, c].
    let bare = json!({"system": "s", "messages": messages});
    let costs = dir.path().join("costs.json");
    std::fs::write(&costs, "[1, 3, 3, 3]").unwrap();
    let (code, out, err) = run(
        &[
            "reduce",
            "--format",
            "anthropic",
            "--policy",
            "suffix",
            "--max-tokens",
            "6",
            "--tokens",
            costs.to_str().unwrap(),
        ],
        &bare.to_string(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap(),
        json!({"system": "s", "maxTokens": 6, "messages": [
            {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]})
    );
}

/// `check` under a token budget prints a failed clause's definition as
/// spec v2 reads it (costs), as `certify --protocol 2` does; it printed the
/// message-count definition ("number at most maxMessages").
#[test]
fn check_prints_the_token_definition_under_a_token_budget() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.json");
    std::fs::write(
        &input,
        json!({"maxTokens": 5, "tokens": [5, 1, 40, 3, 2], "messages": issue()}).to_string(),
    )
    .unwrap();
    let output = dir.path().join("out.json");
    std::fs::write(
        &output,
        Value::Array(pick(&issue(), &[2, 3, 4])).to_string(),
    )
    .unwrap();
    let (code, out, _) = run(
        &[
            "check",
            "--policy",
            "suffix",
            input.to_str().unwrap(),
            output.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, Some(1));
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("FAIL        budget: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(
        lines[at + 1],
        "            (the output's counted cost (its messages of M at their input costs, the pinned system message when countPinned, a summary at summaryTokens) is at most the budget (maxMessages: 1 a message))"
    );
    // Under a message budget, the version 1 definition.
    let (code, out, _) = run(
        &[
            "check",
            "--policy",
            "suffix",
            "--max",
            "1",
            input.to_str().unwrap(),
            output.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, Some(1));
    assert!(out.contains("FAIL        budget: 3 messages besides the pinned system message, budget 1\n            (the output's messages other than the pinned system message number at most maxMessages)\n"), "{out}");
}
