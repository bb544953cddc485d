use super::*;
use serde_json::json;

fn four_with_a_tool_group() -> QuickCase {
    QuickCase {
        messages: serde_json::from_value(json!([
            {"role": "user", "contents": [{"$type": "text", "text": "q"}]},
            {"role": "assistant", "contents": [
                {"$type": "text", "text": "t"},
                {"$type": "functionCall", "callId": "a", "name": "F"},
                {"$type": "functionCall", "callId": "b", "name": "F"}]},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "b", "result": "1"}]},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "a", "result": "2"}]}
        ]))
        .unwrap(),
        budget: 4,
        allow_pending: false,
        costs: None,
    }
}

#[test]
fn tool_group_goes_with_all_its_results() {
    let c = four_with_a_tool_group();
    let cands = c.shrink_candidates();
    let without_group = json!([
        {"role": "user", "contents": [{"$type": "text", "text": "q"}]},
        {"role": "assistant", "contents": [{"$type": "text", "text": "t"}]}
    ]);
    assert!(cands
        .iter()
        .any(|k| Value::Array(k.messages.clone()) == without_group && k.budget == 4));
    // Dropping one tool message alone would orphan a call: never offered.
    for lone in [2, 3] {
        let mut orphaned = c.messages.clone();
        orphaned.remove(lone);
        assert!(cands.iter().all(|k| k.messages != orphaned));
    }
    assert!(cands.iter().any(|k| k.messages == c.messages[1..]));
    assert!(cands.iter().any(|k| k.budget == 2) && cands.iter().any(|k| k.budget == 1));
    assert!(cands.iter().all(QuickCase::is_valid));

    // With a token budget every candidate keeps one cost per message.
    let t = QuickCase {
        costs: Some(Costs {
            tokens: vec![2, 1, 30, 40],
            max_tokens: 50,
            count_pinned: false,
            summary_tokens: 1,
        }),
        ..c
    };
    let cands = t.shrink_candidates();
    for k in &cands {
        assert_eq!(
            k.costs.as_ref().unwrap().tokens.len(),
            k.messages.len(),
            "{k:?}"
        );
    }
    let without_group = cands
        .iter()
        .find(|k| Value::Array(k.messages.clone()) == without_group)
        .unwrap();
    assert_eq!(without_group.costs.as_ref().unwrap().tokens, vec![2, 1]);
    let limits: Vec<u64> = cands
        .iter()
        .filter(|k| k.messages == t.messages)
        .map(|k| k.costs.as_ref().unwrap().max_tokens)
        .collect();
    assert_eq!(limits, vec![1, 25, 49, 50]);
    assert!(cands
        .iter()
        .any(|k| k.costs.as_ref().unwrap().tokens == vec![2, 1, 30, 20]));
}

/// `n` messages, user and assistant in turn, texts `0`, `1`…
fn alternating(n: usize, budget: usize) -> QuickCase {
    QuickCase {
        messages: (0..n)
            .map(|i| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                json!({"role": role, "contents": [{"$type": "text", "text": i.to_string()}]})
            })
            .collect(),
        budget,
        allow_pending: false,
        costs: None,
    }
}

/// What a last-N reducer does wrong: the last `budget` messages start
/// with an assistant message, inside a turn.
fn last_n_cuts_a_turn(c: &QuickCase) -> bool {
    let from = c.messages.len().saturating_sub(c.budget);
    c.messages
        .get(from)
        .is_some_and(|m| m["role"] == "assistant")
}

/// A long case shrinks in few tries, and the tries together carry a few
/// times the case's messages, not the case's size times its tries: the
/// halves go first and each success halves what is left.
#[test]
fn a_long_case_shrinks_by_halves_in_linear_work() {
    for (n, budget) in [(2_000, 3), (2_000, 999), (20_000, 3)] {
        let (mut tries, mut carried, mut asked) = (0usize, 0usize, 0usize);
        let small = alternating(n, budget).minimize_within(
            Keep::Valid,
            &mut || {
                asked += 1;
                false
            },
            &mut |c: &mut QuickCase| {
                tries += 1;
                carried += c.messages.len();
                last_n_cuts_a_turn(c)
            },
        );
        assert!(last_n_cuts_a_turn(&small), "{small:?}");
        assert_eq!(
            (small.messages.len(), small.budget),
            (1, 1),
            "{n}: {small:?}"
        );
        assert_eq!(small.messages[0]["role"], "assistant");
        // 2,000 messages: 45 and 49 tries carrying 2,872 and 3,866
        // messages; 20,000: 37 tries, 20,306 messages.
        assert!(tries <= 64, "{n}/{budget}: {tries} tries");
        assert!(carried <= 2 * n, "{n}/{budget}: {carried} messages carried");
        assert!(asked <= tries + 16, "{n}/{budget}: {asked} candidates");
    }
}

/// `stop` ends the shrink before the next candidate, with the smallest
/// failing case found; a case whose candidates all pass comes back as it
/// was (every moved message put back).
#[test]
fn stop_ends_the_shrink_within_one_candidate() {
    let start = alternating(2_000, 3);
    let mut tries = 0;
    let mut asked = 0;
    let small = start.clone().minimize_within(
        Keep::Valid,
        &mut || {
            asked += 1;
            asked > 3
        },
        &mut |c: &mut QuickCase| {
            tries += 1;
            last_n_cuts_a_turn(c)
        },
    );
    assert_eq!((asked, tries), (4, 3));
    // Each try, the older half dropped, failed: 1,000, 500, then 250
    // messages are left.
    assert_eq!(small.messages.len(), 250);
    assert_eq!(small.messages[0], start.messages[1_750]);

    let start = alternating(200, 3);
    let mut tries = 0;
    let same = start
        .clone()
        .minimize_within(Keep::Valid, &mut || false, &mut |c| {
            tries += 1;
            // Take the messages for the call, as certify does, and give them
            // back.
            let taken = std::mem::take(&mut c.messages);
            c.messages = taken;
            false
        });
    assert!(same == start);
    assert!(tries > 100, "{tries}");
}
