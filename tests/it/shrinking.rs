//! Shrinking reaches the minimum: the reused-call-id bug of a
//! last-N reducer with an id-set orphan filter, embedded at the end of
//! generated cases, shrinks to the same four messages from every seed,
//! every candidate through one in-process session.

use reducer_kit::certify::counterexample::{shrink_in, ShrinkLimits, ShrinkProgress};
use reducer_kit::certify::process::{Limits, Reducer};
use reducer_kit::certify::run::{run_case, RunCase, Settings};
use reducer_kit::certify::session::{Exchange, RunError, Session};
use reducer_kit::formats::{view_history, Format};
use reducer_kit::generate::{seeded_case, Config};
use reducer_kit::protocol::{OutgoingRequest, Protocol, Response};
use reducer_kit::terms::{pinned_index, Budget, Clause, ItemKind, Policy};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::Mutex;

/// The buggy reducer, in process: the pinned message and the last
/// `maxMessages` others, then results whose call id is not among the kept
/// calls' ids removed (a message left empty goes). Counts its requests.
struct LastNIdFilter {
    requests: usize,
}

impl Session for LastNIdFilter {
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        let request = &request.to_value();
        self.requests += 1;
        let budget = match Budget::parse(&request["maxMessages"]) {
            Ok(b) => b.max_messages(),
            Err(e) => return Ok(Ok(Response::Error(e.to_string()))),
        };
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let views = view_history(Format::Canonical, &messages).expect("valid input");
        let pinned = pinned_index(&views);
        let rest: Vec<usize> = (0..views.len()).filter(|&i| Some(i) != pinned).collect();
        let mut kept: Vec<usize> = rest[rest.len().saturating_sub(budget)..].to_vec();
        kept.extend(pinned);
        kept.sort_unstable();
        let calls: HashSet<&str> = kept
            .iter()
            .flat_map(|&m| views[m].items.iter())
            .filter(|i| i.kind == ItemKind::Call)
            .map(|i| i.id.as_str())
            .collect();
        let mut out = Vec::new();
        for &m in &kept {
            let gone: Vec<usize> = views[m]
                .items
                .iter()
                .filter(|i| i.kind == ItemKind::Result && !calls.contains(i.id.as_str()))
                .filter_map(|i| i.elem)
                .collect();
            let mut msg = messages[m].clone();
            if let Some(Value::Array(items)) = msg.get_mut("contents") {
                let mut e = 0;
                items.retain(|_| {
                    e += 1;
                    !gone.contains(&(e - 1))
                });
                if items.is_empty() {
                    continue;
                }
            }
            out.push(msg);
        }
        Ok(Ok(Response::Messages(out)))
    }
}

/// The five messages: one question, the same call id `x` twice.
fn reused_id_turn() -> Vec<Value> {
    serde_json::from_value(json!([
        {"role":"user","contents":[{"$type":"text","text":"Run twice."}]},
        {"role":"assistant","contents":[{"$type":"functionCall","callId":"x","name":"lookup","arguments":{"key":"x"}}]},
        {"role":"tool","contents":[{"$type":"functionResult","callId":"x","result":"value for x"}]},
        {"role":"assistant","contents":[{"$type":"functionCall","callId":"x","name":"lookup","arguments":{"key":"x"}}]},
        {"role":"tool","contents":[{"$type":"functionResult","callId":"x","result":"value for x"}]}
    ]))
    .unwrap()
}

fn settings() -> Settings {
    Settings {
        reducer: Reducer::new(Vec::new()),
        format: Format::Canonical,
        policy: Policy::Suffix,
        limits: Limits::default(),
        persistent: true,
        jobs: 1,
        extra_requests: true,
        protocol: Protocol::V1,
        summaries: false,
        declared: Default::default(),
        without: Vec::new(),
        outside: Vec::new(),
        provider: None,
        sessions: None,
    }
}

#[test]
fn the_reused_id_case_alone_fails_no_orphan_result() {
    let mut session = LastNIdFilter { requests: 0 };
    let case = RunCase::with_max_messages("issue-8".into(), json!(3), reused_id_turn());
    let r = run_case(&mut session, &settings(), &case).unwrap();
    let failed: Vec<Clause> = r.failures().map(|v| v.clause).collect();
    assert_eq!(
        failed,
        vec![
            Clause::NoOrphanResult,
            Clause::ValidOutput,
            Clause::MatchesReference
        ]
    );
}

#[test]
fn the_reused_id_case_shrinks_to_four_messages_from_generated_cases() {
    let minimal: Vec<Value> = serde_json::from_value(json!([
        {"role":"assistant","contents":[{"$type":"functionCall","callId":"c1","name":"f"}]},
        {"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":""}]},
        {"role":"assistant","contents":[{"$type":"functionCall","callId":"c1","name":"f"}]},
        {"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":""}]}
    ]))
    .unwrap();
    let config = Config::default();
    let mut seeds = 0;
    for seed in 1..=6u64 {
        // The first case of the seed with at least 10 messages and no call
        // id `x`, then the turn.
        let g = (0..200)
            .map(|n| seeded_case(seed, n, &config))
            .find(|g| {
                g.messages.len() >= 10
                    && !serde_json::to_string(&g.messages)
                        .unwrap()
                        .contains("\"x\"")
            })
            .expect("a long case");
        let mut messages = g.messages.clone();
        messages.extend(reused_id_turn());
        let case = RunCase::with_max_messages(format!("gen/{seed}"), json!(3), messages);
        let mut session = LastNIdFilter { requests: 0 };
        let failing = run_case(&mut session, &settings(), &case).unwrap();
        assert!(failing
            .failures()
            .any(|v| v.clause == Clause::NoOrphanResult));
        let before = session.requests;
        let seen: Mutex<Vec<ShrinkProgress>> = Mutex::new(Vec::new());
        let cx = shrink_in(
            &mut session,
            &settings(),
            &failing,
            Clause::NoOrphanResult,
            &ShrinkLimits::tries(200),
            &|p| seen.lock().unwrap().push(*p),
        )
        .unwrap();
        assert_eq!(*cx.case.messages, minimal, "seed {seed}: {:?}", cx.case);
        assert_eq!(cx.case.budget.max_messages, Some(json!(3)));
        assert!(
            cx.tries <= 200 && !cx.out_of_time,
            "seed {seed}: {} tries",
            cx.tries
        );
        // One request per candidate (no extra requests for this clause),
        // all through the one session.
        assert_eq!(session.requests - before, cx.tries);
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), cx.tries + 1);
        assert_eq!(
            seen.last(),
            Some(&ShrinkProgress {
                clause: Clause::NoOrphanResult,
                tries: cx.tries,
                messages: 4,
                done: true
            })
        );
        assert_eq!(cx.expected, Response::Messages(minimal[2..].to_vec()));
        seeds += 1;
    }
    assert_eq!(seeds, 6);
}

/// A last-N cut in process, counting its requests and the bytes sent.
struct LastN {
    requests: usize,
    bytes: usize,
    /// Asks the kit to stop (as SIGINT does) at this request.
    stop_at: Option<usize>,
}

impl Session for LastN {
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        self.requests += 1;
        self.bytes += request.text().len();
        if self.stop_at == Some(self.requests) {
            reducer_kit::certify::interrupt::request(2);
        }
        let request = request.to_value();
        let budget = Budget::parse(&request["maxMessages"])
            .unwrap()
            .max_messages();
        let messages = request["messages"].as_array().unwrap();
        let kept = messages[messages.len().saturating_sub(budget)..].to_vec();
        Ok(Ok(Response::Messages(kept)))
    }
}

/// `n` messages, user and assistant in turn, texts `0`, `1`…
fn alternating(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            json!({"role": role, "contents": [{"$type": "text", "text": i.to_string()}]})
        })
        .collect()
}

fn turns_settings() -> Settings {
    Settings {
        policy: Policy::Turns,
        extra_requests: false,
        ..settings()
    }
}

/// The long case: 2,000 messages a last-N cut fails (its last 3
/// start inside a turn) shrink to one message in few tries, the requests
/// of all the tries together a few times the case's own, not the case
/// times the tries; a deadline already past leaves the case unshrunk and
/// reported as it failed, with no try.
#[test]
fn a_long_case_shrinks_in_few_tries_and_linear_bytes() {
    let case = RunCase::with_max_messages("long/2000".into(), json!(3), alternating(2_000));
    let mut session = LastN {
        requests: 0,
        bytes: 0,
        stop_at: None,
    };
    let failing = run_case(&mut session, &turns_settings(), &case).unwrap();
    assert!(failing.failures().any(|v| v.clause == Clause::WholeTurns));
    let case_bytes = session.bytes;
    let cx = shrink_in(
        &mut session,
        &turns_settings(),
        &failing,
        Clause::WholeTurns,
        &ShrinkLimits::tries(200),
        &|_| {},
    )
    .unwrap();
    assert!(cx.shrunk && !cx.out_of_time);
    assert_eq!(cx.case.messages.len(), 3, "{:?}", cx.case);
    assert_eq!(session.requests - 1, cx.tries);
    // 78: five halvings to 62 messages, then a turn at a time.
    assert!(cx.tries <= 100, "{} tries", cx.tries);
    let sent = session.bytes - case_bytes;
    assert!(
        sent <= 2 * case_bytes,
        "{sent} bytes sent, the case {case_bytes}"
    );

    let past = ShrinkLimits {
        tries: 200,
        deadline: Some(std::time::Instant::now()),
    };
    let before = session.requests;
    let cx = shrink_in(
        &mut session,
        &turns_settings(),
        &failing,
        Clause::WholeTurns,
        &past,
        &|_| {},
    )
    .unwrap();
    assert_eq!(session.requests, before);
    assert!(cx.out_of_time && !cx.shrunk && cx.tries == 0);
    assert_eq!(*cx.case.messages, alternating(2_000));
}

/// The reference's answer, except for a history with a `system` message
/// after its first message: then nothing (a reducer that knows only a
/// system message at the start).
struct FirstSystemOnly;

impl Session for FirstSystemOnly {
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        let value = request.to_value();
        let messages = value["messages"].as_array().cloned().unwrap_or_default();
        if messages.iter().skip(1).any(|m| m["role"] == "system") {
            return Ok(Ok(Response::Messages(Vec::new())));
        }
        let mut reference = reducer_kit::certify::session::ReferenceSession {
            policy: Policy::Suffix,
            format: Format::Canonical,
            provider: None,
            protocol: Protocol::V1,
        };
        reference.exchange(request)
    }
}

/// Under `--declare system-first-only` (spec §16.6) every candidate stays
/// inside the declared contract: the shrinker never hands back a history
/// whose pinned system message is not first, though such a candidate
/// fails too.
#[test]
fn shrinking_stays_inside_the_declared_contract() {
    let text =
        |role: &str, t: &str| json!({"role": role, "contents": [{"$type": "text", "text": t}]});
    let case = RunCase::with_max_messages(
        "first-system".into(),
        json!(2),
        vec![
            text("system", "be brief"),
            text("user", "q1"),
            text("system", "later"),
            text("user", "q2"),
        ],
    );
    let shrunk = |declare: &str| {
        let settings = Settings {
            declared: reducer_kit::terms::Declared::parse(declare).unwrap(),
            extra_requests: false,
            ..settings()
        };
        let failing = run_case(&mut FirstSystemOnly, &settings, &case).unwrap();
        assert!(failing
            .failures()
            .any(|v| v.clause == Clause::MatchesReference));
        let cx = shrink_in(
            &mut FirstSystemOnly,
            &settings,
            &failing,
            Clause::MatchesReference,
            &ShrinkLimits::tries(100),
            &|_| {},
        )
        .unwrap();
        let roles: Vec<String> = cx
            .case
            .messages
            .iter()
            .map(|m| m["role"].as_str().unwrap().to_string())
            .collect();
        (roles, settings.case_skipped(&cx.case.messages, 1))
    };
    // Without the declaration the smallest failing history is a user
    // message and a system message after it.
    assert_eq!(
        shrunk(""),
        (vec!["user".to_string(), "system".into()], None)
    );
    // With it, that candidate is outside the contract and never returned.
    assert_eq!(
        shrunk("system-first-only"),
        (vec!["system".to_string(), "system".into()], None)
    );
    let declared = Settings {
        declared: reducer_kit::terms::Declared::parse("system-first-only").unwrap(),
        ..settings()
    };
    assert_eq!(
        declared.case_skipped(&[text("user", "q"), text("system", "s")], 1),
        Some(
            "shows pinned-not-first, which --declare system-first-only leaves out (spec §16.6)"
                .into()
        )
    );
}
