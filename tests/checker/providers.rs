//! Spec §14.5–§15: call groups, attached reasoning and provider
//! profiles, on small inputs, with the exact
//! outputs and verdicts.

use reducer_kit::check::{check, check_reducer, Extras, Outcome, Request, Verdict};
use reducer_kit::formats::{view_history, Format};
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::provider::provider_violations;
use reducer_kit::terms::BudgetFields;
use reducer_kit::terms::{Clause, Policy, Provider};
use reducer_kit::validate::{validate, Options};
use serde_json::{json, Value};

fn list(v: Value) -> Vec<Value> {
    serde_json::from_value(v).unwrap()
}

fn outcome(verdicts: &[Verdict], clause: Clause) -> Outcome {
    verdicts
        .iter()
        .find(|v| v.clause == clause)
        .unwrap_or_else(|| panic!("{clause} not judged"))
        .outcome
        .clone()
}

/// Every verdict of the reference reducer on a request passes (or is not
/// judged), with the profile.
fn reference_passes(
    format: Format,
    policy: Policy,
    provider: Option<Provider>,
    h: &[Value],
    max: usize,
) {
    let max = json!(max);
    let req = Request {
        format,
        policy,
        budget: &BudgetFields::messages(max.clone()),
        messages: h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let reference = Reference::new(policy, format).with_provider(provider);
    let expected = Response::from(reference.reduce(Input::new(h).max_messages(&max)));
    let verdicts = check_reducer(
        &Request { provider, ..req },
        |b, m| Response::from(reference.reduce(Input::new(m).budget_fields(b))),
        Some(expected),
    )
    .unwrap();
    let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
    assert!(failed.is_empty(), "{policy} {max} {provider:?}: {failed:?}");
}

fn parallel_responses() -> Vec<Value> {
    list(json!([
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {"type": "function_call", "call_id": "a", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
        {"type": "function_call", "call_id": "b", "name": "get_weather", "arguments": "{\"city\":\"Rome\"}"},
        {"type": "function_call_output", "call_id": "a", "output": "sunny"},
        {"type": "function_call_output", "call_id": "b", "output": "rain"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Paris sunny, Rome rain."}]}
    ]))
}

#[test]
fn responses_parallel_calls_validate_with_no_violation() {
    let views = view_history(Format::Responses, &parallel_responses()).unwrap();
    assert_eq!(validate(&views, Options::default()), Vec::new());
    // The same items as separate canonical messages break the v1 rule: the
    // call group exists only where the format has call items.
    let canonical = list(json!([
        {"role": "user", "contents": [{"$type": "text", "text": "q"}]},
        {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "a"}]},
        {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "b"}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "a"}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "b"}]}
    ]));
    let v = validate(
        &view_history(Format::Canonical, &canonical).unwrap(),
        Options::default(),
    );
    assert_eq!(
        v.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
        [
            "results-before-continuation: message 2, id \"a\"",
            "result-follows-call: message 3, id \"a\""
        ]
    );
}

#[test]
fn suffix_never_starts_inside_a_call_group() {
    let h = parallel_responses();
    // Budget 4: |M| - N = 2 is call b, which continues the group; 3 and 4
    // are outputs; the run starts at the assistant's answer.
    let out = Reference::new(Policy::Suffix, Format::Responses)
        .reduce(Input::new(&h).max_messages(&json!(4)))
        .unwrap()
        .messages();
    assert_eq!(out, h[5..].to_vec());
    let out = Reference::new(Policy::Suffix, Format::Responses)
        .reduce(Input::new(&h).max_messages(&json!(5)))
        .unwrap()
        .messages();
    assert_eq!(out, h[1..].to_vec());
    for max in 1..=7 {
        reference_passes(Format::Responses, Policy::Suffix, None, &h, max);
        reference_passes(Format::Responses, Policy::Turns, None, &h, max);
    }
}

#[test]
fn turns_overflow_tail_moves_past_the_group_and_reasoning() {
    let h = list(json!([
        {"role": "user", "content": "q"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
        {"type": "function_call", "call_id": "b", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": "1"},
        {"type": "function_call_output", "call_id": "b", "output": "2"},
        {"type": "reasoning", "id": "rs_2", "summary": []},
        {"role": "assistant", "content": "done"}
    ]));
    // Budget 4: the question and the last 3 (2 "b output", 6 reasoning, 7);
    // the output of b is an orphan once call b's group is cut.
    let out = Reference::new(Policy::Turns, Format::Responses)
        .reduce(Input::new(&h).max_messages(&json!(4)))
        .unwrap()
        .messages();
    assert_eq!(out, vec![h[0].clone(), h[6].clone(), h[7].clone()]);
    // Budget 2: the tail of one message would be the answer, right after
    // the reasoning item attached to it: the tail start moves past the end,
    // leaving the question alone.
    let out = Reference::new(Policy::Turns, Format::Responses)
        .reduce(Input::new(&h).max_messages(&json!(2)))
        .unwrap()
        .messages();
    assert_eq!(out, vec![h[0].clone()]);
    // Budget 3: the question, rs_2 and its item.
    let out = Reference::new(Policy::Turns, Format::Responses)
        .reduce(Input::new(&h).max_messages(&json!(3)))
        .unwrap()
        .messages();
    assert_eq!(out, vec![h[0].clone(), h[6].clone(), h[7].clone()]);
    for max in 1..=9 {
        reference_passes(Format::Responses, Policy::Turns, None, &h, max);
        reference_passes(Format::Responses, Policy::Suffix, None, &h, max);
        reference_passes(
            Format::Responses,
            Policy::Suffix,
            Some(Provider::OpenAiResponses),
            &h,
            max,
        );
    }
}

#[test]
fn a_reducer_that_drops_reasoning_alone_fails_reasoning_attached() {
    let h = list(json!([
        {"role": "user", "content": "q"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"role": "assistant", "content": "a"}
    ]));
    let max = json!(1);
    let req = Request {
        format: Format::Responses,
        policy: Policy::Suffix,
        budget: &BudgetFields::messages(max.clone()),
        messages: &h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let verdicts = check(
        &Request {
            provider: None,
            ..req
        },
        &Response::Messages(vec![h[2].clone()]),
        &Extras::default(),
    )
    .unwrap();
    assert_eq!(
        outcome(&verdicts, Clause::ReasoningAttached),
        Outcome::Fail("the reasoning item at input message 1 is dropped while the item it is attached to (input message 2) is kept".into())
    );
    // The reference keeps the answer with its reasoning only when both fit.
    assert_eq!(
        Reference::new(Policy::Suffix, Format::Responses)
            .reduce(Input::new(&h).max_messages(&max))
            .unwrap()
            .messages(),
        Vec::<Value>::new()
    );
    assert_eq!(
        Reference::new(Policy::Suffix, Format::Responses)
            .reduce(Input::new(&h).max_messages(&json!(2)))
            .unwrap()
            .messages(),
        h[1..].to_vec()
    );
}

fn weather_gemini() -> Vec<Value> {
    list(json!([
        {"role": "user", "parts": [{"text": "weather?"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "w1", "name": "get_weather", "args": {"city": "Paris"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "w1", "name": "get_weather", "response": {"output": "sunny"}}}]},
        {"role": "model", "parts": [{"text": "sunny"}]}
    ]))
}

#[test]
fn gemini_suffix_never_starts_on_the_response_nor_with_the_profile_on_the_call() {
    let h = weather_gemini();
    let two = Reference::new(Policy::Suffix, Format::Gemini)
        .reduce(Input::new(&h).max_messages(&json!(2)))
        .unwrap()
        .messages();
    assert_eq!(two, vec![h[3].clone()]);
    let two = Reference::new(Policy::Suffix, Format::Gemini)
        .with_provider(Some(Provider::Gemini))
        .reduce(Input::new(&h).max_messages(&json!(2)))
        .unwrap()
        .messages();
    assert_eq!(two, vec![h[3].clone()]);
    // Budget 3: without a profile the run starts on the model's call; Gemini
    // rejects a call that does not follow a user turn, so with the profile
    // the start moves on.
    let three = Reference::new(Policy::Suffix, Format::Gemini)
        .reduce(Input::new(&h).max_messages(&json!(3)))
        .unwrap()
        .messages();
    assert_eq!(three, h[1..].to_vec());
    let views = view_history(Format::Gemini, &three).unwrap();
    assert_eq!(
        provider_violations(Provider::Gemini, &views)
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>(),
        ["call-after-user-or-response: message 0: a message with calls comes the first message of the conversation"]
    );
    let three = Reference::new(Policy::Suffix, Format::Gemini)
        .with_provider(Some(Provider::Gemini))
        .reduce(Input::new(&h).max_messages(&json!(3)))
        .unwrap()
        .messages();
    assert_eq!(three, vec![h[3].clone()]);
    for max in 1..=5 {
        for policy in [Policy::Suffix, Policy::Turns] {
            reference_passes(Format::Gemini, policy, None, &h, max);
            reference_passes(Format::Gemini, policy, Some(Provider::Gemini), &h, max);
        }
    }
}

fn done_chat() -> Vec<Value> {
    list(json!([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Look it up."},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "found"},
        {"role": "assistant", "content": "done"}
    ]))
}

#[test]
fn anthropic_profile_rejects_a_window_that_starts_with_the_call() {
    let h = done_chat();
    let max = json!(2);
    let req = Request {
        format: Format::OpenAi,
        policy: Policy::Suffix,
        budget: &BudgetFields::messages(max.clone()),
        messages: &h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let window = vec![h[0].clone(), h[2].clone(), h[3].clone()];
    let verdicts = check(
        &Request {
            provider: Some(Provider::Anthropic),
            ..req
        },
        &Response::Messages(window),
        &Extras::default(),
    )
    .unwrap();
    assert_eq!(
        outcome(&verdicts, Clause::ProviderAccepts),
        Outcome::Fail(
            "the anthropic profile rejects the output: first-is-user: message 1: the first message is \"assistant\", not \"user\"".into()
        )
    );
    // Without a profile the clause is not judged at all.
    let plain = check(
        &Request {
            provider: None,
            ..req
        },
        &Response::Messages(vec![h[0].clone(), h[4].clone()]),
        &Extras::default(),
    )
    .unwrap();
    assert!(plain.iter().all(|v| v.clause != Clause::ProviderAccepts));
    // The reference: suffix keeps [system, "done"], which Anthropic rejects
    // (the conversation starts with the assistant); no later start is
    // accepted, so the newest user message alone.
    assert_eq!(
        Reference::new(Policy::Suffix, Format::OpenAi)
            .reduce(Input::new(&h).max_messages(&max))
            .unwrap()
            .messages(),
        vec![h[0].clone(), h[4].clone()]
    );
    assert_eq!(
        Reference::new(Policy::Suffix, Format::OpenAi)
            .with_provider(Some(Provider::Anthropic))
            .reduce(Input::new(&h).max_messages(&max))
            .unwrap()
            .messages(),
        vec![h[0].clone(), h[1].clone()]
    );
    for n in 1..=5 {
        for p in Provider::ALL {
            for policy in [Policy::Suffix, Policy::Turns] {
                reference_passes(Format::OpenAi, policy, Some(p), &h, n);
            }
        }
    }
}

/// The history of `spec/profile-shortened-tail`: a newest turn whose tail
/// begins on an assistant text, then an approval response whose request
/// the cut leaves out, then a call (canonical).
fn approval_then_call() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/spec/approvals.json");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = cases
        .into_iter()
        .find(|c| c["id"] == "spec/profile-shortened-tail")
        .expect("the case is in corpus/spec/approvals.json");
    list(case["messages"].clone())
}

/// Spec §15.4 step 2 and the `overflow-question` it judges: at budget 6
/// the overflow cut is the question and messages 4 to 8; the approval
/// response 5 answers a request the cut leaves out and goes, so the call 6
/// follows the assistant's text 4, which Gemini rejects. The tail is
/// shortened to begin at 5: the question and messages 6 to 8. A reducer
/// that gives up the tail does not honour the profile's order of cuts.
#[test]
fn gemini_shortens_the_overflow_tail_to_the_first_cut_it_accepts() {
    let h = approval_then_call();
    let max = json!(6);
    assert!(provider_violations(
        Provider::Gemini,
        &view_history(Format::Canonical, &h).unwrap()
    )
    .is_empty());
    assert_eq!(
        Reference::new(Policy::Turns, Format::Canonical)
            .reduce(Input::new(&h).max_messages(&max))
            .unwrap()
            .messages(),
        [2, 4, 6, 7, 8].map(|i| h[i].clone()).to_vec()
    );
    assert_eq!(
        Reference::new(Policy::Turns, Format::Canonical)
            .with_provider(Some(Provider::Gemini))
            .reduce(Input::new(&h).max_messages(&max))
            .unwrap()
            .messages(),
        [2, 6, 7, 8].map(|i| h[i].clone()).to_vec()
    );
    for n in 1..=9 {
        for p in Provider::ALL {
            for policy in [Policy::Suffix, Policy::Turns] {
                reference_passes(Format::Canonical, policy, Some(p), &h, n);
            }
        }
    }
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Turns,
        budget: &BudgetFields::messages(max.clone()),
        messages: &h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let judge = |kept: &[usize]| {
        let answer = Response::Messages(kept.iter().map(|&i| h[i].clone()).collect());
        let verdicts = check(
            &Request {
                provider: Some(Provider::Gemini),
                ..req
            },
            &answer,
            &Extras::default(),
        )
        .unwrap();
        (
            outcome(&verdicts, Clause::OverflowQuestion),
            outcome(&verdicts, Clause::ProviderAccepts),
        )
    };
    assert_eq!(judge(&[2, 6, 7, 8]), (Outcome::Pass, Outcome::Pass));
    // The question alone, or with the last message only: the profile
    // accepts both, but a longer tail was accepted first.
    assert_eq!(
        judge(&[2]).0,
        Outcome::Fail("input message 6 (the newest turn's question or one of its most recent messages) is dropped (the provider profile rejects every longer tail beside the question)".into())
    );
    assert_eq!(
        judge(&[2, 8]).0,
        Outcome::Fail("input message 6 (the newest turn's question or one of its most recent messages) is dropped (the provider profile rejects every longer tail beside the question)".into())
    );
    // The cut without the profile: overflow-question is measured against
    // the shortened tail (message 4 is not in it), and the profile rejects
    // the output.
    let (overflow, accepts) = judge(&[2, 4, 6, 7, 8]);
    assert_eq!(
        overflow,
        Outcome::Fail("input message 4 is kept, but only the newest turn's question and its last 4 messages may be (the provider profile rejects every longer tail beside the question)".into())
    );
    assert!(
        matches!(accepts, Outcome::Fail(ref t) if t.contains("call-after-user-or-response")),
        "{accepts:?}"
    );
}

/// `spec/tokens-profile-no-question`: the same history with costs, where
/// the question (50) does not fit B = 5. The tail alone, from message 4,
/// is rejected by Gemini; with no question to keep and no older turn to
/// drop, the answer is the newest user message that fits alone (spec
/// §15.4 step 3), and `overflow-question` holds any other answer to it.
#[test]
fn gemini_falls_back_on_the_newest_user_message_when_the_question_does_not_fit() {
    let h = approval_then_call();
    let budget = BudgetFields {
        max_messages: None,
        max_tokens: Some(json!(5)),
        tokens: Some(json!([1, 1, 50, 1, 1, 1, 1, 1, 1])),
        count_pinned: None,
    };
    let answer = |p: Option<Provider>| {
        Reference::new(Policy::Turns, Format::Canonical)
            .with_provider(p)
            .reduce(Input::new(&h).budget_fields(&budget))
            .unwrap()
            .messages()
    };
    assert_eq!(answer(None), [4, 6, 7, 8].map(|i| h[i].clone()).to_vec());
    assert_eq!(answer(Some(Provider::Gemini)), vec![h[0].clone()]);
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Turns,
        budget: &budget,
        messages: &h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let judge = |kept: &[usize]| {
        let out = Response::Messages(kept.iter().map(|&i| h[i].clone()).collect());
        outcome(
            &check(
                &Request {
                    provider: Some(Provider::Gemini),
                    ..req
                },
                &out,
                &Extras::default(),
            )
            .unwrap(),
            Clause::OverflowQuestion,
        )
    };
    assert_eq!(judge(&[0]), Outcome::Pass);
    // A cut that keeps the tail's text and final answer, which the
    // profile accepts, is not the cut the profile falls back on.
    assert_eq!(
        judge(&[4, 8]),
        Outcome::Fail("input message 4 is kept, but only input message 0, the newest user message that fits the budget alone, may be (the provider profile rejects the newest turn's tail, and its question does not fit)".into())
    );
    assert_eq!(
        judge(&[]),
        Outcome::Fail("input message 0, the newest user message that fits the budget alone, is dropped (the provider profile rejects the newest turn's tail, and its question does not fit)".into())
    );
    // Without the profile the tail is what overflow-question expects.
    let plain = check(
        &Request {
            provider: None,
            ..req
        },
        &Response::Messages(answer(None)),
        &Extras::default(),
    )
    .unwrap();
    assert_eq!(outcome(&plain, Clause::OverflowQuestion), Outcome::Pass);
}

#[test]
fn a_history_without_a_user_message_is_an_error_under_a_profile() {
    let h = list(json!([
        {"role": "assistant", "content": "one"},
        {"role": "user", "content": "two"},
        {"role": "assistant", "content": "three"}
    ]));
    // The input passes the OpenAI chat profile; suffix at 1 keeps "three".
    assert_eq!(
        Reference::new(Policy::Suffix, Format::OpenAi)
            .with_provider(Some(Provider::OpenAiChat))
            .reduce(Input::new(&h).max_messages(&json!(1)))
            .unwrap()
            .messages(),
        vec![h[2].clone()]
    );
    let only_assistant = list(json!([
        {"role": "user", "content": [{"type": "toolApprovalResponse", "requestId": "r0"}]},
        {"role": "assistant", "content": "x"}
    ]));
    // Bedrock: the input passes (it starts with a user message), but the
    // budget of one keeps "x" alone; the only user message is
    // approval-only, not a turn start: an error.
    let bedrock =
        Reference::new(Policy::Suffix, Format::OpenAi).with_provider(Some(Provider::Bedrock));
    assert_eq!(
        bedrock
            .reduce(Input::new(&only_assistant).max_messages(&json!(1)))
            .unwrap_err()
            .to_string(),
        "no output within the budget passes the bedrock profile (no user message that starts a turn fits the budget alone)"
    );
    // A history with user messages, none of which fits a token budget
    // alone: the same error (it said "the history has no user message").
    let h = list(json!([
        {"role": "user", "content": "a long question"},
        {"role": "assistant", "content": "ok"}
    ]));
    let anthropic =
        Reference::new(Policy::Suffix, Format::OpenAi).with_provider(Some(Provider::Anthropic));
    let tokens = BudgetFields::tokens(json!(5), json!([10, 1]), None);
    assert_eq!(
        anthropic
            .reduce(Input::new(&h).budget_fields(&tokens))
            .unwrap_err()
            .to_string(),
        "no output within the budget passes the anthropic profile (no user message that starts a turn fits the budget alone)"
    );
}

/// The reference reducers pass every clause under every profile, in every
/// format, on generated histories (the property the fuzz target
/// `reduce_invariants` holds without a profile).
#[test]
fn the_reference_passes_every_clause_under_every_profile() {
    use reducer_kit::certify::generated_case;
    use reducer_kit::formats::to_wire;
    let (mut judged, mut moved) = (0, 0);
    for format in Format::ALL {
        for n in 0..60 {
            let case = generated_case(3, n, format, reducer_kit::protocol::Protocol::V1);
            let Ok(h) = to_wire(format, &case.messages) else {
                continue;
            };
            let Some(max) = case.budget.max_messages.as_ref().and_then(Value::as_u64) else {
                continue;
            };
            for provider in Provider::ALL {
                for policy in [Policy::Turns, Policy::Suffix] {
                    reference_passes(format, policy, Some(provider), &h, max as usize);
                    judged += 1;
                    let m = json!(max);
                    if Reference::new(policy, format)
                        .with_provider(Some(provider))
                        .reduce(Input::new(&h).max_messages(&m))
                        .map(|s| s.messages())
                        .ok()
                        != Reference::new(policy, format)
                            .reduce(Input::new(&h).max_messages(&m))
                            .map(|s| s.messages())
                            .ok()
                    {
                        moved += 1;
                    }
                }
            }
        }
    }
    eprintln!("{judged} judged, {moved} moved by the profile");
    assert!(
        judged > 2000 && moved > 50,
        "{judged} judged, {moved} moved"
    );
}

/// The command line with `--provider`: `validate` says what the provider
/// rejects, `reduce` honours the profile, `check` judges
/// `provider-accepts`, on the issue's OpenAI Chat history.
#[test]
fn the_command_line_with_a_provider() {
    use std::process::{Command, Stdio};
    let dir = std::env::temp_dir().join(format!("rk-providers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.json");
    let window = dir.join("out.json");
    let h = done_chat();
    std::fs::write(&input, serde_json::to_string(&h).unwrap()).unwrap();
    std::fs::write(
        &window,
        serde_json::to_string(&vec![h[0].clone(), h[2].clone(), h[3].clone()]).unwrap(),
    )
    .unwrap();
    let kit = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_reducer-kit"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (i, w) = (input.to_str().unwrap(), window.to_str().unwrap());
    let (code, out, _) = kit(&[
        "validate",
        "--format",
        "openai",
        "--provider",
        "anthropic",
        w,
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(
        out,
        format!("{w}: anthropic rejects it: first-is-user: message 1: the first message is \"assistant\", not \"user\"\n1 history: 1 invalid or rejected by anthropic\n")
    );
    let (code, out, _) = kit(&[
        "validate",
        "--format",
        "openai",
        "--provider",
        "anthropic",
        i,
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(out, "1 history: all valid and accepted by anthropic\n");
    let (code, out, err) = kit(&[
        "reduce",
        "--format",
        "openai",
        "--policy",
        "suffix",
        "--max",
        "2",
        "--provider",
        "anthropic",
        i,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(got, Value::Array(vec![h[0].clone(), h[1].clone()]));
    let (code, out, _) = kit(&[
        "check",
        "--format",
        "openai",
        "--policy",
        "suffix",
        "--max",
        "2",
        "--provider",
        "anthropic",
        i,
        w,
    ]);
    assert_eq!(code, Some(1));
    assert!(out.contains("FAIL        provider-accepts: the anthropic profile rejects the output: first-is-user: message 1: the first message is \"assistant\", not \"user\"\n"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Spec §14.7, §15.3 `required-reasoning`: an item sent with its server id
/// needs the reasoning item that came before it in the same output, as the
/// stored conversation (the input) has it; the same item without an id is
/// new to the provider.
#[test]
fn an_item_with_a_server_id_needs_its_reasoning_item() {
    let h = list(json!([
        {"role": "user", "content": "weather in Paris and Rome?"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "a", "name": "weather", "arguments": "{}", "id": "fc_1"},
        {"type": "function_call", "call_id": "b", "name": "weather", "arguments": "{}", "id": "fc_2"},
        {"type": "function_call_output", "call_id": "a", "output": "sun"},
        {"type": "function_call_output", "call_id": "b", "output": "rain"},
        {"type": "reasoning", "id": "rs_2", "summary": []},
        {"role": "assistant", "content": "sun and rain", "id": "msg_3"}
    ]));
    let judge = |keep: &[usize], provider: Option<Provider>| {
        let max = json!(8);
        let req = Request {
            format: Format::Responses,
            policy: Policy::Suffix,
            budget: &BudgetFields::messages(max),
            messages: &h,
            summary: None,
            declared: Default::default(),
            provider: None,
        };
        let out = keep.iter().map(|&i| h[i].clone()).collect();
        check(
            &Request { provider, ..req },
            &Response::Messages(out),
            &Extras::default(),
        )
        .unwrap()
    };
    // The answer without its reasoning item: both clauses say so.
    let v = judge(&[7], Some(Provider::OpenAiResponses));
    assert_eq!(
        outcome(&v, Clause::ReasoningAttached),
        Outcome::Fail("the reasoning item at input message 6 is dropped while the item it is attached to (input message 7) is kept; it carries the server id \"msg_3\", which the openai-responses profile rejects without its reasoning item (required-reasoning)".into())
    );
    assert_eq!(
        outcome(&v, Clause::ProviderAccepts),
        Outcome::Fail("the openai-responses profile rejects the output: required-reasoning: message 0: the item with server id \"msg_3\" is sent without the reasoning item \"rs_2\" that came before it in the same output (stored message 6)".into())
    );
    // The second call of the group came from the output of rs_1 too: a
    // window from it keeps no attached reasoning item apart, and still
    // sends fc_2 without rs_1.
    let v = judge(&[3, 5, 6, 7], Some(Provider::OpenAiResponses));
    assert_eq!(outcome(&v, Clause::ReasoningAttached), Outcome::Pass);
    assert_eq!(
        outcome(&v, Clause::ProviderAccepts),
        Outcome::Fail("the openai-responses profile rejects the output: required-reasoning: message 0: the item with server id \"fc_2\" is sent without the reasoning item \"rs_1\" that came before it in the same output (stored message 1)".into())
    );
    // The whole group with its reasoning passes; other profiles have no
    // such rule; a history judged alone is its own store.
    let v = judge(&[1, 2, 3, 4, 5, 6, 7], Some(Provider::OpenAiResponses));
    assert_eq!(outcome(&v, Clause::ProviderAccepts), Outcome::Pass);
    let v = judge(&[3, 5, 6, 7], Some(Provider::OpenAiChat));
    assert_eq!(outcome(&v, Clause::ProviderAccepts), Outcome::Pass);
    let sent: Vec<Value> = [3, 5, 6, 7].iter().map(|&i| h[i].clone()).collect();
    let views = view_history(Format::Responses, &sent).unwrap();
    assert!(provider_violations(Provider::OpenAiResponses, &views).is_empty());
    // Without server ids the items are new to the provider.
    let bare: Vec<Value> = h
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if m["type"] != "reasoning" {
                m.as_object_mut().unwrap().remove("id");
            }
            m
        })
        .collect();
    let req = Request {
        format: Format::Responses,
        policy: Policy::Suffix,
        budget: &BudgetFields::messages(json!(8)),
        messages: &bare,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let v = check(
        &Request {
            provider: Some(Provider::OpenAiResponses),
            ..req
        },
        &Response::Messages(vec![bare[7].clone()]),
        &Extras::default(),
    )
    .unwrap();
    assert_eq!(outcome(&v, Clause::ProviderAccepts), Outcome::Pass);
}

/// Spec §15.3–§15.4: under `openai-responses` the reference never sends an
/// item with its server id without the reasoning item of its output. Of
/// `[reasoning rs_1, msg_1, msg_2, user]` at budget 2 the policy's own cut
/// `[msg_2, user]` is rejected (`required-reasoning`), so the answer is the
/// user message alone, and `maximal-suffix` accepts that start; at budget 1
/// without the user message no cut is accepted and no turn start fits: the
/// reference answers its error. Read as text alone (the `reduce`
/// command's way), the ids given with `Input::server_ids` do the same.
#[test]
fn openai_responses_keeps_a_stored_item_with_its_reasoning() {
    let stored = list(json!([
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "weather"}]},
        {"role": "assistant", "content": "one", "id": "msg_1"},
        {"role": "assistant", "content": "two", "id": "msg_2"},
        {"role": "user", "content": "and tomorrow?"}
    ]));
    let responses = Reference::new(Policy::Suffix, Format::Responses)
        .with_provider(Some(Provider::OpenAiResponses));
    let two = json!(2);
    let s = responses
        .reduce(Input::new(&stored).max_messages(&two))
        .unwrap();
    assert_eq!(s.kept(), [3]);
    assert_eq!(s.messages(), [stored[3].clone()]);
    reference_passes(
        Format::Responses,
        Policy::Suffix,
        Some(Provider::OpenAiResponses),
        &stored,
        2,
    );
    // Without the profile the policy's own cut stands.
    let plain = Reference::new(Policy::Suffix, Format::Responses);
    assert_eq!(
        plain
            .reduce(Input::new(&stored).max_messages(&two))
            .unwrap()
            .kept(),
        [2, 3]
    );
    let one = json!(1);
    let err = responses
        .reduce(Input::new(&stored[..3]).max_messages(&one))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "no output within the budget passes the openai-responses profile (no user message that starts a turn fits the budget alone)"
    );
    // The history read alone, its ids given.
    let h = reducer_kit::formats::read_history(Format::Responses, &stored).unwrap();
    let ids = [Some("rs_1"), Some("msg_1"), Some("msg_2"), None];
    let b = reducer_kit::terms::Budget::of_messages(2).unwrap();
    let s = responses
        .reduce(Input::history(&h).budget(&b).server_ids(&ids))
        .unwrap();
    assert_eq!(s.kept(), [3]);
}

/// Spec §15.4: `budget-monotone` is not judged when the answer is the
/// profile's fallback. Under `gemini`, tokens `[5, 7, 3, 1, 2]`: at 6 the
/// tail would start on the call, which Gemini rejects, so the reference
/// keeps message 0 alone; at 4 (the answer's cost 5, less 1) the tail is
/// the last message, which Gemini accepts and which is not within message
/// 0. Every clause of the reference passes or is not judged.
#[test]
fn a_profile_fallback_is_not_judged_for_monotony() {
    let h = list(json!([
        {"role": "user", "contents": [{"$type": "text", "text": "a"}]},
        {"role": "user", "contents": [{"$type": "text", "text": "b"}]},
        {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "c1", "name": "f"}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": "r"}]},
        {"role": "assistant", "contents": [{"$type": "text", "text": "c"}]}
    ]));
    let budget = BudgetFields::tokens(json!(6), json!([5, 7, 3, 1, 2]), None);
    let reference =
        Reference::new(Policy::Turns, Format::Canonical).with_provider(Some(Provider::Gemini));
    let got = reference
        .reduce(Input::new(&h).budget_fields(&budget))
        .unwrap();
    assert_eq!(got.kept(), [0]);
    let smaller = BudgetFields::tokens(json!(4), json!([5, 7, 3, 1, 2]), None);
    let got = reference
        .reduce(Input::new(&h).budget_fields(&smaller))
        .unwrap();
    assert_eq!(got.kept(), [4]);
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Turns,
        budget: &budget,
        messages: &h,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let expected = Response::from(reference.reduce(Input::new(&h).budget_fields(&budget)));
    let verdicts = check_reducer(
        &Request {
            provider: Some(Provider::Gemini),
            ..req
        },
        |b, m| Response::from(reference.reduce(Input::new(m).budget_fields(b))),
        Some(expected),
    )
    .unwrap();
    let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
    assert!(failed.is_empty(), "{failed:?}");
    assert!(matches!(
        outcome(&verdicts, Clause::BudgetMonotone),
        Outcome::NotJudged(ref why) if why.starts_with("the output is the provider profile's fallback")
    ));
}
