//! Properties of the generator (`reducer_kit::generate`), its quickcheck
//! support (`reducer_kit::generate::shrink`) and `reducer-kit generate`.

use quickcheck::{Gen, QuickCheck, TestResult};
use reducer_kit::case::Case;
use reducer_kit::formats::{view_history, Format};
use reducer_kit::generate::shrink::QuickCase;
use reducer_kit::generate::{history, seeded_case, seeded_cases, shapes, Config, Shape};
use reducer_kit::json::json_eq;
use reducer_kit::terms::Policy;
use reducer_kit::validate::{validate, Options, Violation};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

fn violations(messages: &[Value], allow_pending: bool) -> Vec<Violation> {
    let views =
        view_history(Format::Canonical, messages).expect("generated histories are readable");
    validate(&views, Options { allow_pending })
}

fn dump(messages: &[Value]) -> String {
    Value::Array(messages.to_vec()).to_string()
}

#[test]
fn validator_accepts_every_seeded_history() {
    let configs = [
        ("default", Config::default()),
        ("everything", Config::everything()),
        ("openai", Config::for_openai()),
        (
            "everything, no swarm",
            Config {
                swarm: false,
                ..Config::everything()
            },
        ),
    ];
    let mut checked = 0;
    for (name, cfg) in configs {
        for (n, case) in seeded_cases(11, 700, &cfg).enumerate() {
            let v = violations(&case.messages, case.allow_pending);
            assert!(
                v.is_empty(),
                "config {name}, case {n}: {v:?}\n{}",
                dump(&case.messages)
            );
            assert!(case.budget >= 1);
            assert!(
                !case.allow_pending || cfg.pending,
                "allow_pending only when asked"
            );
            assert_eq!(case.shapes, shapes(&case.messages, case.budget));
            if !case.allow_pending {
                assert!(!case.shapes.contains(&Shape::PendingCall));
                assert!(!case.shapes.contains(&Shape::PendingRequest));
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 2800);
}

/// An approval item's request id and the id of the call it carries, for
/// the new and the older names; `None` for any other item.
fn approval(item: &Value) -> Option<(bool, &str, &str)> {
    let (request, id, call) = match item["$type"].as_str()? {
        "toolApprovalRequest" => (true, "requestId", "toolCall"),
        "toolApprovalResponse" => (false, "requestId", "toolCall"),
        "functionApprovalRequest" => (true, "id", "functionCall"),
        "functionApprovalResponse" => (false, "id", "functionCall"),
        _ => return None,
    };
    Some((request, item[id].as_str()?, item[call]["callId"].as_str()?))
}

/// A reducer that pairs each approval response with the request for its
/// own call (the one whose `toolCall` has the response's call id) pairs
/// as spec §2 does (each response with the latest waiting request of its
/// id) on every generated history: a request id names one pending request
/// (rule `unique-pending-request`), and a reused one was answered first.
#[test]
fn every_approval_response_answers_the_request_for_its_own_call() {
    let configs = [
        ("default", Config::default()),
        ("everything", Config::everything()),
    ];
    let (mut responses, mut reused, mut call_ids) = (0, 0, 0);
    for (name, cfg) in configs {
        for (n, case) in seeded_cases(48, 2000, &cfg).enumerate() {
            let mut waiting: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
            for m in &case.messages {
                let items = m["contents"].as_array().unwrap();
                for (request, id, call) in items.iter().filter_map(approval) {
                    if request {
                        continue;
                    }
                    let partner = waiting.get_mut(id).and_then(Vec::pop);
                    assert_eq!(
                        partner,
                        Some(call),
                        "config {name}, case {n}: response {id:?}\n{}",
                        dump(&case.messages)
                    );
                    responses += 1;
                }
                for (request, id, call) in items.iter().filter_map(approval) {
                    if !request {
                        continue;
                    }
                    let stack = waiting.entry(id).or_default();
                    assert!(
                        stack.is_empty(),
                        "config {name}, case {n}: request {id:?} while one waits\n{}",
                        dump(&case.messages)
                    );
                    stack.push(call);
                    let count = seen.entry(id).or_default();
                    if *count > 0 {
                        reused += 1;
                    }
                    *count += 1;
                    if id == call {
                        call_ids += 1;
                    }
                }
            }
            let v = violations(&case.messages, case.allow_pending);
            assert!(v.is_empty(), "config {name}, case {n}: {v:?}");
        }
    }
    // Reused request ids (each answered before) and requests under their
    // call's id both occur.
    assert_eq!((responses, reused, call_ids), (1755, 50, 595));
}

#[test]
fn validator_accepts_quickcheck_histories() {
    fn prop(c: QuickCase) -> TestResult {
        TestResult::from_bool(c.is_valid() && c.budget >= 1)
    }
    QuickCheck::new()
        .rng(Gen::new(40))
        .tests(2000)
        .max_tests(2000)
        .quickcheck(prop as fn(QuickCase) -> TestResult);
}

#[test]
fn every_shape_occurs_in_10000_histories() {
    let mut counts: BTreeMap<Shape, usize> = BTreeMap::new();
    for case in seeded_cases(2024, 10_000, &Config::everything()) {
        assert_eq!(case.costs, None, "no costs unless asked");
        for s in case.shapes {
            *counts.entry(s).or_default() += 1;
        }
    }
    // Shapes only some formats have (`Config::with_native_shapes`): the
    // Responses format's reasoning items, Anthropic's, Bedrock's and
    // Gemini's text beside results.
    let native = [
        Shape::ReasoningItem,
        Shape::ReasoningBeforeCalls,
        Shape::ResultsBesideText,
    ];
    assert!(native.iter().all(|s| !counts.contains_key(s)), "{counts:?}");
    for format in [
        Format::Responses,
        Format::Anthropic,
        Format::Bedrock,
        Format::Gemini,
    ] {
        for case in seeded_cases(2024, 2_000, &Config::for_format(format)) {
            for s in case.shapes.into_iter().filter(|s| native.contains(s)) {
                *counts.entry(s).or_default() += 1;
            }
        }
    }
    assert!(counts[&Shape::ReasoningBeforeCalls] >= 100, "{counts:?}");
    // A few in every 400 of each of the three formats.
    assert!(
        (60..=180).contains(&counts[&Shape::ResultsBesideText]),
        "{counts:?}"
    );
    // The shapes of token budgets (protocol 2) need the costs knob.
    let costs = Config {
        costs: true,
        ..Config::everything()
    };
    let mut tokens = 0;
    for case in seeded_cases(2024, 3_000, &costs) {
        if case.costs.is_some() {
            tokens += 1;
            for s in case.shapes {
                *counts.entry(s).or_default() += 1;
            }
        }
    }
    assert!((1200..=1800).contains(&tokens), "about half: {tokens}");
    let missing: Vec<&str> = Shape::ALL
        .iter()
        .filter(|s| !counts.contains_key(s))
        .map(|s| s.name())
        .collect();
    assert!(
        missing.is_empty(),
        "shapes never generated: {missing:?}; counts: {counts:?}"
    );
    // Rare on purpose, but not vanishing.
    assert!(counts[&Shape::LargePayload] >= 5, "{counts:?}");
    assert!(counts[&Shape::ParallelCalls] >= 1000, "{counts:?}");
}

#[test]
fn same_seed_same_cases_on_every_run_and_machine() {
    let cfg = Config::everything();
    let a: Vec<String> = seeded_cases(99, 200, &cfg)
        .map(|c| format!("{} {}", c.budget, dump(&c.messages)))
        .collect();
    let b: Vec<String> = seeded_cases(99, 200, &cfg)
        .map(|c| format!("{} {}", c.budget, dump(&c.messages)))
        .collect();
    assert_eq!(a, b);
    // Case n does not depend on the cases before it.
    assert_eq!(a[150], {
        let c = seeded_case(99, 150, &cfg);
        format!("{} {}", c.budget, dump(&c.messages))
    });
    let other: Vec<String> = seeded_cases(100, 200, &cfg)
        .map(|c| format!("{} {}", c.budget, dump(&c.messages)))
        .collect();
    assert_ne!(a, other);
    // A fingerprint of the stream: ChaCha8 and `arbitrary` are portable, so
    // this holds on every machine. It changes only when the generator does;
    // then update it here (and say so in the commit).
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(a.join("\n").as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "18418bb594012ce3");
}

#[test]
fn fewer_bytes_give_simpler_histories() {
    let cfg = Config {
        swarm: false,
        ..Config::everything()
    };
    let empty = history(&mut arbitrary::Unstructured::new(&[]), &cfg).unwrap();
    assert!(empty.messages.is_empty());
    assert_eq!(empty.budget, 1);
    let bytes: Vec<u8> = (0..8192u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let mut sizes = Vec::new();
    for len in [0, 8, 64, 512, 8192] {
        let c = history(&mut arbitrary::Unstructured::new(&bytes[..len]), &cfg).unwrap();
        assert!(violations(&c.messages, c.allow_pending).is_empty());
        sizes.push(c.messages.len());
    }
    assert!(sizes[1] <= 8, "{sizes:?}");
    assert!(sizes[4] > sizes[1], "{sizes:?}");
}

#[test]
fn shrink_candidates_are_valid_and_smaller() {
    let measure = |c: &QuickCase| {
        let items: usize = c
            .messages
            .iter()
            .map(|m| m["contents"].as_array().map_or(0, Vec::len))
            .sum();
        let text = dump(&c.messages).len();
        (c.messages.len(), items, text, c.budget)
    };
    for case in seeded_cases(5, 150, &Config::everything()) {
        let q = QuickCase::from(case);
        let (m0, i0, t0, b0) = measure(&q);
        for c in q.shrink_candidates() {
            assert!(c.is_valid(), "{c:?}");
            assert!(c.budget >= 1);
            let (m, i, t, b) = measure(&c);
            assert!(
                m <= m0 && i <= i0 && b <= b0 && t <= t0,
                "not smaller: {c:?}"
            );
            assert!((m, i, t, b) != (m0, i0, t0, b0), "not smaller: {c:?}");
        }
    }
}

#[test]
fn minimize_reaches_a_small_parallel_call_case() {
    let has_parallel =
        |c: &QuickCase| shapes(&c.messages, c.budget).contains(&Shape::ParallelCalls);
    let start = seeded_cases(8, 500, &Config::everything())
        .map(QuickCase::from)
        .find(|c| has_parallel(c) && !c.allow_pending && c.messages.len() >= 8)
        .expect("some case has parallel calls");
    let small = start.minimize(has_parallel);
    assert!(small.is_valid());
    assert_eq!(small.budget, 1);
    // One assistant message with exactly two calls, and their two results
    // in one or two tool messages; every text cut to nothing.
    let roles: Vec<String> = small
        .messages
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_ascii_lowercase())
        .collect();
    assert_eq!(roles[0], "assistant", "{small:?}");
    assert!(roles[1..].iter().all(|r| r == "tool"), "{small:?}");
    assert!((2..=3).contains(&small.messages.len()), "{small:?}");
    assert_eq!(
        small.messages[0]["contents"].as_array().unwrap().len(),
        2,
        "{small:?}"
    );
}

/// An item's pairing role (spec §1.1, §2 "Pairing"): which ids it shares
/// (calls with results, approval requests with responses), whether it is an
/// answer (a result or a response, the removable kinds) and its id.
fn pairing_role(item: &Value) -> Option<(&'static str, bool, &str)> {
    let (space, answer, member) = match item["$type"].as_str()? {
        "functionCall" => ("call", false, "callId"),
        "functionResult" => ("call", true, "callId"),
        "toolApprovalRequest" => ("approval", false, "requestId"),
        "toolApprovalResponse" => ("approval", true, "requestId"),
        "functionApprovalRequest" => ("approval", false, "id"),
        "functionApprovalResponse" => ("approval", true, "id"),
        _ => return None,
    };
    Some((space, answer, item[member].as_str()?))
}

/// The pairing walk of spec §2 over `messages`: for each message, for each
/// item, whether it is an answer that found its partner in an earlier
/// message (`false` for every other item).
fn paired_answers(messages: &[&Value]) -> Vec<Vec<bool>> {
    let mut open: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut out = Vec::new();
    for m in messages {
        let items = m["contents"].as_array().map_or(&[][..], Vec::as_slice);
        let mut row = Vec::new();
        for item in items {
            let paired = match pairing_role(item) {
                Some((space, true, id)) => match open.get_mut(&(space, id)) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        true
                    }
                    _ => false,
                },
                _ => false,
            };
            row.push(paired);
        }
        for item in items {
            if let Some((space, false, id)) = pairing_role(item) {
                *open.entry((space, id)).or_default() += 1;
            }
        }
        out.push(row);
    }
    out
}

/// Policy `suffix` under a message budget (spec §4, with steps 5 to 7 of
/// §3) for a canonical history, written from the spec alone: the start
/// |M| − N, moved past every illegal start, the pinned system message
/// added, orphans removed. Also returns how many input messages the answer
/// leaves out.
fn suffix_by_the_spec(history: &[Value], budget: usize) -> (Vec<Value>, usize) {
    // Roles compare without regard to ASCII case (spec §1.2).
    let role = |i: usize| {
        history[i]["role"]
            .as_str()
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    let all: Vec<&Value> = history.iter().collect();
    let whole = paired_answers(&all);
    let pinned = (0..history.len()).find(|&i| matches!(role(i).as_str(), "system" | "developer"));
    let m: Vec<usize> = (0..history.len()).filter(|&i| Some(i) != pinned).collect();
    let illegal_start = |i: usize| {
        let items = history[i]["contents"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        let approval_only = role(i) == "user"
            && !items.is_empty()
            && items
                .iter()
                .all(|it| matches!(pairing_role(it), Some(("approval", true, _))));
        role(i) == "tool" || approval_only || whole[i].iter().any(|&p| p)
    };
    let mut start = m.len().saturating_sub(budget);
    while start < m.len() && illegal_start(m[start]) {
        start += 1;
    }
    let mut selected: Vec<usize> = pinned
        .into_iter()
        .chain(m[start..].iter().copied())
        .collect();
    selected.sort_unstable();
    let chosen: Vec<&Value> = selected.iter().map(|&i| &history[i]).collect();
    let pairs = paired_answers(&chosen);
    let mut out = Vec::new();
    for (msg, paired) in chosen.iter().zip(&pairs) {
        let items = msg["contents"].as_array().map_or(&[][..], Vec::as_slice);
        let kept: Vec<Value> = items
            .iter()
            .zip(paired)
            .filter(|(it, &p)| p || !matches!(pairing_role(it), Some((_, true, _))))
            .map(|(it, _)| it.clone())
            .collect();
        if kept.len() == items.len() {
            out.push((*msg).clone());
        } else if !kept.is_empty() {
            let mut msg = (*msg).clone();
            msg["contents"] = Value::Array(kept);
            out.push(msg);
        }
    }
    let dropped = history.len() - out.len();
    (out, dropped)
}

fn kit(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_reducer-kit"))
        .args(args)
        .output()
        .expect("reducer-kit runs")
}

#[test]
fn generate_command_is_deterministic_and_writes_reference_cases() {
    let args = [
        "generate", "--count", "60", "--seed", "9", "--policy", "suffix", "--stats",
    ];
    let first = kit(&args);
    let second = kit(&args);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(first.stdout, second.stdout);
    let stdout = String::from_utf8(first.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 60);
    let mut cut = 0;
    for (n, line) in lines.iter().enumerate() {
        let case: Case = serde_json::from_str(line).unwrap();
        assert_eq!(case.id, format!("gen/9/{n}"));
        assert_eq!(case.policy, Policy::Suffix);
        // The expected answer against the policy as spec §4 states it,
        // computed here without the reference reducer.
        let budget = case.max_messages.as_ref().unwrap().as_u64().unwrap() as usize;
        let (want, dropped) = suffix_by_the_spec(&case.messages, budget);
        assert!(
            json_eq(
                &Value::Array(want),
                &Value::Array(case.expected.clone().unwrap())
            ),
            "{}: the expected answer is not the policy suffix of spec §4",
            case.id
        );
        cut += usize::from(dropped > 0);
        // generate's default config is certify's.
        let g = seeded_case(9, n as u64, &Config::everything());
        assert_eq!(case.messages, g.messages);
        assert_eq!(case.max_messages, Some(Value::from(g.budget)));
    }
    // Both kinds occur: answers that leave messages out and answers that
    // keep every message.
    assert!(
        cut > 0 && cut < 60,
        "{cut} of 60 answers leave a message out"
    );
    let stderr = String::from_utf8(first.stderr).unwrap();
    for s in Shape::ALL {
        assert!(
            stderr.contains(s.name()),
            "--stats lacks {}: {stderr}",
            s.name()
        );
    }
    assert!(
        stderr.contains("total                          60"),
        "{stderr}"
    );
}

#[test]
fn generate_for_openai_converts_both_ways() {
    let out = kit(&[
        "generate", "--count", "200", "--seed", "3", "--format", "openai",
    ]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines = 0;
    for line in stdout.lines() {
        let case: Case = serde_json::from_str(line).unwrap();
        let o = reducer_kit::formats::openai::to_openai(&case.messages)
            .expect("openai config converts");
        let back = reducer_kit::formats::openai::from_openai(&o).unwrap();
        assert!(json_eq(&Value::Array(back), &Value::Array(case.messages)));
        lines += 1;
    }
    assert_eq!(lines, 200);
}

#[test]
fn generate_command_reads_a_config_and_rejects_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("pending.json");
    std::fs::write(&good, r#"{"pending": true, "approvals": false}"#).unwrap();
    let out = kit(&[
        "generate",
        "--count",
        "300",
        "--seed",
        "1",
        "--config",
        good.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let cases: Vec<Case> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(cases.iter().any(|c| c.allow_pending));
    assert!(!text.contains("ApprovalRequest"));
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"no_such_knob": 1}"#).unwrap();
    let out = kit(&["generate", "--config", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no_such_knob"));
}

#[test]
fn the_costs_knob_changes_nothing_but_the_costs() {
    let plain = Config::everything();
    let costs = Config {
        costs: true,
        ..Config::everything()
    };
    let mut with_tokens = 0;
    for n in 0..400 {
        let a = seeded_case(1, n, &plain);
        let b = seeded_case(1, n, &costs);
        assert_eq!(
            (&a.messages, a.budget, a.allow_pending),
            (&b.messages, b.budget, b.allow_pending),
            "case {n}"
        );
        match &b.costs {
            None => assert_eq!(a.shapes, b.shapes),
            Some(c) => {
                with_tokens += 1;
                assert_eq!(c.tokens.len(), b.messages.len());
                assert!(c.max_tokens >= 1);
                assert!(!b.shapes.iter().any(|s| s.is_message_budget()), "case {n}");
            }
        }
    }
    assert!((150..=250).contains(&with_tokens), "{with_tokens}");
}

/// Spec §14.7: about half the Responses histories with a reasoning item
/// carry the server ids a stored conversation has (`msg_…` on the model's
/// messages, `fc_…` on its calls), only with `extra_fields` on, and they
/// travel in the Responses form as the items' `id`.
#[test]
fn responses_histories_carry_server_ids_in_about_half() {
    use reducer_kit::formats::to_wire;
    let cfg = Config::for_format(Format::Responses);
    let (mut with_reasoning, mut stamped) = (0, 0);
    for (n, case) in seeded_cases(5, 400, &cfg).enumerate() {
        let reasoning = case.messages.iter().any(|m| {
            m["contents"]
                .as_array()
                .is_some_and(|a| a.iter().any(|i| i["$type"] == "reasoning"))
        });
        let ids: Vec<String> = case
            .messages
            .iter()
            .filter_map(|m| m["id"].as_str().map(str::to_string))
            .chain(
                case.messages
                    .iter()
                    .filter_map(|m| m["contents"].as_array())
                    .flatten()
                    .filter(|i| i["$type"] == "functionCall")
                    .filter_map(|i| i["id"].as_str().map(str::to_string)),
            )
            .collect();
        assert!(
            reasoning || ids.is_empty(),
            "case {n}: ids without reasoning"
        );
        with_reasoning += usize::from(reasoning);
        if ids.is_empty() {
            continue;
        }
        stamped += 1;
        assert!(
            ids.iter()
                .all(|i| i.starts_with("msg_") || i.starts_with("fc_")),
            "case {n}: {ids:?}"
        );
        assert!(case.shapes.contains(&Shape::ExtraFields), "case {n}");
        let wire = to_wire(Format::Responses, &case.messages).unwrap();
        let on_items: usize = wire
            .iter()
            .filter(|i| {
                !matches!(
                    i["type"].as_str(),
                    Some("reasoning" | "mcp_approval_request")
                ) && i["id"].is_string()
            })
            .count();
        assert_eq!(on_items, ids.len(), "case {n}: {}", dump(&wire));
    }
    assert!(
        (with_reasoning * 3 / 10..=with_reasoning * 7 / 10).contains(&stamped),
        "{stamped} of {with_reasoning}"
    );
    // Off with extra-fields.
    let plain = Config {
        extra_fields: false,
        ..cfg
    };
    for case in seeded_cases(5, 200, &plain) {
        assert!(case.messages.iter().all(|m| m.get("id").is_none()));
    }
}
