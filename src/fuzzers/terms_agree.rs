//! The terms of spec §2 agree with a naive restatement.
//!
//! The reference reducers, the validator, the checker and the generator all
//! stand on [`pinned_index`], [`turns()`] and [`pair`]
//! ([`crate::terms::turns`](mod@crate::terms::turns)), so a bug there would hit a reducer and its
//! judge alike and no other target could see it. This one holds them
//! against [`naive_pinned`], [`naive_turns`] and [`naive_pairs`]: a second,
//! deliberately plain reading of the text of §2 that works on the raw
//! canonical JSON (lowercased role strings, `$type` tags, a list of open
//! calls searched from the end), written without looking at
//! `terms/turns.rs`.
//!
//! The history is a generated one (under [`crate::generate::Config::everything`])
//! with 0 to 4 random damages, as [`super::validator_agrees`] makes them
//! (messages dropped, moved, duplicated; ids and roles changed), so that
//! ids repeat, results lose their calls, and roles become `system`,
//! `developer`, `Tool` or unknown. Pairing is compared over the whole
//! history and over a selection of its messages drawn from the remaining
//! bytes.

use super::validator_agrees::{self, Scenario};
use crate::formats::{view_history, Format};
use crate::terms::{pair, pinned_index, turns};
use arbitrary::{Arbitrary, Unstructured};
use serde_json::Value;
use std::fmt;

super::fuzz_input!();

/// A damaged history and a selection of its messages.
pub struct Sample {
    /// The history, as generated and damaged.
    pub scenario: Scenario,
    /// Ascending message indices to pair over (besides the whole history).
    pub selection: Vec<usize>,
}

impl fmt::Debug for Sample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "terms_agree: selection {:?}", self.selection)?;
        write!(f, "{:?}", self.scenario)
    }
}

/// Decodes what [`run`] checks: a damaged history (as
/// [`validator_agrees::decode`]) and a selection (one bit per message).
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn decode(u: &mut Unstructured) -> arbitrary::Result<Sample> {
    let scenario = validator_agrees::decode(u)?;
    let mut selection = Vec::new();
    for i in 0..scenario.messages.len() {
        if bool::arbitrary(u)? {
            selection.push(i);
        }
    }
    Ok(Sample {
        scenario,
        selection,
    })
}

/// The damaged history, with the generated case's budget.
///
/// # Errors
///
/// As [`decode`].
pub fn carried(u: &mut Unstructured) -> arbitrary::Result<super::Carried> {
    validator_agrees::carried(u)
}

/// Compares the terms with the naive restatement on a decoded input.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
///
/// # Panics
///
/// When they disagree, with the input.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let input = decode(u)?;
    let messages = &input.scenario.messages;
    let views = view_history(Format::Canonical, messages).expect("damage keeps messages readable");
    assert_eq!(
        pinned_index(&views),
        naive_pinned(messages),
        "pinned_index disagrees\n{input:?}"
    );
    let got: Vec<(Vec<usize>, bool)> = turns(&views)
        .into_iter()
        .map(|t| (t.messages, t.has_question))
        .collect();
    assert_eq!(got, naive_turns(messages), "turns disagree\n{input:?}");
    let everything: Vec<usize> = (0..messages.len()).collect();
    for selection in [&everything, &input.selection] {
        assert_eq!(
            pair(&views, selection),
            naive_pairs(messages, selection),
            "pair disagrees over {selection:?}\n{input:?}"
        );
    }
    Ok(())
}

/// How many bytes [`decode`] reads of `bytes` (see
/// [`super::trimmed_len`]); `None` when it fails.
pub fn consumed(bytes: &[u8]) -> Option<usize> {
    super::consumed_by(bytes, decode)
}

/// The input: selection, generated history, damages, damaged history.
pub fn describe(bytes: &[u8]) -> String {
    super::describe_decoded("terms_agree", bytes, decode)
}

/// A role as §1.2 reads it: ASCII case does not matter.
fn role(m: &Value) -> String {
    m["role"].as_str().unwrap_or("").to_ascii_lowercase()
}

/// The elements of a message's `contents` (none when it has no array).
fn contents(m: &Value) -> &[Value] {
    m.get("contents")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn tag(item: &Value) -> &str {
    item.get("$type").and_then(Value::as_str).unwrap_or("")
}

/// "The earliest message of the history whose role is a system role
/// (`system` or `developer`)."
pub fn naive_pinned(messages: &[Value]) -> Option<usize> {
    messages
        .iter()
        .position(|m| role(m) == "system" || role(m) == "developer")
}

/// "A `user` message with one item or more, all of them approval
/// responses."
fn approval_only(m: &Value) -> bool {
    let items = contents(m);
    role(m) == "user"
        && !items.is_empty()
        && items
            .iter()
            .all(|i| matches!(tag(i), "toolApprovalResponse" | "functionApprovalResponse"))
}

/// "M cut into consecutive runs, a new run beginning at every turn start"
/// (a `user` message that is not approval-only), M being every message but
/// the pinned one; a run before the first turn start is the leading
/// segment, a turn with no question. Each turn as (its messages, whether
/// it has a question).
pub fn naive_turns(messages: &[Value]) -> Vec<(Vec<usize>, bool)> {
    let pinned = naive_pinned(messages);
    let mut out: Vec<(Vec<usize>, bool)> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if Some(i) == pinned {
            continue;
        }
        let start = role(m) == "user" && !approval_only(m);
        match out.last_mut() {
            Some(turn) if !start => turn.0.push(i),
            _ => out.push((vec![i], start)),
        }
    }
    out
}

/// What an item opens or answers in pairing, and under which id.
enum Part {
    Call(String),
    Result(String),
    Request(String),
    Response(String),
    None,
}

fn part(item: &Value) -> Part {
    let id = |key: &str| item[key].as_str().unwrap_or("").to_string();
    match tag(item) {
        "functionCall" => Part::Call(id("callId")),
        "functionResult" => Part::Result(id("callId")),
        "toolApprovalRequest" => Part::Request(id("requestId")),
        "toolApprovalResponse" => Part::Response(id("requestId")),
        "functionApprovalRequest" => Part::Request(id("id")),
        "functionApprovalResponse" => Part::Response(id("id")),
        _ => Part::None,
    }
}

/// Pairing over the messages at `selection`: "Walk the sequence in order.
/// At each message, first match each of its results to the most recent
/// call with the same id that appears in an earlier message of the
/// sequence and is still unmatched (responses likewise to requests); then
/// register the message's own calls and requests as unmatched." For every
/// message and item, its partner's (message, item).
pub fn naive_pairs(messages: &[Value], selection: &[usize]) -> Vec<Vec<Option<(usize, usize)>>> {
    let mut partner: Vec<Vec<Option<(usize, usize)>>> = messages
        .iter()
        .map(|m| vec![None; contents(m).len()])
        .collect();
    // Unmatched calls and requests, oldest first: (message, item, id).
    let mut calls: Vec<(usize, usize, String)> = Vec::new();
    let mut requests: Vec<(usize, usize, String)> = Vec::new();
    for &m in selection {
        for (k, item) in contents(&messages[m]).iter().enumerate() {
            let (open, id) = match part(item) {
                Part::Result(id) => (&mut calls, id),
                Part::Response(id) => (&mut requests, id),
                _ => continue,
            };
            if let Some(p) = open.iter().rposition(|(_, _, o)| *o == id) {
                let (cm, ck, _) = open.remove(p);
                partner[m][k] = Some((cm, ck));
                partner[cm][ck] = Some((m, k));
            }
        }
        for (k, item) in contents(&messages[m]).iter().enumerate() {
            match part(item) {
                Part::Call(id) => calls.push((m, k, id)),
                Part::Request(id) => requests.push((m, k, id)),
                _ => {}
            }
        }
    }
    partner
}
