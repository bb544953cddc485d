//! Broken histories on purpose (spec §17.6): the ways real histories
//! break — a crash, a timeout, an interrupted stream, a retry, an earlier
//! trimmer — each a [`Break`] behind a [`Config`] knob, applied to a valid
//! generated history so that it breaks a validator rule (spec §5). What
//! `certify --policy repair` runs instead of valid histories.
//!
//! [`apply`] draws one break or more among those the config turns on and
//! applies each where the history has a place for it (a tool step, a
//! result, an approval flow, a reasoning item, a reused call id), or else
//! appends the smallest exchange that shows it; every break leaves the
//! history convertible to the config's wire format and breaking a rule.
//! [`shown`] tells, from any canonical history, which breaks it shows
//! (`certify --without`).

use super::Config;
use crate::formats::{to_wire, view_history, Format};
use crate::terms::{pair, ItemKind, MessageView, Role};
use crate::validate::{validate, Options};
use arbitrary::Unstructured;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::fmt;

macro_rules! breaks {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $field:ident; )*) => {
        /// A way a history breaks (spec §17.6), named as its [`Config`]
        /// knob is.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Break {
            $( $(#[$doc])* $variant, )*
        }

        impl Break {
            /// Every break, in [`Config`]'s field order.
            pub const ALL: &'static [Break] = &[ $( Break::$variant, )* ];

            /// The break's name: its [`Config`] field in kebab-case.
            pub fn name(self) -> &'static str {
                match self { $( Break::$variant => $name, )* }
            }

            /// Whether `config` turns the break on.
            pub fn is_on(self, config: &Config) -> bool {
                match self { $( Break::$variant => config.$field, )* }
            }
        }
    };
}

breaks! {
    /// A run interrupted after its calls: every result of one tool step
    /// missing, and the conversation goes on.
    InterruptedRun = "interrupted-run", interrupted_run;
    /// One of several parallel results lost (the others came).
    LostParallelResult = "lost-parallel-result", lost_parallel_result;
    /// A result stored twice by a retry: a copy of its tool message right
    /// after it.
    DuplicatedResult = "duplicated-result", duplicated_result;
    /// A result stored before its call: its tool message moved before the
    /// assistant message that made the call.
    ResultBeforeCall = "result-before-call", result_before_call;
    /// A non-tool message between a call and its results.
    InterjectedMessage = "interjected-message", interjected_message;
    /// An approval request left unanswered: its response lost, the
    /// conversation goes on.
    UnansweredApproval = "unanswered-approval", unanswered_approval;
    /// An approval response without its request.
    OrphanApprovalResponse = "orphan-approval-response", orphan_approval_response;
    /// A reasoning item cut off from its call (Responses): the calls after
    /// a reasoning item lost, their results kept.
    ReasoningCutOff = "reasoning-cut-off", reasoning_cut_off;
    /// A tool message rewritten as a user message (its results kept).
    ToolAsUser = "tool-as-user", tool_as_user;
    /// A call id used again whose first pair is broken: the first call's
    /// result lost, or the first call lost and its result kept.
    ReusedIdBroken = "reused-id-broken", reused_id_broken;
    /// A history cut by a history limit (the newest messages of a valid
    /// history kept whatever they are): it starts inside a tool step, so
    /// results at its head have lost their calls.
    LimitCut = "limit-cut", limit_cut;
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

type R<T> = arbitrary::Result<T>;

/// The breaks `config` turns on, in [`Break::ALL`] order.
pub fn enabled(config: &Config) -> Vec<Break> {
    Break::ALL
        .iter()
        .copied()
        .filter(|b| b.is_on(config))
        .collect()
}

fn text(t: &str) -> Value {
    json!({"$type": "text", "text": t})
}
fn call(id: &str) -> Value {
    json!({"$type": "functionCall", "callId": id, "name": "GetOrder", "arguments": {"id": 42}})
}
fn result(id: &str) -> Value {
    json!({"$type": "functionResult", "callId": id, "result": "shipped"})
}
fn message(role: &str, contents: Vec<Value>) -> Value {
    json!({"role": role, "contents": contents})
}

/// One call of a [`Step`]: its element, its id, and its partner result
/// `(message, element)`.
type StepCall = (usize, String, Option<(usize, usize)>);

/// One tool step of a history: an assistant message with calls, and each
/// call (spec §2 pairing over the whole history).
struct Step {
    message: usize,
    calls: Vec<StepCall>,
}

/// What the breaks look at: the views and the pairing of the messages.
struct Read {
    views: Vec<MessageView>,
    partner: Vec<Vec<Option<(usize, usize)>>>,
}

impl Read {
    fn of(msgs: &[Value]) -> Option<Read> {
        let views = view_history(Format::Canonical, msgs).ok()?;
        let all: Vec<usize> = (0..views.len()).collect();
        let partner = pair(&views, &all);
        Some(Read { views, partner })
    }

    /// The element (index in `contents`) of item `t` of message `m`.
    fn elem(&self, m: usize, t: usize) -> usize {
        self.views[m].items[t]
            .elem
            .expect("canonical items are elements")
    }

    fn steps(&self) -> Vec<Step> {
        let mut out = Vec::new();
        for (m, v) in self.views.iter().enumerate() {
            if v.role != Role::Assistant {
                continue;
            }
            let calls: Vec<_> = v
                .items
                .iter()
                .enumerate()
                .filter(|(_, i)| i.kind == ItemKind::Call)
                .map(|(t, i)| {
                    let p = self.partner[m][t].map(|(pm, pt)| (pm, self.elem(pm, pt)));
                    (self.elem(m, t), i.id.clone(), p)
                })
                .collect();
            if !calls.is_empty() {
                out.push(Step { message: m, calls });
            }
        }
        out
    }

    /// Every (request message, request element, response message, response
    /// element) pair.
    fn approvals(&self) -> Vec<(usize, usize, usize, usize)> {
        let mut out = Vec::new();
        for (m, v) in self.views.iter().enumerate() {
            for (t, i) in v.items.iter().enumerate() {
                if i.kind == ItemKind::ApprovalRequest {
                    if let Some((pm, pt)) = self.partner[m][t] {
                        out.push((m, self.elem(m, t), pm, self.elem(pm, pt)));
                    }
                }
            }
        }
        out
    }

    /// Every id used in the history.
    fn ids(&self) -> BTreeSet<String> {
        self.views
            .iter()
            .flat_map(|v| v.items.iter().map(|i| i.id.clone()))
            .collect()
    }
}

/// A call id not used in the history.
fn fresh(read: &Read, stem: &str) -> String {
    let used = read.ids();
    (1..)
        .map(|n| format!("{stem}_{n}"))
        .find(|id| !used.contains(id))
        .expect("some id is free")
}

/// An item id (a reasoning item's `id`) no item of the history has: two
/// reasoning items with one id are one item to a provider that dedupes by
/// id, a break the knob does not mean to make.
fn fresh_item_id(msgs: &[Value], stem: &str) -> String {
    let used: BTreeSet<&str> = msgs
        .iter()
        .filter_map(|m| m["contents"].as_array())
        .flatten()
        .filter_map(|i| i["id"].as_str())
        .collect();
    (1..)
        .map(|n| format!("{stem}_{n}"))
        .find(|id| !used.contains(id.as_str()))
        .expect("some id is free")
}

/// Removes element `e` of message `m`'s contents; the message goes when
/// left empty. Returns whether it went.
fn remove_elem(msgs: &mut Vec<Value>, m: usize, e: usize) -> bool {
    let arr = msgs[m]["contents"]
        .as_array_mut()
        .expect("canonical contents");
    arr.remove(e);
    if arr.is_empty() {
        msgs.remove(m);
        true
    } else {
        false
    }
}

/// Removes the elements `(message, element)` of `at` (each message's
/// elements from the last); messages left empty go.
fn remove_elems(msgs: &mut Vec<Value>, mut at: Vec<(usize, usize)>) {
    at.sort_unstable();
    for &(m, e) in at.iter().rev() {
        remove_elem(msgs, m, e);
    }
}

/// Index of the first message after the results of `step` (its call
/// message and the tool messages holding its results).
fn after_step(step: &Step) -> usize {
    step.calls
        .iter()
        .filter_map(|c| c.2.map(|(pm, _)| pm))
        .max()
        .unwrap_or(step.message)
        .max(step.message)
        + 1
}

/// Draws an index below `n` (0 when the bytes run out).
fn pick(u: &mut Unstructured, n: usize) -> R<usize> {
    if n <= 1 {
        Ok(0)
    } else {
        u.int_in_range(0..=n - 1)
    }
}

/// Makes sure a non-tool message follows message `m` ("the conversation
/// goes on"): appends a user question when nothing but tool messages come
/// after it.
fn goes_on(msgs: &mut Vec<Value>, m: usize) {
    let rest_tool = msgs[m + 1..].iter().all(|x| {
        x.get("role")
            .and_then(Value::as_str)
            .is_some_and(|r| Role::parse(r) == Role::Tool)
    });
    if rest_tool {
        msgs.push(message("user", vec![text("hello? are you there")]));
    }
}

/// Applies `b` to `msgs` where the history has a place for it (drawn from
/// `u`), or appends the smallest exchange that shows it. False when it
/// cannot be shown under `cfg` (nothing is changed then).
fn apply_one(u: &mut Unstructured, msgs: &mut Vec<Value>, b: Break, cfg: &Config) -> R<bool> {
    let Some(read) = Read::of(msgs) else {
        return Ok(false);
    };
    let steps = read.steps();
    let answered: Vec<&Step> = steps
        .iter()
        .filter(|s| s.calls.iter().all(|c| c.2.is_some()))
        .collect();
    match b {
        Break::InterruptedRun => {
            if answered.is_empty() || u.ratio(1, 8)? {
                let id = fresh(&read, "call_cut");
                msgs.push(message("assistant", vec![call(&id)]));
                msgs.push(message("user", vec![text("hello? are you there")]));
                return Ok(true);
            }
            let s = answered[pick(u, answered.len())?];
            let m = s.message;
            remove_elems(msgs, s.calls.iter().filter_map(|c| c.2).collect());
            goes_on(msgs, m);
        }
        Break::LostParallelResult => {
            let parallel: Vec<&&Step> = answered.iter().filter(|s| s.calls.len() >= 2).collect();
            if !parallel.is_empty() && !u.ratio(1, 8)? {
                let s = parallel[pick(u, parallel.len())?];
                let lost = s.calls[pick(u, s.calls.len())?].2.expect("answered");
                let m = s.message;
                remove_elems(msgs, vec![lost]);
                goes_on(msgs, m);
            } else if !answered.is_empty() && !u.ratio(1, 8)? {
                // One call more in a step of one: its result "lost".
                let s = answered[pick(u, answered.len())?];
                let id = fresh(&read, "call_lost");
                let m = s.message;
                msgs[m]["contents"]
                    .as_array_mut()
                    .expect("canonical contents")
                    .push(call(&id));
                goes_on(msgs, m);
            } else {
                let (a, b2) = (fresh(&read, "call_p"), fresh(&read, "call_q"));
                let b2 = if a == b2 { format!("{b2}_2") } else { b2 };
                msgs.push(message("assistant", vec![call(&a), call(&b2)]));
                msgs.push(message("tool", vec![result(&a)]));
                msgs.push(message("assistant", vec![text("one result came")]));
            }
        }
        Break::DuplicatedResult => {
            let results: Vec<usize> = answered
                .iter()
                .flat_map(|s| s.calls.iter().filter_map(|c| c.2.map(|(pm, _)| pm)))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            if results.is_empty() || u.ratio(1, 8)? {
                let id = fresh(&read, "call_dup");
                msgs.push(message("assistant", vec![call(&id)]));
                msgs.push(message("tool", vec![result(&id)]));
                msgs.push(message("tool", vec![result(&id)]));
                return Ok(true);
            }
            let t = results[pick(u, results.len())?];
            let mut copy = msgs[t].clone();
            // A retry stores the results again, not the user's text beside
            // them (Anthropic, Bedrock, Gemini: spec §1.6).
            if let Some(items) = copy.get_mut("contents").and_then(Value::as_array_mut) {
                items.retain(|i| i["$type"] == "functionResult");
            }
            msgs.insert(t + 1, copy);
        }
        Break::ResultBeforeCall => {
            if answered.is_empty() || u.ratio(1, 8)? {
                let id = fresh(&read, "call_early");
                msgs.push(message("tool", vec![result(&id)]));
                msgs.push(message("assistant", vec![call(&id)]));
                msgs.push(message("assistant", vec![text("done")]));
                return Ok(true);
            }
            let s = answered[pick(u, answered.len())?];
            let (pm, pe) = s.calls[pick(u, s.calls.len())?].2.expect("answered");
            // Before the call's message, and before a reasoning item right
            // before it.
            let mut at = s.message;
            if at > 0 && reasoning_like(&read.views[at - 1], &msgs[at - 1]) {
                at -= 1;
            }
            let moved = if msgs[pm]["contents"].as_array().map_or(0, Vec::len) == 1 {
                msgs.remove(pm)
            } else {
                let item = msgs[pm]["contents"][pe].clone();
                remove_elem(msgs, pm, pe);
                let mut m = msgs[pm].clone();
                m["contents"] = Value::Array(vec![item]);
                m
            };
            msgs.insert(at, moved);
        }
        Break::InterjectedMessage => {
            let with_run: Vec<&&Step> = answered
                .iter()
                .filter(|s| {
                    s.calls
                        .iter()
                        .any(|c| c.2.is_some_and(|(pm, _)| pm > s.message))
                })
                .collect();
            let say = if u.ratio(1, 2)? {
                message("assistant", vec![text("one moment")])
            } else {
                message("user", vec![text("any news?")])
            };
            if with_run.is_empty() || u.ratio(1, 8)? {
                let id = fresh(&read, "call_wait");
                msgs.push(message("assistant", vec![call(&id)]));
                msgs.push(say);
                msgs.push(message("tool", vec![result(&id)]));
                return Ok(true);
            }
            let s = with_run[pick(u, with_run.len())?];
            let last = after_step(s) - 1;
            let at = s.message + 1 + pick(u, last - s.message)?;
            msgs.insert(at, say);
        }
        Break::UnansweredApproval | Break::OrphanApprovalResponse => {
            if !cfg.approvals {
                return Ok(false);
            }
            let flows = read.approvals();
            if flows.is_empty() || u.ratio(1, 8)? {
                let id = fresh(&read, "req_lost");
                if b == Break::UnansweredApproval {
                    msgs.push(message(
                        "assistant",
                        vec![json!({"$type": "toolApprovalRequest", "requestId": id, "toolCall": call(&fresh(&read, "call_r"))})],
                    ));
                    msgs.push(message("user", vec![text("never mind")]));
                } else {
                    msgs.push(message(
                        "user",
                        vec![json!({"$type": "toolApprovalResponse", "requestId": id, "approved": true, "toolCall": call(&fresh(&read, "call_r"))})],
                    ));
                }
                return Ok(true);
            }
            let (rm, re, sm, se) = flows[pick(u, flows.len())?];
            if b == Break::UnansweredApproval {
                remove_elem(msgs, sm, se);
                // The conversation goes on: a question after the request.
                let turn_after = Read::of(msgs)
                    .is_some_and(|r| r.views[rm + 1..].iter().any(MessageView::is_turn_start));
                if !turn_after {
                    msgs.push(message("user", vec![text("never mind")]));
                }
            } else {
                remove_elem(msgs, rm, re);
            }
        }
        Break::ReasoningCutOff => {
            if !cfg.reasoning_items {
                return Ok(false);
            }
            let cut: Vec<&&Step> = answered
                .iter()
                .filter(|s| {
                    s.message > 0
                        && reasoning_like(&read.views[s.message - 1], &msgs[s.message - 1])
                        && s.calls
                            .iter()
                            .all(|c| c.2.is_some_and(|(pm, _)| pm > s.message))
                })
                .collect();
            if cut.is_empty() || u.ratio(1, 8)? {
                let id = fresh(&read, "call_gone");
                msgs.push(message(
                    "assistant",
                    vec![
                        json!({"$type": "reasoning", "id": fresh_item_id(msgs, "rs_cut"), "summary": []}),
                    ],
                ));
                msgs.push(message("tool", vec![result(&id)]));
                msgs.push(message("assistant", vec![text("done")]));
                return Ok(true);
            }
            let s = cut[pick(u, cut.len())?];
            let elems: Vec<(usize, usize)> = s.calls.iter().map(|c| (s.message, c.0)).collect();
            remove_elems(msgs, elems);
        }
        Break::ToolAsUser => {
            let tools: Vec<usize> = (0..read.views.len())
                .filter(|&m| read.views[m].role == Role::Tool)
                .collect();
            if tools.is_empty() || u.ratio(1, 8)? {
                let id = fresh(&read, "call_user");
                msgs.push(message("assistant", vec![call(&id)]));
                msgs.push(message("user", vec![result(&id)]));
                return Ok(true);
            }
            let t = tools[pick(u, tools.len())?];
            msgs[t]["role"] = Value::from("user");
        }
        Break::ReusedIdBroken => {
            // Two answered calls of one id: the first pair broken.
            let mut reused: Vec<(usize, usize, (usize, usize))> = Vec::new();
            for (i, s) in answered.iter().enumerate() {
                for c in &s.calls {
                    let again = answered[i + 1..]
                        .iter()
                        .any(|later| later.calls.iter().any(|d| d.1 == c.1));
                    if again {
                        reused.push((s.message, c.0, c.2.expect("answered")));
                    }
                }
            }
            if reused.is_empty() || u.ratio(1, 8)? {
                let id = fresh(&read, "call_again");
                msgs.push(message("assistant", vec![call(&id)]));
                msgs.push(message("user", vec![text("try again")]));
                msgs.push(message("assistant", vec![call(&id)]));
                msgs.push(message("tool", vec![result(&id)]));
                return Ok(true);
            }
            let (cm, ce, (pm, pe)) = reused[pick(u, reused.len())?];
            if u.ratio(1, 2)? {
                // The first result lost.
                remove_elem(msgs, pm, pe);
                goes_on(msgs, cm);
            } else {
                // The first call lost, its result kept.
                remove_elem(msgs, cm, ce);
            }
        }
        Break::LimitCut => {
            // The pinned system message travels apart from the history a
            // limit cuts (spec §15.1): it stays.
            let head = usize::from(
                msgs.first()
                    .and_then(|m| m.get("role"))
                    .and_then(Value::as_str)
                    .is_some_and(|r| Role::parse(r) == Role::System),
            );
            let with_results: Vec<&&Step> = answered
                .iter()
                .filter(|s| {
                    s.message >= head
                        && s.calls
                            .iter()
                            .any(|c| c.2.is_some_and(|(pm, _)| pm > s.message))
                })
                .collect();
            if with_results.is_empty() || u.ratio(1, 8)? {
                // A cut right after a call whose message is gone.
                let id = fresh(&read, "call_cut");
                msgs.insert(head, message("tool", vec![result(&id)]));
                return Ok(true);
            }
            let s = with_results[pick(u, with_results.len())?];
            let split = cfg.format == Format::Responses && s.calls.len() >= 2 && u.ratio(1, 2)?;
            if split {
                // Inside a call group (Responses: one item per call): the
                // first calls cut, the others kept.
                let k = 1 + pick(u, s.calls.len() - 1)?;
                let elems: Vec<usize> = s.calls[..k].iter().map(|c| c.0).collect();
                msgs.drain(head..s.message);
                let m = head;
                let contents = msgs[m]["contents"]
                    .as_array_mut()
                    .expect("canonical contents");
                for &e in elems.iter().rev() {
                    contents.remove(e);
                }
            } else {
                // Right after the call's message.
                msgs.drain(head..=s.message);
            }
        }
    }
    Ok(true)
}

/// Whether `msg` (read as `view`) is an assistant message of one
/// `reasoning` item, as the generator makes them (the Responses form's
/// reasoning item, read in the canonical format).
fn reasoning_like(view: &MessageView, msg: &Value) -> bool {
    view.role == Role::Assistant
        && msg["contents"].as_array().is_some_and(|a| {
            a.len() == 1 && a[0].get("$type").and_then(Value::as_str) == Some("reasoning")
        })
}

/// Whether `msgs` converts to `format` and breaks a validator rule there
/// (pending calls not allowed).
fn broken_in(msgs: &[Value], format: Format) -> bool {
    let Ok(wire) = to_wire(format, msgs) else {
        return false;
    };
    view_history(format, &wire).is_ok_and(|v| {
        !validate(
            &v,
            Options {
                allow_pending: false,
            },
        )
        .is_empty()
    })
}

/// Breaks the valid history `msgs` (spec §17.6): one break, sometimes
/// two or three, drawn among those `cfg` turns on ([`enabled`]), each
/// applied where the history has a place for it or shown by an appended
/// exchange, kept only when the history then breaks a rule and still
/// converts to `cfg.format`. Returns the breaks applied, in order; empty
/// only when `cfg` turns none on that can be shown.
///
/// # Errors
///
/// None in practice: every draw has a fallback when the bytes run out.
pub fn apply(u: &mut Unstructured, msgs: &mut Vec<Value>, cfg: &Config) -> R<Vec<Break>> {
    let on = enabled(cfg);
    let mut applied = Vec::new();
    if on.is_empty() {
        return Ok(applied);
    }
    let want = 1 + usize::from(u.ratio(1, 4)?) + usize::from(u.ratio(1, 16)?);
    let mut tries = 0;
    while applied.len() < want && tries < 4 * on.len() + want {
        tries += 1;
        let b = on[pick(u, on.len())?];
        let before = msgs.clone();
        if apply_one(u, msgs, b, cfg)? && broken_in(msgs, cfg.format) {
            applied.push(b);
        } else {
            *msgs = before;
        }
    }
    // Every enabled break in turn, until one shows.
    for &b in &on {
        if !applied.is_empty() {
            break;
        }
        let before = msgs.clone();
        if apply_one(u, msgs, b, cfg)? && broken_in(msgs, cfg.format) {
            applied.push(b);
        } else {
            *msgs = before;
        }
    }
    Ok(applied)
}

/// The breaks a canonical history shows, read from the history itself
/// (what `certify --without` skips), each by its mark:
///
/// - `interrupted-run`: an assistant message none of whose calls has a
///   result (spec §2 pairing), a non-tool message after it;
/// - `lost-parallel-result`: an assistant message with some calls answered
///   and some not, a non-tool message after it;
/// - `duplicated-result`: an orphan result equal to an earlier result;
/// - `result-before-call`: an orphan result whose id a later call uses;
/// - `interjected-message`: a call whose result comes after a non-tool
///   message that follows the call's message;
/// - `unanswered-approval`: a request with no response and a turn start
///   after it;
/// - `orphan-approval-response`: an orphan approval response;
/// - `reasoning-cut-off`: a reasoning item right before a tool message;
/// - `tool-as-user`: a user message holding a result;
/// - `reused-id-broken`: a call id used by two calls, the first of which
///   has no result;
/// - `limit-cut`: an orphan result in a tool message before the first
///   user message, whose id no call of the history uses (the head of a
///   cut history: its call was cut).
///
/// The marks overlap (a reused id whose first result is lost also shows
/// an interrupted run). A valid history shows none; unreadable messages
/// show none.
pub fn shown(msgs: &[Value]) -> BTreeSet<Break> {
    let mut out = BTreeSet::new();
    let Some(read) = Read::of(msgs) else {
        return out;
    };
    let v = &read.views;
    let n = v.len();
    let non_tool_after = |m: usize| v[m + 1..].iter().any(|x| x.role != Role::Tool);
    let mut results_seen: Vec<&Value> = Vec::new();
    for m in 0..n {
        let calls: Vec<usize> = (0..v[m].items.len())
            .filter(|&t| v[m].items[t].kind == ItemKind::Call)
            .collect();
        if v[m].role == Role::Assistant && !calls.is_empty() {
            let answered = calls
                .iter()
                .filter(|&&t| read.partner[m][t].is_some())
                .count();
            if answered == 0 && non_tool_after(m) {
                out.insert(Break::InterruptedRun);
            }
            if answered > 0 && answered < calls.len() && non_tool_after(m) {
                out.insert(Break::LostParallelResult);
            }
            for &t in &calls {
                if let Some((pm, _)) = read.partner[m][t] {
                    if v[m + 1..pm].iter().any(|x| x.role != Role::Tool) {
                        out.insert(Break::InterjectedMessage);
                    }
                }
                let id = &v[m].items[t].id;
                let later = (m + 1..n).any(|j| {
                    v[j].items
                        .iter()
                        .any(|i| i.kind == ItemKind::Call && &i.id == id)
                });
                if later && read.partner[m][t].is_none() {
                    out.insert(Break::ReusedIdBroken);
                }
            }
        }
        if reasoning_like(&v[m], &msgs[m]) && m + 1 < n && v[m + 1].role == Role::Tool {
            out.insert(Break::ReasoningCutOff);
        }
        for (t, it) in v[m].items.iter().enumerate() {
            match it.kind {
                ItemKind::Result => {
                    if v[m].role == Role::User {
                        out.insert(Break::ToolAsUser);
                    }
                    if v[m].role == Role::Tool
                        && read.partner[m][t].is_none()
                        && !v[..m].iter().any(|x| x.role == Role::User)
                        && !v.iter().any(|x| {
                            x.items
                                .iter()
                                .any(|i| i.kind == ItemKind::Call && i.id == it.id)
                        })
                    {
                        out.insert(Break::LimitCut);
                    }
                    let value = &msgs[m]["contents"][read.elem(m, t)];
                    if read.partner[m][t].is_none() {
                        if results_seen.contains(&value) {
                            out.insert(Break::DuplicatedResult);
                        }
                        let called_later = v[m + 1..].iter().any(|x| {
                            x.items
                                .iter()
                                .any(|i| i.kind == ItemKind::Call && i.id == it.id)
                        });
                        if called_later {
                            out.insert(Break::ResultBeforeCall);
                        }
                    }
                    results_seen.push(value);
                }
                ItemKind::ApprovalRequest
                    if read.partner[m][t].is_none()
                        && v[m + 1..].iter().any(MessageView::is_turn_start) =>
                {
                    out.insert(Break::UnansweredApproval);
                }
                ItemKind::ApprovalResponse if read.partner[m][t].is_none() => {
                    out.insert(Break::OrphanApprovalResponse);
                }
                _ => {}
            }
        }
    }
    out
}
