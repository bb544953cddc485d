//! The reference repair (policy `repair`, spec §17) keeps its promises on
//! broken histories.
//!
//! The input is a broken history: half the time a generated one broken on
//! purpose ([`Config::for_repair`], spec §17.6) in a wire format drawn
//! from the bytes, half the time a generated canonical one with random
//! damage ([`super::validator_agrees`]: messages dropped, moved or
//! duplicated, ids and roles changed). The reference's repair
//! ([`Reference`] of policy `repair`) must:
//!
//! - pass the validator strictly, whatever the input;
//! - be its own repair (`idempotent`), and a strictly valid input its own
//!   repair;
//! - keep every message that holds anything but calls, results and
//!   approval items, and take nothing else out;
//! - in the canonical format, equal [`naive_repair`], a second,
//!   deliberately plain reading of §17.2 on the raw JSON (role strings,
//!   `$type` tags, lists of open calls searched from the end), written
//!   without looking at `terms/repair.rs`;
//! - pass every clause the checker judges for `repair`
//!   (`check_reducer`), the reference answering the extra requests.

use crate::check::{check_reducer, Request};
use crate::formats::{from_wire, read_history, to_wire, Format};
use crate::generate::{history, Config, GeneratedCase};
use crate::protocol::Response;
use crate::reduce::{self, Reference};
use crate::terms::{Budget, BudgetFields, Declared, Policy};
use crate::validate::{validate_history, Options};
use arbitrary::{Arbitrary, Unstructured};
use serde_json::{json, Value};
use std::fmt;

super::fuzz_input!();

/// A broken history, as [`run`] judges it.
pub struct Sample {
    /// The wire format the history is judged in.
    pub format: Format,
    /// How it was made: `"broken"` (the generator's breaks) or
    /// `"damaged"` (random damage).
    pub how: &'static str,
    /// The generated case (before random damage).
    pub case: GeneratedCase,
    /// The history, canonical.
    pub messages: Vec<Value>,
}

impl fmt::Debug for Sample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "repair_invariants: {} in {} (breaks {:?})",
            self.how,
            self.format,
            self.case
                .breaks
                .iter()
                .map(|b| b.name())
                .collect::<Vec<_>>()
        )?;
        write!(f, "messages: {}", super::json_line(&self.messages))
    }
}

/// Decodes what [`run`] judges: a byte picks broken or damaged, then the
/// format (broken ones), then the case.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn decode(u: &mut Unstructured) -> arbitrary::Result<Sample> {
    if bool::arbitrary(u)? {
        let format = Format::ALL[u.int_in_range(0..=Format::ALL.len() - 1)?];
        let case = history(u, &Config::for_repair(format))?;
        let messages = case.messages.clone();
        Ok(Sample {
            format,
            how: "broken",
            case,
            messages,
        })
    } else {
        let s = super::validator_agrees::decode(u)?;
        Ok(Sample {
            format: Format::Canonical,
            how: "damaged",
            case: s.case,
            messages: s.messages,
        })
    }
}

/// The broken history with its budget, policy `repair`.
///
/// # Errors
///
/// As [`decode`].
pub fn carried(u: &mut Unstructured) -> arbitrary::Result<super::Carried> {
    let s = decode(u)?;
    Ok(super::Carried {
        budget: BudgetFields::messages(Value::from(s.case.budget)),
        messages: s.messages,
        policy: Some(Policy::Repair),
    })
}

/// How many bytes [`decode`] reads of `bytes` (see
/// [`super::trimmed_len`]); `None` when it fails.
pub fn consumed(bytes: &[u8]) -> Option<usize> {
    super::consumed_by(bytes, decode)
}

/// The input: how it was made, its format and breaks, the history.
pub fn describe(bytes: &[u8]) -> String {
    super::describe_decoded("repair_invariants", bytes, decode)
}

/// Checks the promises of the module doc on a decoded input.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
///
/// # Panics
///
/// When a promise is broken, with the input.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let s = decode(u)?;
    check_sample(&s);
    Ok(())
}

/// The promises of the module doc, on `s`.
///
/// # Panics
///
/// When one is broken, with the sample.
pub fn check_sample(s: &Sample) {
    let format = s.format;
    let Ok(wire) = to_wire(format, &s.messages) else {
        // Damage can make a history the format cannot carry; the broken
        // ones always convert.
        assert_eq!(s.how, "damaged", "a broken history converts\n{s:?}");
        return;
    };
    let Ok(h) = read_history(format, &wire) else {
        return;
    };
    // A repair's budget plays no part (spec §17.1).
    let any = Budget::of_messages(1).expect("a budget");
    let repair = Reference::new(Policy::Repair, format);
    let selection = repair
        .reduce(reduce::Input::classified(&wire, &h).budget(&any))
        .expect("a repair never fails");
    let out = selection.messages();
    let oh = read_history(format, &out).unwrap_or_else(|e| panic!("{e}\n{s:?}"));
    let broken = validate_history(&oh, Options::default());
    assert!(broken.is_empty(), "the repair breaks {broken:?}\n{s:?}");
    let again = repair
        .reduce(reduce::Input::history(&oh).budget(&any))
        .expect("a repair never fails");
    assert!(
        again.keeps_all(),
        "the repair is not its own repair: {again:?}\n{s:?}"
    );
    if validate_history(&h, Options::default()).is_empty() {
        assert!(
            selection.keeps_all(),
            "a valid history is not its own repair\n{s:?}"
        );
    }
    for m in 0..h.len() {
        let items = h.items(m);
        let content = items.is_empty()
            || items
                .iter()
                .any(|i| !crate::terms::repair::is_pairing(i.kind));
        let kept = selection.kept().contains(&m);
        let reasoning_gone =
            crate::terms::links::attached_reasoning(&h, m) && !selection.kept().contains(&(m + 1));
        assert!(
            kept || !content || reasoning_gone,
            "input message {m} holds content and is dropped\n{s:?}"
        );
        for &t in selection.removed(m) {
            assert!(
                crate::terms::repair::is_pairing(items[t].kind),
                "message {m} loses item {t}, which a repair keeps\n{s:?}"
            );
        }
    }
    if format == Format::Canonical {
        let naive = naive_repair(&s.messages);
        assert_eq!(
            Value::Array(out.clone()),
            Value::Array(naive.clone()),
            "the repair and the naive repair differ\n{s:?}"
        );
    } else if let Ok(back) = from_wire(format, &out) {
        // The output converts back: it is a history of the format.
        let _ = back;
    }
    let budget = BudgetFields::messages(json!(s.case.budget));
    let req = Request {
        format,
        policy: Policy::Repair,
        budget: &budget,
        messages: &wire,
        summary: None,
        declared: Declared::default(),
        provider: None,
    };
    let reference = Response::Messages(out);
    let verdicts = check_reducer(
        &req,
        |b, m| Response::from(repair.reduce(reduce::Input::new(m).budget_fields(b))),
        Some(reference),
    )
    .unwrap_or_else(|e| panic!("{e}\n{s:?}"));
    for v in verdicts {
        assert!(
            !v.failed(),
            "the reference fails {}: {:?}\n{s:?}",
            v.clause,
            v.outcome
        );
    }
}

/// A role as spec §1.2 reads it.
fn role(m: &Value) -> String {
    m["role"].as_str().unwrap_or("").to_ascii_lowercase()
}

fn contents(m: &Value) -> &[Value] {
    m.get("contents")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// An item's kind, by its `$type`, and its id: `c` call, `r` result, `q`
/// request, `s` response, `-` anything else.
fn kind(item: &Value) -> (char, String) {
    let id = |key: &str| item[key].as_str().unwrap_or("").to_string();
    match item.get("$type").and_then(Value::as_str).unwrap_or("") {
        "functionCall" => ('c', id("callId")),
        "functionResult" => ('r', id("callId")),
        "toolApprovalRequest" => ('q', id("requestId")),
        "toolApprovalResponse" => ('s', id("requestId")),
        "functionApprovalRequest" => ('q', id("id")),
        "functionApprovalResponse" => ('s', id("id")),
        _ => ('-', String::new()),
    }
}

/// Spec §17.2 read plainly, on canonical messages: the repaired history.
pub fn naive_repair(messages: &[Value]) -> Vec<Value> {
    let n = messages.len();
    let pinned = messages
        .iter()
        .position(|m| role(m) == "system" || role(m) == "developer");
    // Every item as (message, position, kind, id), and whether it is left.
    let mut items: Vec<(usize, usize, char, String)> = Vec::new();
    for (m, msg) in messages.iter().enumerate() {
        for (k, item) in contents(msg).iter().enumerate() {
            let (c, id) = kind(item);
            items.push((m, k, c, id));
        }
    }
    // "A call in a message that is not an assistant message and a result
    // in a message that is not a tool message are removed."
    let mut left: Vec<bool> = items
        .iter()
        .map(|(m, _, c, _)| match c {
            'c' => role(&messages[*m]) == "assistant",
            'r' => role(&messages[*m]) == "tool",
            _ => true,
        })
        .collect();
    // "Pairing what is left, every result and approval response that is
    // an orphan is removed." Open calls and requests, searched from the
    // end; the partner of each item, by its position in `items`.
    let mut partner: Vec<Option<usize>> = vec![None; items.len()];
    let mut open: Vec<usize> = Vec::new();
    for m in 0..n {
        let here: Vec<usize> = (0..items.len())
            .filter(|&i| items[i].0 == m && left[i])
            .collect();
        for &i in &here {
            let want = match items[i].2 {
                'r' => 'c',
                's' => 'q',
                _ => continue,
            };
            if let Some(p) = open
                .iter()
                .rposition(|&o| items[o].2 == want && items[o].3 == items[i].3)
            {
                let o = open.remove(p);
                partner[i] = Some(o);
                partner[o] = Some(i);
            }
        }
        for &i in &here {
            if matches!(items[i].2, 'c' | 'q') {
                open.push(i);
            }
        }
    }
    for i in 0..items.len() {
        if matches!(items[i].2, 'r' | 's') && partner[i].is_none() {
            left[i] = false;
        }
    }
    // "A message that loses every item is left out."
    let present: Vec<bool> = (0..n)
        .map(|m| {
            let mine: Vec<usize> = (0..items.len()).filter(|&i| items[i].0 == m).collect();
            mine.is_empty() || mine.iter().any(|&i| left[i])
        })
        .collect();
    let mut keep: Vec<bool> = (0..items.len())
        .map(|i| left[i] && items[i].2 == '-')
        .collect();
    // "A call is kept when its partner result is in its unit's answer run
    // [the tool messages right after it] and no call of the unit kept
    // before it has its id."
    for m in 0..n {
        if !present[m] || role(&messages[m]) != "assistant" {
            continue;
        }
        let mut run = Vec::new();
        for j in m + 1..n {
            if !present[j] {
                continue;
            }
            if role(&messages[j]) != "tool" {
                break;
            }
            run.push(j);
        }
        let mut ids: Vec<String> = Vec::new();
        for i in 0..items.len() {
            if items[i].0 != m || items[i].2 != 'c' || !left[i] {
                continue;
            }
            if let Some(p) = partner[i] {
                if run.contains(&items[p].0) && !ids.contains(&items[i].3) {
                    ids.push(items[i].3.clone());
                    keep[i] = true;
                    keep[p] = true;
                }
            }
        }
    }
    // "An approval request is kept when its partner response comes before
    // the next turn start after it (the response's own message not being
    // one), and no request kept before it with its id is still waiting at
    // it", turn starts read on what is left.
    let turn_start = |j: usize| {
        if !present[j] || role(&messages[j]) != "user" || Some(j) == pinned {
            return false;
        }
        let mine: Vec<usize> = (0..items.len())
            .filter(|&i| items[i].0 == j && left[i])
            .collect();
        contents(&messages[j]).is_empty() || mine.iter().any(|&i| items[i].2 != 's')
    };
    for i in 0..items.len() {
        if items[i].2 != 'q' || !left[i] {
            continue;
        }
        if let Some(p) = partner[i] {
            let waiting = (0..i).any(|j| {
                items[j].2 == 'q'
                    && keep[j]
                    && items[j].3 == items[i].3
                    && partner[j].is_some_and(|r| items[r].0 > items[i].0)
            });
            if !waiting && !(items[i].0 + 1..=items[p].0).any(turn_start) {
                keep[i] = true;
                keep[p] = true;
            }
        }
    }
    // The messages with an item kept, or none to begin with.
    let mut out = Vec::new();
    for (m, msg) in messages.iter().enumerate() {
        let mine: Vec<usize> = (0..items.len()).filter(|&i| items[i].0 == m).collect();
        if mine.is_empty() {
            out.push(msg.clone());
            continue;
        }
        if !mine.iter().any(|&i| keep[i]) {
            continue;
        }
        let mut msg = msg.clone();
        if let Some(Value::Array(arr)) = msg.get_mut("contents") {
            let mut k = 0;
            arr.retain(|_| {
                let i = mine[k];
                k += 1;
                keep[i]
            });
        }
        out.push(msg);
    }
    out
}
