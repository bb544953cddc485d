//! The history validator: tool-call / result and approval pairing rules
//! (spec §5).

use crate::terms::history::{Sym, NONE};
use crate::terms::{History, ItemKind, MessageView, Role};
use std::fmt;

/// A validity rule of spec §5. The ids are public vocabulary: never
/// renumbered or reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// `call-in-assistant`: every call is in an `assistant` message.
    CallInAssistant,
    /// `result-in-tool`: every result is in a `tool` message.
    ResultInTool,
    /// `result-follows-call`: every result's call id matches an earlier,
    /// still unanswered call.
    ResultFollowsCall,
    /// `unique-pending-call`: no call reuses the id of a call that is still
    /// unanswered.
    UniquePendingCall,
    /// `results-before-continuation`: once calls are made, no non-`tool`
    /// message comes until all are answered.
    ResultsBeforeContinuation,
    /// `approval-follows-request`: every approval response matches an
    /// earlier, still unanswered request.
    ApprovalFollowsRequest,
    /// `unique-pending-request`: no approval request reuses the id of a
    /// request that is still unanswered (an id names one pending request;
    /// reusing it once that request is answered is valid).
    UniquePendingRequest,
    /// `calls-answered`: at the end, no call is unanswered.
    CallsAnswered,
    /// `requests-answered`: no approval request is still unanswered at the
    /// next turn start or the end.
    RequestsAnswered,
}

impl Rule {
    /// Every rule, in the order of spec §5.
    pub const ALL: [Rule; 9] = [
        Rule::CallInAssistant,
        Rule::ResultInTool,
        Rule::ResultFollowsCall,
        Rule::UniquePendingCall,
        Rule::ResultsBeforeContinuation,
        Rule::ApprovalFollowsRequest,
        Rule::UniquePendingRequest,
        Rule::CallsAnswered,
        Rule::RequestsAnswered,
    ];

    /// The rule's stable id, e.g. `result-follows-call`.
    pub fn id(self) -> &'static str {
        match self {
            Rule::CallInAssistant => "call-in-assistant",
            Rule::ResultInTool => "result-in-tool",
            Rule::ResultFollowsCall => "result-follows-call",
            Rule::UniquePendingCall => "unique-pending-call",
            Rule::ResultsBeforeContinuation => "results-before-continuation",
            Rule::ApprovalFollowsRequest => "approval-follows-request",
            Rule::UniquePendingRequest => "unique-pending-request",
            Rule::CallsAnswered => "calls-answered",
            Rule::RequestsAnswered => "requests-answered",
        }
    }

    /// The rule whose id is `id`.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One broken rule: the rule, the zero-based index of the message where it
/// breaks, and the call or request id involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The rule broken.
    pub rule: Rule,
    /// Zero-based index of the message in the history.
    pub index: usize,
    /// The call id or approval request id involved.
    pub id: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: message {}, id {:?}", self.rule, self.index, self.id)
    }
}

/// Validator options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `--allow-pending`: calls and approval requests of the newest turn may
    /// be unanswered at the end (relaxes `calls-answered` and
    /// `requests-answered` for them).
    pub allow_pending: bool,
}

/// Checks a history against every rule of spec §5 and returns the
/// violations in message order (empty when the history is valid).
///
/// After reporting `results-before-continuation`, the unanswered calls are
/// forgotten so that one missing result is reported once; a later result
/// for one of them is then a `result-follows-call` violation.
///
/// # Examples
///
/// ```
/// use reducer_kit::{formats::{view_history, Format}, validate::{validate, Options, Rule}};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":"ok"}]}]"#).unwrap();
/// let v = validate(&view_history(Format::Canonical, &h).unwrap(), Options::default());
/// assert_eq!(v[0].rule, Rule::ResultFollowsCall);
/// assert_eq!((v[0].index, v[0].id.as_str()), (0, "c1"));
/// ```
pub fn validate(views: &[MessageView], opts: Options) -> Vec<Violation> {
    validate_history(&History::from_views(views), opts)
}

/// Unanswered calls (or approval requests) in the order they were made,
/// with the latest of each id found in O(1): a list of entries, a stack per
/// id symbol (linked through `below`), and a boundary below which every
/// entry is forgotten.
struct Open {
    /// `(message index, id symbol, still open)`.
    entries: Vec<(usize, Sym, bool)>,
    below: Vec<u32>,
    top: Vec<u32>,
    /// Entries before `base` are forgotten.
    base: usize,
}

impl Open {
    fn new(ids: usize) -> Open {
        Open {
            entries: Vec::new(),
            below: Vec::new(),
            top: vec![NONE; ids],
            base: 0,
        }
    }

    fn latest(&self, id: Sym) -> Option<usize> {
        let t = self.top[id as usize];
        (t != NONE && t as usize >= self.base).then_some(t as usize)
    }

    fn push(&mut self, index: usize, id: Sym) {
        let below = self.latest(id).map_or(NONE, |t| t as u32);
        self.top[id as usize] = self.entries.len() as u32;
        self.entries.push((index, id, true));
        self.below.push(below);
    }

    /// Answers the latest open entry with `id`; false when there is none.
    fn answer(&mut self, id: Sym) -> bool {
        match self.latest(id) {
            Some(t) => {
                self.entries[t].2 = false;
                self.top[id as usize] = self.below[t];
                true
            }
            None => false,
        }
    }

    /// The open entries, oldest first.
    fn open(&self) -> impl Iterator<Item = (usize, Sym)> + '_ {
        self.entries[self.base..]
            .iter()
            .filter(|e| e.2)
            .map(|&(i, id, _)| (i, id))
    }

    fn clear(&mut self) {
        self.base = self.entries.len();
    }

    fn is_empty(&mut self) -> bool {
        while self.base < self.entries.len() && !self.entries[self.base].2 {
            self.base += 1;
        }
        self.base == self.entries.len()
    }
}

/// [`validate`] on a classified history: one pass, O(1) per item.
pub fn validate_history(h: &History, opts: Options) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut report = |rule, index, id: Sym| {
        out.push(Violation {
            rule,
            index,
            id: h.id(id).to_string(),
        })
    };
    let mut calls = Open::new(h.id_count());
    let mut requests = Open::new(h.id_count());
    let pinned = h.pinned();
    let newest_turn_start = (0..h.len())
        .rev()
        .find(|&i| Some(i) != pinned && h.view(i).is_turn_start())
        .unwrap_or(0);
    for (i, v) in h.views().iter().enumerate() {
        // A call item that continues a call group (spec §14.5) is part
        // of the message that made the waiting calls.
        if v.role != Role::Tool
            && !calls.is_empty()
            && !crate::terms::links::continues_call_group(h, i)
        {
            let (_, first) = calls.open().next().expect("not empty");
            report(Rule::ResultsBeforeContinuation, i, first);
            calls.clear();
        }
        if Some(i) != pinned && v.is_turn_start() {
            for (idx, id) in requests.open() {
                report(Rule::RequestsAnswered, idx, id);
            }
            requests.clear();
        }
        let items = h.items(i);
        for item in items {
            match item.kind {
                ItemKind::Result => {
                    if v.role != Role::Tool {
                        report(Rule::ResultInTool, i, item.id);
                    }
                    if !calls.answer(item.id) {
                        report(Rule::ResultFollowsCall, i, item.id);
                    }
                }
                ItemKind::ApprovalResponse if !requests.answer(item.id) => {
                    report(Rule::ApprovalFollowsRequest, i, item.id);
                }
                _ => {}
            }
        }
        for item in items {
            match item.kind {
                ItemKind::Call => {
                    if v.role != Role::Assistant {
                        report(Rule::CallInAssistant, i, item.id);
                    }
                    if calls.latest(item.id).is_some() {
                        report(Rule::UniquePendingCall, i, item.id);
                    }
                    calls.push(i, item.id);
                }
                ItemKind::ApprovalRequest => {
                    if requests.latest(item.id).is_some() {
                        report(Rule::UniquePendingRequest, i, item.id);
                    }
                    requests.push(i, item.id);
                }
                _ => {}
            }
        }
    }
    let pending_ok = |idx: usize| opts.allow_pending && idx >= newest_turn_start;
    for (idx, id) in calls.open() {
        if !pending_ok(idx) {
            report(Rule::CallsAnswered, idx, id);
        }
    }
    for (idx, id) in requests.open() {
        if !pending_ok(idx) {
            report(Rule::RequestsAnswered, idx, id);
        }
    }
    out.sort_by_key(|v| v.index);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{view_history, Format};
    use serde_json::{json, Value};

    fn check(h: Value, allow_pending: bool) -> Vec<(&'static str, usize, String)> {
        let views = view_history(Format::Canonical, h.as_array().unwrap()).unwrap();
        validate(&views, Options { allow_pending })
            .into_iter()
            .map(|v| (v.rule.id(), v.index, v.id))
            .collect()
    }

    fn call(id: &str) -> Value {
        json!({"$type": "functionCall", "callId": id, "name": "F"})
    }
    fn result(id: &str) -> Value {
        json!({"$type": "functionResult", "callId": id, "result": "r"})
    }
    fn user(t: &str) -> Value {
        json!({"role": "user", "contents": [{"$type": "text", "text": t}]})
    }

    #[test]
    fn every_rule_fires_with_index_and_id() {
        assert_eq!(
            check(json!([{"role": "user", "contents": [call("a")]}]), false),
            vec![
                ("call-in-assistant", 0, "a".into()),
                ("calls-answered", 0, "a".into())
            ]
        );
        assert_eq!(
            check(
                json!([{"role": "assistant", "contents": [call("a")]}, {"role": "assistant", "contents": [result("a")]}]),
                false
            ),
            vec![
                ("results-before-continuation", 1, "a".into()),
                ("result-in-tool", 1, "a".into()),
                ("result-follows-call", 1, "a".into())
            ]
        );
        assert_eq!(
            check(
                json!([{"role": "assistant", "contents": [call("a"), call("a")]}, {"role": "tool", "contents": [result("a"), result("a")]}]),
                false
            ),
            vec![("unique-pending-call", 0, "a".into())]
        );
        assert_eq!(
            check(
                json!([user("q"), {"role": "user", "contents": [{"$type": "toolApprovalResponse", "requestId": "r"}]}]),
                false
            ),
            vec![("approval-follows-request", 1, "r".into())]
        );
        assert_eq!(
            check(
                json!([user("q"), {"role": "assistant", "contents": [{"$type": "toolApprovalRequest", "requestId": "r"}]}, user("next")]),
                false
            ),
            vec![("requests-answered", 1, "r".into())]
        );
    }

    fn request(id: &str) -> Value {
        json!({"$type": "toolApprovalRequest", "requestId": id})
    }
    fn response(id: &str) -> Value {
        json!({"$type": "toolApprovalResponse", "requestId": id, "approved": true})
    }

    #[test]
    fn a_request_id_names_one_pending_request() {
        // A second request under `r` while the first waits: broken at the
        // second, and both are then answered.
        assert_eq!(
            check(
                json!([
                    user("q"),
                    {"role": "assistant", "contents": [request("r")]},
                    {"role": "assistant", "contents": [request("r")]},
                    {"role": "user", "contents": [response("r"), response("r")]}
                ]),
                false
            ),
            vec![("unique-pending-request", 2, "r".into())]
        );
        // Two in one message.
        assert_eq!(
            check(
                json!([
                    user("q"),
                    {"role": "assistant", "contents": [request("r"), request("r")]},
                    {"role": "user", "contents": [response("r")]}
                ]),
                false
            ),
            vec![
                ("unique-pending-request", 1, "r".into()),
                ("requests-answered", 1, "r".into())
            ]
        );
        // Reused once the first is answered: valid.
        assert_eq!(
            check(
                json!([
                    user("q"),
                    {"role": "assistant", "contents": [request("r")]},
                    {"role": "user", "contents": [response("r")]},
                    {"role": "assistant", "contents": [request("r")]},
                    {"role": "user", "contents": [response("r")]}
                ]),
                false
            ),
            vec![]
        );
        // Reused after a turn start forgot the first: only the first is
        // reported, as unanswered.
        assert_eq!(
            check(
                json!([
                    user("q"),
                    {"role": "assistant", "contents": [request("r")]},
                    user("next"),
                    {"role": "assistant", "contents": [request("r")]},
                    {"role": "user", "contents": [response("r")]}
                ]),
                false
            ),
            vec![("requests-answered", 1, "r".into())]
        );
    }

    #[test]
    fn allow_pending_relaxes_only_the_newest_turn() {
        let h = json!([
            user("q1"),
            {"role": "assistant", "contents": [{"$type": "toolApprovalRequest", "requestId": "old"}]},
            user("q2"),
            {"role": "assistant", "contents": [call("c"), {"$type": "toolApprovalRequest", "requestId": "new"}]}
        ]);
        assert_eq!(
            check(h.clone(), true),
            vec![("requests-answered", 1, "old".into())]
        );
        assert_eq!(
            check(h, false),
            vec![
                ("requests-answered", 1, "old".into()),
                ("calls-answered", 3, "c".into()),
                ("requests-answered", 3, "new".into())
            ]
        );
    }

    #[test]
    fn seed_example_is_valid_and_take_last_four_is_not() {
        let h = json!([
            user("Check order 42 and its shipment."),
            {"role": "assistant", "contents": [call("order-1"), call("shipment-1")]},
            {"role": "tool", "contents": [result("order-1")]},
            {"role": "tool", "contents": [result("shipment-1")]},
            {"role": "assistant", "contents": [{"$type": "text", "text": "Your order has shipped."}]},
            user("When should it arrive?")
        ]);
        assert!(check(h.clone(), false).is_empty());
        let last4 = Value::Array(h.as_array().unwrap()[2..].to_vec());
        assert_eq!(
            check(last4, false),
            vec![
                ("result-follows-call", 0, "order-1".into()),
                ("result-follows-call", 1, "shipment-1".into())
            ]
        );
    }
}
