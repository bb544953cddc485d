//! Policy `repair` (spec/spec.md §17): broken histories on purpose, the
//! reference repair in every format, the checker's repair clauses, and the
//! example sanitizers certified end to end.

use reducer_kit::check::{check, check_reducer, Extras, Outcome, Request};
use reducer_kit::formats::{read_history, to_wire, Format};
use reducer_kit::generate::breakage::shown;
use reducer_kit::generate::shrink::QuickCase;
use reducer_kit::generate::{seeded_case, Break, Config};
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{BudgetFields, Clause, Declared, Policy};
use reducer_kit::validate::{validate_history, Options};
use serde_json::{json, Value};
use std::collections::BTreeMap;

use crate::common::{certify, example, kit_path, on_kit_cases, python, text};

fn strictly_valid(format: Format, messages: &[Value]) -> bool {
    let h = read_history(format, messages).expect("readable");
    validate_history(&h, Options::default()).is_empty()
}

fn budget() -> BudgetFields {
    BudgetFields::messages(json!(3))
}

/// The reference repair of `messages` in `format`.
fn repair(format: Format, messages: &Value) -> Value {
    Value::Array(
        Reference::new(Policy::Repair, format)
            .reduce(Input::new(messages.as_array().unwrap()).budget_fields(&budget()))
            .unwrap()
            .messages(),
    )
}

/// How often each break is applied in `count` broken histories of
/// `format` (seed 1, what `certify --policy repair` runs); each history is
/// checked: broken before the reference's repair (in the wire format),
/// strictly valid after it, and (one in four) the reference passes every
/// clause the checker judges.
fn broken_histories(format: Format, count: u64) -> BTreeMap<&'static str, u64> {
    let cfg = Config::for_repair(format);
    let mut seen: BTreeMap<&'static str, u64> = BTreeMap::new();
    for n in 0..count {
        let case = seeded_case(1, n, &cfg);
        assert!(!case.breaks.is_empty(), "{format} case {n}: no break");
        for b in &case.breaks {
            *seen.entry(b.name()).or_default() += 1;
        }
        // A break never gives two reasoning items one id (a provider that
        // dedupes items by id would see one).
        let ids: Vec<&str> = case
            .messages
            .iter()
            .filter_map(|m| m["contents"].as_array())
            .flatten()
            .filter(|i| i["$type"] == "reasoning")
            .filter_map(|i| i["id"].as_str())
            .collect();
        let distinct: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            ids.len(),
            "{format} case {n}: reasoning ids {ids:?}"
        );
        let wire =
            to_wire(format, &case.messages).unwrap_or_else(|e| panic!("{format} case {n}: {e}"));
        assert!(
            !strictly_valid(format, &wire),
            "{format} case {n} ({:?}) is valid: {}",
            case.breaks,
            Value::Array(case.messages.clone())
        );
        let budget = BudgetFields::messages(json!(case.budget));
        let out = Reference::new(Policy::Repair, format)
            .reduce(Input::new(&wire).budget_fields(&budget))
            .unwrap()
            .messages();
        assert!(
            strictly_valid(format, &out),
            "{format} case {n}: the repair is invalid: {}",
            Value::Array(out.clone())
        );
        if n % 4 == 0 {
            let req = Request {
                format,
                policy: Policy::Repair,
                budget: &budget,
                messages: &wire,
                summary: None,
                declared: Declared::default(),
                provider: None,
            };
            let repair = Reference::new(Policy::Repair, format);
            let reference = Response::from(repair.reduce(Input::new(&wire).budget_fields(&budget)));
            let verdicts = check_reducer(
                &req,
                |b, m| Response::from(repair.reduce(Input::new(m).budget_fields(b))),
                Some(reference),
            )
            .unwrap();
            for v in verdicts {
                assert!(
                    !v.failed(),
                    "{format} case {n}: the reference fails {}: {:?}",
                    v.clause,
                    v.outcome
                );
            }
        }
    }
    seen
}

/// Every break knob a format carries appears in 2,000 broken histories of
/// that format, each history is broken before the reference's repair and
/// valid after it; the counts are those of seed 1 (what `certify --policy
/// repair` runs).
#[test]
fn every_break_appears_and_each_history_is_broken_then_repaired() {
    let want: [(Format, &[(&str, u64)]); 6] = [
        (
            Format::Canonical,
            &[
                ("duplicated-result", 244),
                ("interjected-message", 251),
                ("interrupted-run", 504),
                ("limit-cut", 250),
                ("lost-parallel-result", 255),
                ("orphan-approval-response", 241),
                ("result-before-call", 239),
                ("reused-id-broken", 227),
                ("tool-as-user", 262),
                ("unanswered-approval", 258),
            ],
        ),
        (
            Format::OpenAi,
            &[
                ("duplicated-result", 276),
                ("interjected-message", 243),
                ("interrupted-run", 511),
                ("limit-cut", 263),
                ("lost-parallel-result", 287),
                ("orphan-approval-response", 269),
                ("result-before-call", 303),
                ("reused-id-broken", 299),
                ("unanswered-approval", 289),
            ],
        ),
        (
            Format::Anthropic,
            &[
                ("duplicated-result", 293),
                ("interjected-message", 275),
                ("interrupted-run", 513),
                ("limit-cut", 282),
                ("lost-parallel-result", 277),
                ("orphan-approval-response", 279),
                ("result-before-call", 310),
                ("reused-id-broken", 275),
                ("unanswered-approval", 277),
            ],
        ),
        (
            Format::Responses,
            &[
                ("duplicated-result", 241),
                ("interjected-message", 255),
                ("interrupted-run", 506),
                ("limit-cut", 237),
                ("lost-parallel-result", 274),
                ("orphan-approval-response", 252),
                ("reasoning-cut-off", 259),
                ("result-before-call", 213),
                ("reused-id-broken", 249),
                ("unanswered-approval", 256),
            ],
        ),
        (
            // Gemini's histories are Bedrock's, text beside results too
            // (spec §1.6, §14.8): the same draws.
            Format::Gemini,
            &[
                ("duplicated-result", 354),
                ("interjected-message", 376),
                ("interrupted-run", 573),
                ("limit-cut", 378),
                ("lost-parallel-result", 376),
                ("result-before-call", 355),
                ("reused-id-broken", 336),
            ],
        ),
        (
            Format::Bedrock,
            &[
                ("duplicated-result", 354),
                ("interjected-message", 376),
                ("interrupted-run", 573),
                ("limit-cut", 378),
                ("lost-parallel-result", 376),
                ("result-before-call", 355),
                ("reused-id-broken", 336),
            ],
        ),
    ];
    for (format, counts) in want {
        let seen = broken_histories(format, 2000);
        let want: BTreeMap<&str, u64> = counts.iter().copied().collect();
        assert_eq!(seen, want, "{format}");
        let cfg = Config::for_repair(format);
        for b in Break::ALL {
            assert_eq!(seen.contains_key(b.name()), b.is_on(&cfg), "{format}: {b}");
        }
    }
}

/// `breakage::shown` finds every break the generator applied in most
/// cases (the marks overlap: a later break can hide an earlier one's), and
/// none in valid histories.
#[test]
fn the_breaks_are_shown_by_their_marks() {
    let cfg = Config::for_repair(Format::Canonical);
    let (mut applied, mut found) = (0, 0);
    for n in 0..500 {
        let case = seeded_case(1, n, &cfg);
        let marks = shown(&case.messages);
        for b in &case.breaks {
            applied += 1;
            found += usize::from(marks.contains(b));
        }
    }
    assert!(found * 100 >= applied * 95, "{found} of {applied}");
    for n in 0..300 {
        let case = seeded_case(1, n, &Config::everything());
        assert_eq!(shown(&case.messages), Default::default(), "case {n}");
    }
}

/// A broken counterexample shrinks to a broken one: every candidate of
/// `minimize_broken` breaks a rule.
#[test]
fn shrinking_keeps_the_breakage() {
    let case: QuickCase = seeded_case(1, 3, &Config::for_repair(Format::Canonical)).into();
    assert!(case.is_broken() && !case.is_valid());
    let mut tried = 0;
    let small = case.clone().minimize_broken(|c| {
        tried += 1;
        assert!(c.is_broken(), "{c:?}");
        true
    });
    assert!(small.is_broken());
    assert!(tried > 0);
    assert_eq!(small.messages.len(), 1, "{small:?}");
    // The plain shrinker never offers a broken candidate.
    assert!(case.shrink_candidates().iter().all(QuickCase::is_valid));
}

#[test]
fn a_reasoning_item_cut_off_from_its_call_goes_with_its_orphan_output() {
    let h = json!([
        {"role": "user", "content": "q"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call_output", "call_id": "a", "output": "sunny"},
        {"role": "assistant", "content": "done"}
    ]);
    assert_eq!(
        repair(Format::Responses, &h),
        json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": "done"}])
    );
    // A call group loses its unanswered call item; the reasoning before the
    // group stays with the call item that stays.
    let h = json!([
        {"role": "user", "content": "q"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
        {"type": "function_call", "call_id": "b", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": "1"},
        {"role": "assistant", "content": "done"}
    ]);
    assert_eq!(
        repair(Format::Responses, &h),
        json!([
            {"role": "user", "content": "q"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "a", "output": "1"},
            {"role": "assistant", "content": "done"}
        ])
    );
}

#[test]
fn an_openai_call_is_taken_out_of_tool_calls() {
    let call = |id: &str| json!({"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}});
    let h = json!([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [call("a"), call("b")]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "user", "content": "and?"}
    ]);
    assert_eq!(
        repair(Format::OpenAi, &h),
        json!([
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "Let me look.", "tool_calls": [call("a")]},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "user", "content": "and?"}
        ])
    );
    // Every call unanswered: `tool_calls` goes, the text stays.
    let h = json!([
        {"role": "assistant", "content": "Let me look.", "tool_calls": [call("a")]},
        {"role": "user", "content": "and?"}
    ]);
    assert_eq!(
        repair(Format::OpenAi, &h),
        json!([{"role": "assistant", "content": "Let me look."}, {"role": "user", "content": "and?"}])
    );
}

fn call(id: &str) -> Value {
    json!({"$type": "functionCall", "callId": id, "name": "f"})
}
fn result(id: &str) -> Value {
    json!({"$type": "functionResult", "callId": id, "result": "r"})
}
fn msg(role: &str, items: Vec<Value>) -> Value {
    json!({"role": role, "contents": items})
}
fn text_msg(role: &str, t: &str) -> Value {
    msg(role, vec![json!({"$type": "text", "text": t})])
}

/// The failing clauses (id, detail) of `output` for the repair of
/// `input` (canonical, message budget 3), under `declare`; the reference
/// answers every extra request.
fn convicted(input: &Value, output: Value, declare: &str) -> Vec<(&'static str, String)> {
    let messages = input.as_array().unwrap().clone();
    let budget = budget();
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Repair,
        budget: &budget,
        messages: &messages,
        summary: None,
        declared: Declared::parse(declare).unwrap(),
        provider: None,
    };
    let out = Response::Messages(output.as_array().unwrap().clone());
    let extras = Extras {
        repeat: Some(out.clone()),
        again: Some(out.clone()),
        reference: Some(Response::from(
            Reference::new(Policy::Repair, Format::Canonical)
                .reduce(Input::new(&messages).budget_fields(&budget)),
        )),
        ..Extras::default()
    };
    check(&req, &out, &extras)
        .unwrap()
        .into_iter()
        .filter_map(|v| match v.outcome {
            Outcome::Fail(d) => Some((v.clause.id(), d)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_checker_convicts_each_repair_bug_of_its_clause() {
    // Keeping a call never answered.
    let input = json!([msg("assistant", vec![call("c1")])]);
    assert_eq!(
        convicted(&input, input.clone(), ""),
        vec![
            (
                "repair-valid",
                "the output breaks calls-answered: message 0, id \"c1\"".to_string()
            ),
            (
                "no-unanswered-call",
                "output message 0: call \"c1\" has no result in the tool messages right after its message".to_string()
            ),
            (
                "matches-reference",
                "differs from the reference: expected 0, got 1 messages, first difference at $[0]"
                    .to_string()
            ),
        ]
    );
    // Dropping the whole message of a broken call, an answered call too.
    let input = json!([
        text_msg("user", "q"),
        msg("assistant", vec![call("c1"), call("c2")]),
        msg("tool", vec![result("c1")]),
        text_msg("assistant", "done")
    ]);
    assert_eq!(
        convicted(
            &input,
            json!([text_msg("user", "q"), text_msg("assistant", "done")]),
            ""
        ),
        vec![
            (
                "repair-keeps-whole",
                "input message 1: call \"c1\" is whole and well placed, but the output drops input message 1".to_string()
            ),
            (
                "matches-reference",
                "differs from the reference: expected 4, got 2 messages, first difference at $[1].contents[0][\"$type\"]"
                    .to_string()
            ),
        ]
    );
    // Dropping the interjected message instead of the pair.
    let input = json!([
        text_msg("user", "q"),
        msg("assistant", vec![call("c1")]),
        text_msg("assistant", "one moment"),
        msg("tool", vec![result("c1")])
    ]);
    let without = json!([
        text_msg("user", "q"),
        msg("assistant", vec![call("c1")]),
        msg("tool", vec![result("c1")])
    ]);
    assert_eq!(
        convicted(&input, without, ""),
        vec![
            (
                "repair-keeps-content",
                "input message 2 holds text and is dropped: a repair drops only messages left with no item".to_string()
            ),
            (
                "matches-reference",
                "differs from the reference: expected 2, got 3 messages, first difference at $[1].contents[0][\"$type\"]"
                    .to_string()
            ),
        ]
    );
    // Keeping a duplicate result; taking text out of a message.
    let input = json!([
        msg("assistant", vec![call("c1")]),
        msg("tool", vec![result("c1")]),
        msg("tool", vec![result("c1")])
    ]);
    let failed: Vec<&str> = convicted(&input, input.clone(), "")
        .into_iter()
        .map(|(c, _)| c)
        .collect();
    assert_eq!(
        failed,
        ["no-orphan-result", "repair-valid", "matches-reference"]
    );
    let input = json!([msg(
        "assistant",
        vec![json!({"$type": "text", "text": "t"}), call("c1")]
    )]);
    let got = convicted(&input, json!([msg("assistant", vec![call("c1")])]), "");
    assert_eq!(
        got[0],
        (
            "no-fabrication",
            "output message 0 is no input message: it is input message 0 with an item that is not text taken out: a repair takes out only calls, results and approval items".to_string()
        )
    );
}

#[test]
fn completions_are_judged_by_their_own_clause() {
    let input = json!([
        text_msg("user", "q"),
        msg("assistant", vec![call("c1")]),
        text_msg("user", "hello?")
    ]);
    let completion = msg(
        "tool",
        vec![json!({"$type": "functionResult", "callId": "c1", "result": "cancelled"})],
    );
    let completed = json!([
        text_msg("user", "q"),
        msg("assistant", vec![call("c1")]),
        completion.clone(),
        text_msg("user", "hello?")
    ]);
    // Declared: passes every clause judged (matches-reference is not).
    assert_eq!(
        convicted(&input, completed.clone(), "complete-calls"),
        vec![]
    );
    // Not declared: a fabrication.
    assert_eq!(
        convicted(&input, completed, "")[0],
        (
            "no-fabrication",
            "output message 2 is no input message: {\"role\":\"tool\",\"contents\":[{\"$type\":\"functionResult\",\"callId\":\"c1\",\"result\":\"cancelled\"}]}".to_string()
        )
    );
    // Not right after the call.
    let late = json!([
        text_msg("user", "q"),
        msg("assistant", vec![call("c1")]),
        text_msg("user", "hello?"),
        completion.clone()
    ]);
    let got = convicted(&input, late, "complete-calls");
    assert_eq!(
        got[2],
        (
            "completes-calls",
            "output message 3 completes call \"c1\" (output message 1) but not right after it: output message 2 comes between".to_string()
        )
    );
    // Completing a call the input answered where it should.
    let input = json!([
        msg("assistant", vec![call("c1")]),
        msg("tool", vec![result("c1")])
    ]);
    let twice = json!([msg("assistant", vec![call("c1")]), completion]);
    let got = convicted(&input, twice, "complete-calls");
    assert!(
        got.contains(&(
            "completes-calls",
            "output message 1 completes call \"c1\" of input message 0, which the input answers where it should: a completion answers only a call the repair would remove".to_string()
        )),
        "{got:?}"
    );
    assert!(!Clause::for_policy(Policy::Repair).contains(&Clause::CompletesCalls));
}

#[test]
fn serve_passes_every_level_in_every_format() {
    for format in [
        "canonical",
        "openai",
        "anthropic",
        "responses",
        "gemini",
        "bedrock",
    ] {
        let out = certify(
            &on_kit_cases(&[
                "--policy",
                "repair",
                "--format",
                format,
                "--persistent",
                "--cases",
                "300",
            ]),
            &[
                kit_path(),
                "serve",
                "--policy",
                "repair",
                "--format",
                format,
                "--persistent",
            ],
        );
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{format}: {stdout}");
        assert!(stdout.contains(&format!(
            "certificate: reducer-kit {} spec v2 policy repair format {format}: levels passed [protocol, safety, policy, exact]",
            env!("CARGO_PKG_VERSION")
        )), "{stdout}");
    }
}

/// The minimal counterexample's header and input for `clause` in a text
/// report (the first whose heading names it, alone or among the clauses
/// one input fails).
fn counterexample<'a>(report: &'a str, clause: &str) -> (&'a str, &'a str) {
    let names = |l: &str| -> bool {
        l.strip_prefix("minimal counterexample for ")
            .and_then(|rest| rest.split(" (").next())
            .is_some_and(|list| list.split(", ").any(|c| c == clause))
    };
    let at = report
        .lines()
        .find(|l| names(l))
        .map(|l| report.find(l).unwrap())
        .unwrap_or_else(|| panic!("no counterexample for {clause}:\n{report}"));
    let header = report[at..].lines().next().unwrap();
    let input = report[at..]
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("input:"))
        .unwrap()
        .trim();
    (header, input)
}

#[test]
fn the_example_sanitizers_are_graded_by_their_bugs() {
    let run = |script: &str| {
        certify(
            &on_kit_cases(&["--policy", "repair", "--persistent"]),
            &[python(), "-S", &example(script), "--persistent"],
        )
    };
    let out = run("repair_sanitizer.py");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    for (script, clause, messages, input) in [
        (
            "orphan_results_only.py",
            "no-unanswered-call",
            "1 message",
            r#"{"messages":[{"role":"assistant","contents":[{"$type":"functionCall","callId":"c1","name":"f"}]}]}"#,
        ),
        (
            "leading_orphans_only.py",
            "no-orphan-result",
            "1 message",
            r#"{"messages":[{"role":"user","contents":[{"$type":"functionResult","callId":"c1","result":""}]}]}"#,
        ),
        (
            "call_id_set_sanitizer.py",
            "no-orphan-result",
            "3 messages",
            r#"{"messages":[{"role":"assistant","contents":[{"$type":"functionCall","callId":"c1","name":"f"}]},{"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":""}]},{"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":""}]}]}"#,
        ),
    ] {
        let out = run(script);
        let report = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{script}: {report}");
        let (header, got) = counterexample(&report, clause);
        assert!(
            header.contains(&format!(" ({messages}, maxMessages 1;")),
            "{script}: {header}"
        );
        assert_eq!(got, input, "{script}");
        assert!(report.contains("level safety    FAIL"), "{script}");
    }
}

/// The break knobs are the kinds of repair a sanitizer may claim (spec
/// §17.8), in the same order.
#[test]
fn the_kinds_of_repair_are_the_break_knobs() {
    let names: Vec<&str> = Break::ALL.iter().map(|b| b.name()).collect();
    assert_eq!(names, reducer_kit::terms::declare::REPAIR_KINDS);
}

/// A history cut by a limit (spec §17.6, `limit-cut`) starts with results
/// whose calls were cut: they are its mark, and the repair removes them.
#[test]
fn a_limit_cut_loses_the_results_at_its_head() {
    let cut = json!([
        text_msg("system", "be brief"),
        msg("tool", vec![result("c1")]),
        text_msg("assistant", "sunny"),
        text_msg("user", "and tomorrow?")
    ]);
    let marks = shown(cut.as_array().unwrap());
    assert_eq!(marks.into_iter().collect::<Vec<_>>(), [Break::LimitCut]);
    assert_eq!(
        repair(Format::Canonical, &cut),
        json!([
            text_msg("system", "be brief"),
            text_msg("assistant", "sunny"),
            text_msg("user", "and tomorrow?")
        ])
    );
    // After a user question an orphan result is no limit cut.
    let later = json!([
        text_msg("user", "q"),
        msg("tool", vec![result("c1")]),
        text_msg("assistant", "sunny")
    ]);
    assert!(!shown(later.as_array().unwrap()).contains(&Break::LimitCut));
    // In the Responses format a cut can fall inside a call group: the
    // calls before it go, their outputs stay at the head.
    let cfg = Config::for_repair(Format::Responses);
    let inside = (0..400)
        .map(|n| seeded_case(1, n, &cfg))
        .find(|c| {
            c.breaks == [Break::LimitCut]
                && c.messages.iter().any(|m| {
                    m["role"] == "assistant"
                        && m["contents"]
                            .as_array()
                            .is_some_and(|a| a.iter().all(|i| i["$type"] == "functionCall"))
                })
                && c.messages
                    .iter()
                    .position(|m| m["role"] == "assistant")
                    .is_some_and(|a| {
                        c.messages[..a].iter().all(|m| m["role"] != "tool")
                            && c.messages[a]["contents"]
                                .as_array()
                                .is_some_and(|x| x.iter().all(|i| i["$type"] == "functionCall"))
                    })
        })
        .expect("a cut inside a call group in 400 cases");
    assert!(shown(&inside.messages).contains(&Break::LimitCut));
}

/// A sanitizer that repairs what a history limit leaves and nothing else
/// passes under the scope it claims (spec §17.8), and is convicted without
/// it.
#[test]
fn a_sanitizer_is_judged_within_its_declared_scope() {
    let run = |declare: &[&str]| {
        let mut args = vec!["--policy", "repair", "--persistent"];
        args.extend_from_slice(declare);
        certify(
            &on_kit_cases(&args),
            &[
                python(),
                "-S",
                &example("leading_orphans_only.py"),
                "--persistent",
            ],
        )
    };
    let out = run(&["--declare", "repairs=limit-cut"]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(
        report.contains(
            "declares repairs=limit-cut: levels passed [protocol, safety, policy, exact]"
        ),
        "{report}"
    );
    assert!(report.contains("or outside --declare repairs="), "{report}");
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
}

/// `reduce --policy repair` reads no budget (spec §17.1): it runs without
/// one, and with one gives the same answer.
#[test]
fn reduce_repair_needs_no_budget() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.json");
    let q = json!({"role": "user", "contents": [{"$type": "text", "text": "q"}]});
    let orphan = json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "x", "result": "r"}]});
    let a = json!({"role": "assistant", "contents": [{"$type": "text", "text": "a"}]});
    std::fs::write(&path, json!([q, orphan, a]).to_string()).unwrap();
    let reduce = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_reducer-kit"))
            .args(["reduce", "--policy", "repair"])
            .args(extra)
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    assert_eq!(reduce(&[]), json!([q, a]));
    assert_eq!(reduce(&["--max", "1"]), json!([q, a]));
}
