//! The validator agrees with a naive oracle on damaged histories.
//!
//! A generated history (under [`Config::everything`]) gets 0 to 4 random
//! damages: a message dropped, moved or duplicated, a call / result /
//! request / response id changed (to another id of the history or a new
//! one), a role changed. Then `validate(..).is_empty()` must equal
//! [`naive_valid`], a second, deliberately plain reading of spec §5
//! that works on the raw JSON with sets, the way the seed document's
//! `ValidPairs` does, extended to approvals, roles and pending tails.

use crate::formats::{view_history, Format};
use crate::generate::{history, Config, GeneratedCase};
use crate::validate::{validate, Options};
use arbitrary::{Arbitrary, Unstructured};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::fmt;

super::fuzz_input!();

/// One damage done to a history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Damage {
    /// Message `0` removed.
    Drop(usize),
    /// Message `from` removed and inserted at `to` (an index after removal).
    Move {
        /// Where it was.
        from: usize,
        /// Where it goes.
        to: usize,
    },
    /// A copy of message `from` inserted at `to`.
    Duplicate {
        /// The message copied.
        from: usize,
        /// Where the copy goes.
        to: usize,
    },
    /// The id of content `item` of message `message` set to `id`.
    ChangeId {
        /// Message index.
        message: usize,
        /// Content index.
        item: usize,
        /// The new id.
        id: String,
    },
    /// The role of message `message` set to `role`.
    ChangeRole {
        /// Message index.
        message: usize,
        /// The new role.
        role: String,
    },
}

/// A generated case and the damages done to it.
pub struct Scenario {
    /// The case as generated.
    pub case: GeneratedCase,
    /// The damages, in the order done.
    pub damages: Vec<Damage>,
    /// The damaged history.
    pub messages: Vec<Value>,
}

impl fmt::Debug for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "validator_agrees: allowPending {}",
            self.case.allow_pending
        )?;
        writeln!(f, "generated: {}", super::json_line(&self.case.messages))?;
        writeln!(f, "damages: {:?}", self.damages)?;
        write!(f, "damaged: {}", super::json_line(&self.messages))
    }
}

/// The member holding the id of a content item, by its `$type`.
fn id_key(item: &Value) -> Option<&'static str> {
    match item.get("$type")?.as_str()? {
        "functionCall" | "functionResult" => Some("callId"),
        "toolApprovalRequest" | "toolApprovalResponse" => Some("requestId"),
        "functionApprovalRequest" | "functionApprovalResponse" => Some("id"),
        _ => None,
    }
}

fn contents(m: &Value) -> &[Value] {
    m.get("contents")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Decodes the scenario [`run`] checks: a generated case and its damages.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn decode(u: &mut Unstructured) -> arbitrary::Result<Scenario> {
    let case = history(u, &Config::everything())?;
    let mut messages = case.messages.clone();
    let mut damages = Vec::new();
    for _ in 0..u.int_in_range(0..=4u8)? {
        if messages.is_empty() {
            break;
        }
        let n = messages.len();
        let d = match u.int_in_range(0..=4u8)? {
            0 => Damage::Drop(u.int_in_range(0..=n - 1)?),
            1 => Damage::Move {
                from: u.int_in_range(0..=n - 1)?,
                to: u.int_in_range(0..=n - 1)?,
            },
            2 => Damage::Duplicate {
                from: u.int_in_range(0..=n - 1)?,
                to: u.int_in_range(0..=n)?,
            },
            3 => {
                let spots: Vec<(usize, usize)> = messages
                    .iter()
                    .enumerate()
                    .flat_map(|(m, msg)| {
                        contents(msg)
                            .iter()
                            .enumerate()
                            .filter(|(_, c)| id_key(c).is_some())
                            .map(move |(k, _)| (m, k))
                    })
                    .collect();
                if spots.is_empty() {
                    continue;
                }
                let (message, item) = spots[u.int_in_range(0..=spots.len() - 1)?];
                let (om, ok) = spots[u.int_in_range(0..=spots.len() - 1)?];
                let other = &contents(&messages[om])[ok];
                let id = if bool::arbitrary(u)? {
                    other[id_key(other).expect("a spot has an id")]
                        .as_str()
                        .unwrap_or("x")
                        .to_string()
                } else {
                    "fresh-id".to_string()
                };
                Damage::ChangeId { message, item, id }
            }
            _ => {
                let roles = [
                    "user",
                    "assistant",
                    "tool",
                    "system",
                    "Tool",
                    "developer",
                    "critic",
                ];
                Damage::ChangeRole {
                    message: u.int_in_range(0..=n - 1)?,
                    role: roles[u.int_in_range(0..=roles.len() - 1)?].to_string(),
                }
            }
        };
        apply(&mut messages, &d);
        damages.push(d);
    }
    Ok(Scenario {
        case,
        damages,
        messages,
    })
}

fn apply(messages: &mut Vec<Value>, d: &Damage) {
    match d {
        Damage::Drop(i) => {
            messages.remove(*i);
        }
        Damage::Move { from, to } => {
            let m = messages.remove(*from);
            messages.insert((*to).min(messages.len()), m);
        }
        Damage::Duplicate { from, to } => {
            let m = messages[*from].clone();
            messages.insert(*to, m);
        }
        Damage::ChangeId { message, item, id } => {
            let c = &mut messages[*message]["contents"][*item];
            let key = id_key(c).expect("damaged items have ids");
            c[key] = Value::String(id.clone());
        }
        Damage::ChangeRole { message, role } => {
            messages[*message]["role"] = Value::String(role.clone());
        }
    }
}

/// The damaged history, with the generated case's budget.
///
/// # Errors
///
/// As [`decode`].
pub fn carried(u: &mut Unstructured) -> arbitrary::Result<super::Carried> {
    let s = decode(u)?;
    Ok(super::Carried {
        budget: crate::terms::BudgetFields::messages(serde_json::Value::from(s.case.budget)),
        messages: s.messages,
        policy: None,
    })
}

/// Damages a generated history and compares the validator with
/// [`naive_valid`].
///
/// # Errors
///
/// Never in practice (the generator does not fail).
///
/// # Panics
///
/// When they disagree, with the scenario and the validator's report.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let s = decode(u)?;
    let views =
        view_history(Format::Canonical, &s.messages).expect("damage keeps messages readable");
    let report = validate(
        &views,
        Options {
            allow_pending: s.case.allow_pending,
        },
    );
    let naive = naive_valid(&s.messages, s.case.allow_pending);
    assert_eq!(
        report.is_empty(),
        naive,
        "validator says {report:?}, naive oracle says valid = {naive}\n{s:?}"
    );
    if s.damages.is_empty() {
        assert!(naive, "an undamaged generated history is invalid\n{s:?}");
    }
    Ok(())
}

/// How many bytes [`decode`] reads of `bytes` (see
/// [`super::trimmed_len`]); `None` when it fails.
pub fn consumed(bytes: &[u8]) -> Option<usize> {
    super::consumed_by(bytes, decode)
}

/// The scenario: generated history, damages, damaged history.
pub fn describe(bytes: &[u8]) -> String {
    super::describe_decoded("validator_agrees", bytes, decode)
}

/// Semantics §5 read plainly, on canonical JSON: walk the messages; a
/// non-`tool` message while calls are pending, a turn start while requests
/// are pending, a result outside a `tool` message or without a pending call
/// of its id in an earlier message, a response without a pending request, a
/// call outside an `assistant` message or with the id of a pending call, a
/// request with the id of a pending request: invalid. At the end, what is still pending must be allowed
/// (`allow_pending`, made at or after the newest turn start).
pub fn naive_valid(messages: &[Value], allow_pending: bool) -> bool {
    #[derive(PartialEq)]
    enum Kind {
        Call,
        Result,
        Request,
        Response,
        Other,
    }
    let kind = |c: &Value| match c.get("$type").and_then(Value::as_str).unwrap_or("") {
        "functionCall" => Kind::Call,
        "functionResult" => Kind::Result,
        "toolApprovalRequest" | "functionApprovalRequest" => Kind::Request,
        "toolApprovalResponse" | "functionApprovalResponse" => Kind::Response,
        _ => Kind::Other,
    };
    let role = |m: &Value| m["role"].as_str().unwrap_or("").to_ascii_lowercase();
    let id = |c: &Value| {
        id_key(c)
            .and_then(|k| c[k].as_str())
            .unwrap_or("")
            .to_string()
    };
    let approval_only = |m: &Value| {
        !contents(m).is_empty() && contents(m).iter().all(|c| kind(c) == Kind::Response)
    };
    let pinned = messages
        .iter()
        .position(|m| matches!(role(m).as_str(), "system" | "developer"));
    let turn_start =
        |i: usize, m: &Value| Some(i) != pinned && role(m) == "user" && !approval_only(m);
    let newest_turn = (0..messages.len())
        .rev()
        .find(|&i| turn_start(i, &messages[i]))
        .unwrap_or(0);
    // Pending calls: id -> message that made it (ids are unique while pending).
    let mut calls: HashMap<String, usize> = HashMap::new();
    // Pending requests: id -> messages that made them (at most one each
    // when valid).
    let mut requests: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, m) in messages.iter().enumerate() {
        let r = role(m);
        if r != "tool" && !calls.is_empty() {
            return false;
        }
        if turn_start(i, m) && requests.values().any(|v| !v.is_empty()) {
            return false;
        }
        // Calls and requests made here are pending only after this message.
        let mut made_calls: HashSet<String> = HashSet::new();
        let mut made_requests: Vec<String> = Vec::new();
        for c in contents(m) {
            let ok = match kind(c) {
                Kind::Result => r == "tool" && calls.remove(&id(c)).is_some(),
                Kind::Response => requests.get_mut(&id(c)).and_then(Vec::pop).is_some(),
                Kind::Call => {
                    r == "assistant" && !calls.contains_key(&id(c)) && made_calls.insert(id(c))
                }
                Kind::Request => {
                    made_requests.push(id(c));
                    true
                }
                Kind::Other => true,
            };
            if !ok {
                return false;
            }
        }
        for c in made_calls {
            calls.insert(c, i);
        }
        // A request id names one pending request (after this message's
        // responses answered theirs).
        for (n, q) in made_requests.iter().enumerate() {
            if made_requests[..n].contains(q) || requests.get(q).is_some_and(|v| !v.is_empty()) {
                return false;
            }
        }
        for q in made_requests {
            requests.entry(q).or_default().push(i);
        }
    }
    let allowed = |i: &usize| allow_pending && *i >= newest_turn;
    calls.values().all(allowed) && requests.values().flatten().all(allowed)
}
