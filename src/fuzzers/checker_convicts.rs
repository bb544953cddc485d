//! The checker convicts wrong outputs.
//!
//! On a generated case and a drawn policy, the reference output gets one
//! random [`Mutation`]. When the mutated response differs from the
//! reference, [`check`] must give at least one failing verdict; mutations
//! that break a safety clause by construction must fail that clause:
//! the whole input when it is over budget fails `budget`, an altered text
//! fails `no-fabrication`, a dropped pinned system message fails
//! `system-pinned` (unless a later system message equal to it is then the
//! output's first system message).

use crate::check::{check, Extras, Outcome, Request, Verdict};
use crate::formats::{view_history, Format};
use crate::generate::GeneratedCase;
use crate::json::json_eq;
use crate::protocol::Response;
use crate::reduce::reduce;
use crate::terms::{pinned_index, Clause, ItemKind, Policy};
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
}

/// A case, its policy, the mutation and the mutated response.
pub struct Scenario {
    /// The generated case.
    pub case: GeneratedCase,
    /// The policy judged.
    pub policy: Policy,
    /// The mutation applied to the reference output.
    pub mutation: Mutation,
    /// The reference output.
    pub reference: Vec<Value>,
    /// The response judged.
    pub response: Response,
}

impl fmt::Debug for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "checker_convicts: mutation {:?}", self.mutation)?;
        writeln!(f, "case: {}", super::case_line(&self.case, self.policy))?;
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
    let (case, policy) = super::case_and_policy(u)?;
    let reference = reduce(
        policy,
        Format::Canonical,
        &case.messages,
        &Value::from(case.budget),
    )
    .expect("the reference reduces generated cases");
    let mut out = reference.clone();
    let n = out.len();
    let pick = |u: &mut Unstructured, len: usize| -> arbitrary::Result<usize> {
        if len == 0 {
            Ok(0)
        } else {
            u.int_in_range(0..=len - 1)
        }
    };
    let mutation = match u.int_in_range(0..=9u8)? {
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
        _ => Mutation::Error,
    };
    let response = match &mutation {
        Mutation::Error => Response::Error("mutated".into()),
        m => {
            apply(&mut out, m, &case.messages);
            Response::Messages(out)
        }
    };
    Ok(Scenario {
        case,
        policy,
        mutation,
        reference,
        response,
    })
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
    }
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
    let (case, policy) = super::case_and_policy(u)?;
    Ok(super::Carried::case(&case, Some(policy)))
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
    let s = decode(u)?;
    if s.response.same_as(&Response::Messages(s.reference.clone())) {
        return Ok(());
    }
    let max = Value::from(s.case.budget);
    let req = Request {
        format: Format::Canonical,
        policy: s.policy,
        max_messages: &max,
        messages: &s.case.messages,
    };
    let extras = Extras {
        reference: Some(Response::Messages(s.reference.clone())),
        ..Extras::default()
    };
    let verdicts = check(&req, &s.response, &extras).expect("generated inputs are readable");
    assert!(
        verdicts.iter().any(Verdict::failed),
        "a wrong output passed every clause\n{s:?}"
    );
    let views = view_history(Format::Canonical, &s.case.messages).expect("readable");
    let pinned = pinned_index(&views);
    let n = s.case.messages.len() - usize::from(pinned.is_some());
    // After dropping the pinned message, a later system message equal to it
    // may be the output's first system message: then the output reads as
    // keeping the pinned one and dropping the later one (semantics §6,
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
    let must_fail = match &s.mutation {
        Mutation::WholeInput if n > s.case.budget => Some(Clause::Budget),
        Mutation::AlterText(_) => Some(Clause::NoFabrication),
        Mutation::DropPinned if pinned_gone() => Some(Clause::SystemPinned),
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

/// The scenario: case line, mutation, response.
pub fn describe(bytes: &[u8]) -> String {
    super::describe_decoded("checker_convicts", bytes, decode)
}
