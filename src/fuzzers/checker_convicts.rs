//! The checker convicts wrong outputs.
//!
//! On a generated case (costs knob on: about half have a token budget,
//! spec §11), a drawn policy and maybe summaries allowed (spec §12),
//! the reference output gets one random [`Mutation`]. When the mutated
//! response differs from the reference, [`check`](crate::check::check)
//! must give at least one failing verdict; mutations that break a safety
//! clause by construction must fail that clause: the whole input when it
//! costs more than the budget fails `budget`, an altered text fails
//! `no-fabrication`, a dropped pinned system message fails
//! `system-pinned` (unless a later system
//! message equal to it is then the output's first system message), one
//! more older message that takes the output over budget fails `budget`, a
//! summary after a kept message or holding a call fails `summary-shape`
//! (`no-fabrication` without summaries), two summaries fail
//! `no-fabrication`, a summary that swallows a call whose result stays
//! fails `no-orphan-result`, and an answer to an unsatisfiable budget fails
//! `rejects-bad-budget`.

use crate::check::{check_classified, Extras, Outcome, Request, Verdict};
use crate::formats::{view_history, Format};
use crate::generate::GeneratedCase;
use crate::json::json_eq;
use crate::protocol::Response;
use crate::reduce::{self, Reference};
use crate::terms::{pair, pinned_index, Budget, Clause, History, ItemKind, Policy};
use arbitrary::Unstructured;
use serde_json::Value;
use std::fmt;

super::fuzz_input!();

/// A change to the reference output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// Output message `0` removed.
    Drop(usize),
    /// A copy of output message `from` inserted at `to`.
    Duplicate {
        /// The message copied.
        from: usize,
        /// Where the copy goes.
        to: usize,
    },
    /// Output messages `0` and `1` swapped.
    Swap(usize, usize),
    /// A marker appended to the first text of output message `0`.
    AlterText(usize),
    /// Input message `from` inserted at output position `to`.
    InsertInput {
        /// The input message.
        from: usize,
        /// Where it goes in the output.
        to: usize,
    },
    /// The output replaced by the whole input.
    WholeInput,
    /// The output replaced by nothing.
    Empty,
    /// The output's pinned system message removed.
    DropPinned,
    /// The output's first call removed (its message dropped when left
    /// empty), its result kept.
    DropFirstCall,
    /// An error response instead of the output.
    Error,
    /// The input message just older than the output's oldest message of M
    /// added in its place (a selection one message past the budget).
    OneOlder,
    /// A summary (a text message) inserted after output message `0`, a
    /// message of M.
    SummaryInTheMiddle(usize),
    /// Two summaries inserted right after the pinned system message (or
    /// first).
    TwoSummaries,
    /// A summary carrying a call item, right after the pinned message.
    SummaryWithACall,
    /// A summary in place of everything up to the first output message
    /// whose call is answered later in the output, that message included:
    /// its results stay, orphaned.
    SummaryAcrossAGroup,
}

/// A case, its policy, the mutation and the mutated response.
pub struct Scenario {
    /// The generated case.
    pub case: GeneratedCase,
    /// The policy judged.
    pub policy: Policy,
    /// Whether summaries are allowed, and what one costs.
    pub summary: Option<u64>,
    /// The mutation applied to the reference output.
    pub mutation: Mutation,
    /// The input's pinned system message (its first system message), as
    /// the reference reducer read it.
    pub pinned: Option<usize>,
    /// The input, read in the canonical format once (by the generator):
    /// what the reference reducer and the checker judge.
    pub history: History,
    /// The reference output.
    pub reference: Vec<Value>,
    /// The response judged.
    pub response: Response,
}

impl fmt::Debug for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "checker_convicts: mutation {:?}", self.mutation)?;
        writeln!(
            f,
            "case: {}",
            super::case_line_with(&self.case, self.policy, self.summary)
        )?;
        write!(f, "response: {}", self.response.to_json())
    }
}

const MARKER: &str = "\u{1}mutated";

/// Decodes the scenario [`run`] checks: a case, a mutation, the response.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn decode(u: &mut Unstructured) -> arbitrary::Result<Scenario> {
    let (case, history, policy, summary) = super::case_policy_summary_read(u)?;
    // What the reference does with the case's budget members, on the
    // generator's reading, kept for `pinned` and the checker.
    let budget = Budget::read(&case.budget_fields(), case.messages.len())
        .expect("generated budgets are budgets");
    let pinned = history.pinned();
    let reference = Reference::new(policy, Format::Canonical)
        .reduce(reduce::Input::classified(&case.messages, &history).budget(&budget))
        .map(|s| s.messages());
    let Ok(reference) = reference else {
        // An unsatisfiable token budget: any answer with messages is wrong.
        return Ok(Scenario {
            response: Response::Messages(case.messages.clone()),
            case,
            policy,
            summary,
            mutation: Mutation::WholeInput,
            pinned,
            history,
            reference: Vec::new(),
        });
    };
    let n = reference.len();
    let pick = |u: &mut Unstructured, len: usize| -> arbitrary::Result<usize> {
        if len == 0 {
            Ok(0)
        } else {
            u.int_in_range(0..=len - 1)
        }
    };
    let mutation = match u.int_in_range(0..=14u8)? {
        0 if n > 0 => Mutation::Drop(pick(u, n)?),
        1 if n > 0 => Mutation::Duplicate {
            from: pick(u, n)?,
            to: pick(u, n + 1)?,
        },
        2 if n > 1 => Mutation::Swap(pick(u, n)?, pick(u, n)?),
        3 if n > 0 => Mutation::AlterText(pick(u, n)?),
        4 if !case.messages.is_empty() => Mutation::InsertInput {
            from: pick(u, case.messages.len())?,
            to: pick(u, n + 1)?,
        },
        5 => Mutation::WholeInput,
        6 => Mutation::Empty,
        7 => Mutation::DropPinned,
        8 => Mutation::DropFirstCall,
        10 => Mutation::OneOlder,
        11 => {
            let non_pinned = first_non_pinned(&reference);
            match non_pinned {
                Some(k) => Mutation::SummaryInTheMiddle(k),
                None => Mutation::TwoSummaries,
            }
        }
        12 => Mutation::TwoSummaries,
        13 => Mutation::SummaryWithACall,
        14 => Mutation::SummaryAcrossAGroup,
        _ => Mutation::Error,
    };
    // The output to change is a copy of the reference, but for the
    // mutations that replace it whole.
    let response = match &mutation {
        Mutation::Error => Response::Error("mutated".into()),
        Mutation::WholeInput => Response::Messages(case.messages.clone()),
        Mutation::Empty => Response::Messages(Vec::new()),
        m => {
            let mut out = reference.clone();
            apply(&mut out, m, &case.messages);
            Response::Messages(out)
        }
    };
    Ok(Scenario {
        case,
        policy,
        summary,
        mutation,
        pinned,
        history,
        reference,
        response,
    })
}

/// The output position of its first message that is not the first system
/// message.
fn first_non_pinned(out: &[Value]) -> Option<usize> {
    let views = view_history(Format::Canonical, out).ok()?;
    let pinned = pinned_index(&views);
    (0..out.len()).find(|&k| Some(k) != pinned)
}

/// A summary message: one text item.
fn summary_message(text: &str) -> Value {
    serde_json::json!({"role": "assistant", "contents": [{"$type": "text", "text": format!("{MARKER} summary {text}")}]})
}

/// Where a summary goes: right after the output's pinned system message
/// when it is first, else first.
fn after_pinned(out: &[Value]) -> usize {
    match view_history(Format::Canonical, out)
        .ok()
        .and_then(|v| pinned_index(&v))
    {
        Some(0) => 1,
        _ => 0,
    }
}

fn apply(out: &mut Vec<Value>, m: &Mutation, input: &[Value]) {
    match m {
        Mutation::Drop(i) => {
            out.remove(*i);
        }
        Mutation::Duplicate { from, to } => {
            let c = out[*from].clone();
            out.insert(*to, c);
        }
        Mutation::Swap(a, b) => out.swap(*a, *b),
        Mutation::AlterText(i) => {
            let msg = &mut out[*i];
            let text = msg["contents"]
                .as_array_mut()
                .and_then(|c| c.iter_mut().find(|c| c["text"].is_string()));
            match text {
                Some(t) => {
                    let s = format!("{}{MARKER}", t["text"].as_str().unwrap_or(""));
                    t["text"] = Value::String(s);
                }
                None => {
                    msg["authorName"] = Value::String(MARKER.into());
                }
            }
        }
        Mutation::InsertInput { from, to } => out.insert(*to, input[*from].clone()),
        Mutation::WholeInput => *out = input.to_vec(),
        Mutation::Empty => out.clear(),
        Mutation::DropPinned => {
            if let Ok(views) = view_history(Format::Canonical, out) {
                if let Some(p) = pinned_index(&views) {
                    out.remove(p);
                }
            }
        }
        Mutation::DropFirstCall => {
            let Ok(views) = view_history(Format::Canonical, out) else {
                return;
            };
            let hit = views.iter().enumerate().find_map(|(m, v)| {
                v.items
                    .iter()
                    .find(|i| i.kind == ItemKind::Call)
                    .and_then(|i| i.elem)
                    .map(|e| (m, e))
            });
            if let Some((m, e)) = hit {
                let contents = out[m]["contents"]
                    .as_array_mut()
                    .expect("calls sit in contents");
                contents.remove(e);
                if contents.is_empty() {
                    out.remove(m);
                }
            }
        }
        Mutation::Error => {}
        Mutation::OneOlder => {
            let oldest = out
                .iter()
                .enumerate()
                .filter(|(k, _)| Some(*k) != first_system(out))
                .find_map(|(k, o)| input.iter().position(|m| json_eq(m, o)).map(|j| (k, j)));
            let pinned = view_history(Format::Canonical, input)
                .ok()
                .and_then(|v| pinned_index(&v));
            match oldest {
                Some((k, j)) => {
                    if let Some(older) = (0..j).rev().find(|&i| Some(i) != pinned) {
                        out.insert(k, input[older].clone());
                    }
                }
                None => {
                    if let Some(last) = (0..input.len()).rev().find(|&i| Some(i) != pinned) {
                        out.push(input[last].clone());
                    }
                }
            }
        }
        Mutation::SummaryInTheMiddle(k) => out.insert(k + 1, summary_message("in the middle")),
        Mutation::TwoSummaries => {
            let at = after_pinned(out);
            out.insert(at, summary_message("two"));
            out.insert(at, summary_message("one"));
        }
        Mutation::SummaryWithACall => {
            let at = after_pinned(out);
            let mut m = summary_message("with a call");
            m["contents"].as_array_mut().expect("contents").push(
                serde_json::json!({"$type": "functionCall", "callId": "summary-call", "name": "F"}),
            );
            out.insert(at, m);
        }
        Mutation::SummaryAcrossAGroup => {
            let Ok(views) = view_history(Format::Canonical, out) else {
                return;
            };
            let all: Vec<usize> = (0..views.len()).collect();
            let partner = pair(&views, &all);
            let pinned = pinned_index(&views);
            let cut = (0..views.len()).find(|&m| {
                Some(m) != pinned
                    && views[m].items.iter().enumerate().any(|(t, i)| {
                        i.kind == ItemKind::Call && partner[m][t].is_some_and(|(pm, _)| pm > m)
                    })
            });
            if let Some(cut) = cut {
                let keep_pinned = pinned.filter(|&p| p < cut);
                let mut next: Vec<Value> =
                    keep_pinned.map(|p| out[p].clone()).into_iter().collect();
                next.push(summary_message("across a group"));
                next.extend(out[cut + 1..].iter().cloned());
                *out = next;
            }
        }
    }
}

/// The output position of its first system message.
fn first_system(out: &[Value]) -> Option<usize> {
    view_history(Format::Canonical, out)
        .ok()
        .and_then(|v| pinned_index(&v))
}

fn failed(verdicts: &[Verdict], clause: Clause) -> bool {
    verdicts
        .iter()
        .any(|v| v.clause == clause && matches!(v.outcome, Outcome::Fail(_)))
}

/// The generated case and the policy drawn (the mutation is not part of
/// the history).
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn carried(u: &mut Unstructured) -> arbitrary::Result<super::Carried> {
    let (case, policy, _) = super::case_policy_summary(u)?;
    Ok(super::Carried::with_costs(&case, Some(policy)))
}

/// Mutates a reference output and checks that the checker convicts it.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
///
/// # Panics
///
/// When a changed output passes every clause, or a mutation does not fail
/// the clause it breaks by construction.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let mut s = decode(u)?;
    let budget = s.case.budget_fields();
    let req = Request {
        format: Format::Canonical,
        policy: s.policy,
        budget: &budget,
        messages: &s.case.messages,
        summary: s.summary,
        declared: Default::default(),
        provider: None,
    };
    let b = Budget::read(&budget, s.case.messages.len()).expect("generated budgets are budgets");
    let pinned = s.pinned;
    // The checker judges the generator's reading of the input (what
    // `check` would read again).
    let history = std::mem::take(&mut s.history);
    let Ok(room) = b.available(pinned) else {
        let extras = Extras::default();
        let verdicts = check_classified(&req, history, &s.response, extras.borrowed())
            .expect("generated inputs are readable");
        assert!(
            failed(&verdicts, Clause::RejectsBadBudget),
            "an answer to an unsatisfiable budget passed rejects-bad-budget: {verdicts:?}\n{s:?}"
        );
        return Ok(());
    };
    let unchanged = match &s.response {
        Response::Messages(out) => {
            out.len() == s.reference.len()
                && out.iter().zip(&s.reference).all(|(x, y)| json_eq(x, y))
        }
        Response::Error(_) | Response::Unsupported(_) => false,
    };
    if unchanged {
        return Ok(());
    }
    // The reference moves into the extras (the scenario's `Debug` does
    // not show it).
    let reference = std::mem::take(&mut s.reference);
    let extras = Extras {
        reference: Some(Response::Messages(reference)),
        reference_less_summary: s.summary.map(|x| {
            Response::from(
                Reference::new(s.policy, Format::Canonical)
                    .reduce(reduce::Input::new(&s.case.messages).budget(&b.less(x))),
            )
        }),
        ..Extras::default()
    };
    let verdicts = check_classified(&req, history, &s.response, extras.borrowed())
        .expect("generated inputs are readable");
    // With summaries allowed, an altered message may be a fine summary (an
    // answer of one summary and nothing of M, say): a changed text, or a
    // message whose call was taken out while its text stays (no input
    // message, so the summary, spec §12.2; tests/checker/tokens.rs
    // `a_message_less_its_pending_call_reads_as_a_summary`). Every other
    // mutation is wrong whatever the summaries.
    let maybe_right = s.summary.is_some()
        && matches!(s.mutation, Mutation::AlterText(_) | Mutation::DropFirstCall);
    assert!(
        maybe_right || verdicts.iter().any(Verdict::failed),
        "a wrong output passed every clause\n{s:?}"
    );
    let rest = || (0..s.case.messages.len()).filter(|&i| Some(i) != pinned);
    // After dropping the pinned message, a later system message equal to it
    // may be the output's first system message: then the output reads as
    // keeping the pinned one and dropping the later one (spec §6,
    // matching by equality), and system-pinned holds.
    let pinned_gone = || {
        let Response::Messages(out) = &s.response else {
            return false;
        };
        let out_views = view_history(Format::Canonical, out).expect("readable");
        let first_system = pinned_index(&out_views).map(|k| &out[k]);
        let p = pinned.map(|p| &s.case.messages[p]);
        p.is_some() && !matches!((first_system, p), (Some(a), Some(b)) if json_eq(a, b))
    };
    let over = |out: &[Value]| -> bool {
        // The output's cost, each message at the cost of the input message
        // it is in the latest embedding of the output in the input
        // (spec §6: taken from the end, each output message matched to
        // the latest equal input message before the previous match; equal
        // messages of different costs make "the latest equal message" alone
        // wrong). The pinned message is counted through `room`.
        let out_views = view_history(Format::Canonical, out).expect("readable");
        let out_pinned = pinned_index(&out_views);
        if !b.is_tokens() {
            return (out.len() - usize::from(out_pinned.is_some())) as u64 > b.limit();
        }
        let mut before = s.case.messages.len();
        let mut cost = 0u64;
        let mut last_j = None;
        for (k, o) in out.iter().enumerate().rev() {
            if Some(k) == out_pinned {
                continue;
            }
            let Some(j) = s.case.messages[..before]
                .iter()
                .rposition(|m| json_eq(m, o))
            else {
                // Not an embedding: the cost is not defined; no claim.
                return false;
            };
            last_j = Some(j);
            cost = cost.saturating_add(b.cost(j));
            before = j;
        }
        // Spec §7: one kept message whose latest match does not fit alone
        // reads as an earlier equal one that does (with summaries allowed
        // too: every message here matches one of M, so none is the
        // summary).
        let kept = out.len() - usize::from(out_pinned.is_some());
        if let Some(j) = last_j.filter(|_| kept == 1) {
            let msgs = &s.case.messages;
            if b.cost(j) > room
                && (0..j)
                    .any(|i| Some(i) != pinned && b.cost(i) <= room && json_eq(&msgs[i], &msgs[j]))
            {
                return false;
            }
        }
        cost > room
    };
    let out = match &s.response {
        Response::Messages(m) => m.as_slice(),
        Response::Error(_) | Response::Unsupported(_) => &[],
    };
    let summaries = s.summary.is_some();
    let must_fail = match &s.mutation {
        Mutation::WholeInput if b.cost_of(rest()) > room => Some(Clause::Budget),
        // With summaries allowed, an altered message may read as the summary
        // (and fail summary-shape, or matches-reference, instead).
        Mutation::AlterText(_) if !summaries => Some(Clause::NoFabrication),
        Mutation::DropPinned if pinned_gone() => Some(Clause::SystemPinned),
        Mutation::OneOlder if over(out) => Some(Clause::Budget),
        Mutation::SummaryInTheMiddle(_) | Mutation::SummaryWithACall if summaries => {
            Some(Clause::SummaryShape)
        }
        Mutation::SummaryInTheMiddle(_) | Mutation::SummaryWithACall | Mutation::TwoSummaries => {
            Some(Clause::NoFabrication)
        }
        Mutation::SummaryAcrossAGroup => Some(Clause::NoOrphanResult),
        _ => None,
    };
    if let Some(c) = must_fail {
        assert!(
            failed(&verdicts, c),
            "{c} did not fail: {verdicts:?}\n{s:?}"
        );
    }
    Ok(())
}

/// How many bytes [`decode`] reads of `bytes` (see
/// [`super::trimmed_len`]); `None` when it fails.
pub fn consumed(bytes: &[u8]) -> Option<usize> {
    super::consumed_by(bytes, decode)
}

/// The scenario: case line, mutation, response.
pub fn describe(bytes: &[u8]) -> String {
    super::describe_decoded("checker_convicts", bytes, decode)
}
