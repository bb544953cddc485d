//! The construction of one history (see the module doc of
//! [`super`]): a fixed order of private steps over an
//! [`arbitrary::Unstructured`], every count drawn by a helper that gives
//! its smallest choice when the bytes run out; then a budget drawn around
//! the edges of the history.

mod content;

use content::object;

use super::Config;
use crate::formats::{read_history, Format};
use crate::terms::links::continues_call_group;
use crate::terms::{History, ItemKind, Role};
use arbitrary::{Arbitrary, Unstructured};
use serde_json::{json, Value};

/// The messages of one history under `cfg` (already swarm-drawn and
/// sanitized), built from `u`.
pub(super) fn messages(u: &mut Unstructured, cfg: &Config) -> arbitrary::Result<Vec<Value>> {
    let mut b = Builder {
        u,
        cfg,
        msgs: Vec::new(),
        safe: Vec::new(),
        first_system: None,
        fresh_calls: 0,
        fresh_requests: 0,
        fresh_messages: 0,
        answered: Vec::new(),
        answered_requests: Vec::new(),
        call_ids: Vec::new(),
        request_ids: Vec::new(),
    };
    b.build()?;
    Ok(b.msgs)
}

/// Draws a budget around the edges of `messages` (canonical, readable),
/// counted in the messages of `format` (a Responses item per call; every
/// other format counts canonical messages).
pub(super) fn draw_budget(
    u: &mut Unstructured,
    messages: &[Value],
    reading: &mut Option<History>,
    format: Format,
) -> arbitrary::Result<usize> {
    let wire = match format {
        Format::Responses => crate::formats::responses::to_responses(messages).ok(),
        _ => None,
    };
    let wire_reading;
    let history = match &wire {
        Some(items) => {
            wire_reading =
                read_history(Format::Responses, items).expect("generated histories are readable");
            &wire_reading
        }
        None => super::canonical(reading, messages),
    };
    let n = history.rest_len();
    let all = history.turn_spans();
    let mut boundaries = Vec::new();
    let mut total = 0;
    for t in all.iter().skip(1).rev() {
        total += history.count_in(t.start, t.end);
        boundaries.push(total);
    }
    let top = n.max(1);
    let pick = |u: &mut Unstructured, xs: &[usize]| -> arbitrary::Result<usize> {
        Ok(if xs.is_empty() {
            top
        } else {
            xs[u.int_in_range(0..=xs.len() - 1)?]
        })
    };
    let budget = match u.int_in_range(0..=7u8)? {
        0 => top,
        1 => n + 1 + u.int_in_range(0..=top)?,
        2 => 1,
        3 => n.saturating_sub(1).max(1),
        4 => pick(u, &boundaries)?,
        5 => {
            let b = pick(u, &boundaries)?;
            if bool::arbitrary(u)? {
                b + 1
            } else {
                b.saturating_sub(1).max(1)
            }
        }
        6 => u.int_in_range(1..=top)?,
        _ => {
            // A cut inside a tool exchange or an approval flow: the newest
            // messages from one right after a call or approval request up
            // to its answer (one more for a `turns` question beside them);
            // in an approval flow, half the time, from a message a `suffix`
            // may start at (what waits beside the requests).
            let (calls, approvals) = inside_exchanges(history);
            let from = if !approvals.is_empty() && (calls.is_empty() || bool::arbitrary(u)?) {
                Some(approvals[u.int_in_range(0..=approvals.len() - 1)?])
            } else if !calls.is_empty() {
                // Where calls are items of their own (Responses), half the
                // time at a call that continues a call group (spec §14.5).
                let groups: Vec<usize> = calls
                    .iter()
                    .copied()
                    .filter(|&i| continues_call_group(history, i))
                    .collect();
                let pool = if !groups.is_empty() && bool::arbitrary(u)? {
                    &groups
                } else {
                    &calls
                };
                Some(pool[u.int_in_range(0..=pool.len() - 1)?])
            } else {
                None
            };
            match from {
                None => top,
                Some(from) => {
                    history.count_in(from, history.len()) + usize::from(bool::arbitrary(u)?)
                }
            }
        }
    };
    Ok(budget)
}

/// The messages of `h` that come after a message holding a call and no
/// later than the message of its result; and those after a message
/// holding an approval request and before its response that are neither
/// tool nor approval-only messages (where a `suffix` run may start, leaving
/// the responses after it without their requests). Both ascending, the
/// pinned message left out.
fn inside_exchanges(h: &History) -> (Vec<usize>, Vec<usize>) {
    let pairing = h.pairing();
    let mut inside = [vec![false; h.len()], vec![false; h.len()]];
    for m in 0..h.len() {
        for (t, item) in h.items(m).iter().enumerate() {
            let (which, last) = match item.kind {
                ItemKind::Call => (0, 0),
                ItemKind::ApprovalRequest => (1, 1),
                _ => continue,
            };
            if let Some(a) = pairing.partner_message(h, m, t) {
                for x in inside[which].iter_mut().take(a + 1 - last).skip(m + 1) {
                    *x = true;
                }
            }
        }
    }
    let pick = |which: usize| -> Vec<usize> {
        (0..h.len())
            .filter(|&i| inside[which][i] && Some(i) != h.pinned())
            .filter(|&i| which == 0 || (h.role(i) != Role::Tool && !h.view(i).is_approval_only()))
            .collect()
    };
    (pick(0), pick(1))
}

/// The state of one history under construction.
struct Builder<'c, 'u, 'd> {
    u: &'u mut Unstructured<'d>,
    cfg: &'c Config,
    msgs: Vec<Value>,
    /// Message counts at which no call is unanswered: where a system
    /// message may be inserted.
    safe: Vec<usize>,
    /// Index of the first system message pushed.
    first_system: Option<usize>,
    fresh_calls: u32,
    fresh_requests: u32,
    fresh_messages: u32,
    /// Call ids whose calls are answered (or never made), free for reuse.
    answered: Vec<String>,
    /// Approval request ids whose requests are answered, free for reuse.
    answered_requests: Vec<String>,
    /// Every fresh call id drawn, in order (a new one is never one of
    /// them; a reused one is drawn apart).
    call_ids: Vec<String>,
    /// Every fresh approval request id drawn, in order.
    request_ids: Vec<String>,
}

type R<T> = arbitrary::Result<T>;

/// One tool step in this many, where `results_beside_text` is on, ends
/// with the user's text beside its last results.
const RESULTS_BESIDE_TEXT_ODDS: u32 = 16;

/// One approval request under construction: request id, the call it asks
/// about, that call's id.
struct Request {
    id: String,
    call: Value,
    call_id: String,
}

impl Builder<'_, '_, '_> {
    // ---- bounded draws: each gives its smallest choice when bytes run out.

    /// 0..=max.
    fn upto(&mut self, max: usize) -> R<usize> {
        if max == 0 {
            Ok(0)
        } else {
            self.u.int_in_range(0..=max)
        }
    }

    /// 0 with probability about 1/(odds+1) (and when bytes run out), else
    /// 1..=max.
    fn count(&mut self, max: usize, odds: u32) -> R<usize> {
        if max > 0 && self.chance(odds, odds + 1)? {
            Ok(1 + self.upto(max - 1)?)
        } else {
            Ok(0)
        }
    }

    /// True with probability about num/den; false when bytes run out.
    fn chance(&mut self, num: u32, den: u32) -> R<bool> {
        Ok(self.u.int_in_range(0..=den - 1)? >= den - num)
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> R<T> {
        Ok(xs[self.upto(xs.len() - 1)?])
    }

    fn shuffle<T>(&mut self, xs: &mut [T]) -> R<()> {
        for i in (1..xs.len()).rev() {
            let j = self.upto(i)?;
            xs.swap(i, j);
        }
        Ok(())
    }

    // ---- the fixed order of steps.

    fn build(&mut self) -> R<()> {
        self.safe.push(0);
        if self.cfg.leading_segment && self.chance(1, 3)? {
            self.body(false)?;
            if self.msgs.is_empty() {
                self.assistant_text()?;
                self.safe.push(self.msgs.len());
            }
        }
        let turns = self.count(self.cfg.max_turns, 7)?;
        for _ in 0..turns {
            self.question()?;
            self.safe.push(self.msgs.len());
            self.body(true)?;
        }
        if self.cfg.pending
            && (turns > 0 || !self.msgs.is_empty() || self.cfg.leading_segment)
            && self.chance(1, 2)?
        {
            self.pending_tail()?;
        }
        self.pinned()
    }

    /// The steps of a turn after its question (or of the leading segment).
    fn body(&mut self, question: bool) -> R<()> {
        let steps = self.count(self.cfg.max_steps, 3)?;
        let mut tool_steps = 0;
        for _ in 0..steps {
            match self.upto(5)? {
                1 | 2 if self.cfg.tool_calls && (self.cfg.multi_step || tool_steps == 0) => {
                    self.tool_step()?;
                    tool_steps += 1;
                }
                3 if self.cfg.approvals => self.approval_flow()?,
                4 if self.cfg.later_system => self.system_message()?,
                _ => self.assistant_text()?,
            }
            self.safe.push(self.msgs.len());
        }
        if (question || steps > 0) && self.chance(2, 3)? {
            self.assistant_text()?;
            self.safe.push(self.msgs.len());
        }
        Ok(())
    }

    fn question(&mut self) -> R<()> {
        let mut contents = vec![self.text_item()?];
        if self.cfg.opaque_contents && self.chance(1, 6)? {
            let o = self.opaque_item()?;
            if self.chance(1, 2)? {
                contents.insert(0, o);
            } else {
                contents.push(o);
            }
        }
        if self.chance(1, 10)? {
            contents.push(self.text_item()?);
        }
        self.push(Role::User, contents)
    }

    /// Maybe a reasoning item (an assistant message of one `reasoning`
    /// item) before the assistant message about to be pushed; draws nothing
    /// without `reasoning_items`.
    fn maybe_reasoning(&mut self) -> R<()> {
        if !(self.cfg.reasoning_items && self.chance(1, 4)?) {
            return Ok(());
        }
        self.fresh_messages += 1;
        let mut item = json!({"$type": "reasoning", "id": format!("rs_{}", self.fresh_messages),
                              "summary": [{"type": "summary_text", "text": self.text()?}]});
        if self.chance(1, 2)? {
            item["encrypted_content"] = json!("gAAAAB-opaque");
        }
        self.msgs.push(object([
            ("role", Value::from("assistant")),
            ("contents", Value::Array(vec![item])),
        ]));
        Ok(())
    }

    fn assistant_text(&mut self) -> R<()> {
        self.maybe_reasoning()?;
        let mut contents = Vec::new();
        if self.cfg.opaque_contents && self.chance(1, 6)? {
            contents.push(self.opaque_item()?);
        }
        contents.push(self.text_item()?);
        self.push(Role::Assistant, contents)
    }

    fn system_message(&mut self) -> R<()> {
        let contents = vec![self.system_text_item()?];
        self.push(Role::System, contents)
    }

    /// Text (and maybe an opaque item) to put before calls.
    fn beside_calls(&mut self) -> R<Vec<Value>> {
        let mut v = Vec::new();
        if self.cfg.text_beside_calls && self.chance(1, 3)? {
            v.push(self.text_item()?);
            if self.cfg.opaque_contents && self.chance(1, 4)? {
                v.push(self.opaque_item()?);
            }
        }
        Ok(v)
    }

    /// An assistant message with 1..=max_parallel_calls calls, then all
    /// their results.
    fn tool_step(&mut self) -> R<()> {
        let k = 1 + self.upto(self.cfg.max_parallel_calls - 1)?;
        let mut ids = Vec::with_capacity(k);
        for _ in 0..k {
            let id = self.new_call_id(&ids)?;
            ids.push(id);
        }
        let mut contents = self.beside_calls()?;
        for id in &ids {
            contents.push(self.call_item(id)?);
        }
        self.maybe_reasoning()?;
        self.push(Role::Assistant, contents)?;
        self.results(&ids)?;
        self.answered.extend(ids);
        Ok(())
    }

    /// Tool messages answering `ids`: maybe in another order, one result
    /// per message or batched.
    fn results(&mut self, ids: &[String]) -> R<()> {
        let mut order = ids.to_vec();
        if self.cfg.shuffled_results && order.len() > 1 && self.chance(1, 3)? {
            self.shuffle(&mut order)?;
        }
        let mut i = 0;
        while i < order.len() {
            let rest = order.len() - i;
            let size = if self.cfg.batched_results && rest > 1 && self.chance(1, 3)? {
                2 + self.upto(rest - 2)?
            } else {
                1
            };
            let mut items = Vec::with_capacity(size);
            for id in &order[i..i + size] {
                items.push(self.result_item(id)?);
            }
            // The user's text after the step's last results, in the same
            // message (Anthropic, Bedrock, Gemini: spec §1.6).
            if self.cfg.results_beside_text
                && i + size == order.len()
                && self.chance(1, RESULTS_BESIDE_TEXT_ODDS)?
            {
                items.push(self.text_item()?);
            }
            self.push(Role::Tool, items)?;
            i += size;
        }
        Ok(())
    }

    /// 1..=max_approval_requests requests, all new or all legacy (drawn,
    /// or `legacy` when given); their ids differ from `siblings`, the
    /// requests still open in the same flow.
    fn requests(&mut self, legacy: Option<bool>, siblings: &[String]) -> R<(Vec<Request>, bool)> {
        let r = 1 + self.upto(self.cfg.max_approval_requests - 1)?;
        let legacy = match legacy {
            Some(l) => l,
            None => self.cfg.legacy_approvals && self.chance(1, 3)?,
        };
        let mut out: Vec<Request> = Vec::with_capacity(r);
        let mut calls: Vec<String> = Vec::with_capacity(r);
        for _ in 0..r {
            let call_id = self.new_call_id(&calls)?;
            calls.push(call_id.clone());
            let call = self.call_item(&call_id)?;
            let open: Vec<String> = siblings
                .iter()
                .cloned()
                .chain(out.iter().map(|q| q.id.clone()))
                .collect();
            let id = if self.chance(1, 3)? && !open.contains(&call_id) {
                call_id.clone()
            } else {
                self.new_request_id(&open)?
            };
            out.push(Request { id, call, call_id });
        }
        Ok((out, legacy))
    }

    // The items below are built with `object` and clones, not `json!`,
    // which would copy the call by serializing it (`to_value`): the same
    // values.
    fn request_item(legacy: bool, r: &Request) -> Value {
        let id = Value::String(r.id.clone());
        if legacy {
            object([
                ("$type", json!("functionApprovalRequest")),
                ("id", id),
                ("functionCall", r.call.clone()),
            ])
        } else {
            object([
                ("$type", json!("toolApprovalRequest")),
                ("requestId", id),
                ("toolCall", r.call.clone()),
            ])
        }
    }

    fn response_item(&mut self, legacy: bool, r: &Request, approved: bool) -> R<Value> {
        let id = Value::String(r.id.clone());
        Ok(if legacy {
            object([
                ("$type", json!("functionApprovalResponse")),
                ("id", id),
                ("approved", Value::Bool(approved)),
                ("functionCall", r.call.clone()),
            ])
        } else {
            let mut v = object([
                ("$type", json!("toolApprovalResponse")),
                ("requestId", id),
                ("approved", Value::Bool(approved)),
                ("toolCall", r.call.clone()),
            ]);
            if !approved && self.chance(1, 2)? {
                v["reason"] = Value::String(self.text()?);
            }
            v
        })
    }

    /// Approval-only user messages answering `reqs[i]` for `i` in `which`
    /// (in one message, or one message each).
    fn responses(
        &mut self,
        legacy: bool,
        reqs: &[Request],
        which: &[usize],
        approved: &[bool],
    ) -> R<()> {
        let mut order = which.to_vec();
        if order.len() > 1 && self.chance(1, 3)? {
            self.shuffle(&mut order)?;
        }
        let split = if self.cfg.mixed_tool_messages {
            order.len() > 1 && self.chance(1, 2)?
        } else {
            true
        };
        let mut items = Vec::new();
        for &i in &order {
            items.push(self.response_item(legacy, &reqs[i], approved[i])?);
            if split {
                self.push(Role::User, std::mem::take(&mut items))?;
            }
        }
        if !items.is_empty() {
            self.push(Role::User, items)?;
        }
        Ok(())
    }

    /// A complete approval flow: requests (maybe beside calls, whose results
    /// follow), maybe a wait (assistant texts, no request answered yet),
    /// sometimes a second round of requests while the first still waits,
    /// the responses to every request, then maybe the approved calls and
    /// their results.
    fn approval_flow(&mut self) -> R<()> {
        let (mut reqs, legacy) = self.requests(None, &[])?;
        self.request_message(legacy, &reqs)?;
        self.approval_wait()?;
        // A second round: more often where each request is a message of
        // its own (and a flow has one request without it).
        let second = if self.cfg.mixed_tool_messages { 3 } else { 2 };
        if self.chance(1, second)? {
            let open: Vec<String> = reqs.iter().map(|r| r.id.clone()).collect();
            let (more, _) = self.requests(Some(legacy), &open)?;
            self.request_message(legacy, &more)?;
            reqs.extend(more);
            self.approval_wait()?;
        }
        let mut approved = Vec::with_capacity(reqs.len());
        for _ in 0..reqs.len() {
            approved.push(bool::arbitrary(self.u)?);
        }
        let all: Vec<usize> = (0..reqs.len()).collect();
        self.responses(legacy, &reqs, &all, &approved)?;
        let yes: Vec<usize> = all.iter().copied().filter(|&i| approved[i]).collect();
        if self.cfg.tool_calls && !yes.is_empty() && self.chance(3, 4)? {
            let contents = yes.iter().map(|&i| reqs[i].call.clone()).collect();
            self.maybe_reasoning()?;
            self.push(Role::Assistant, contents)?;
            let ids: Vec<String> = yes.iter().map(|&i| reqs[i].call_id.clone()).collect();
            self.results(&ids)?;
        }
        self.answered_requests
            .extend(reqs.iter().map(|r| r.id.clone()));
        self.answered.extend(reqs.into_iter().map(|r| r.call_id));
        Ok(())
    }

    /// The message (or, without `mixed_tool_messages`, the messages) of
    /// `reqs`: with `mixed_tool_messages` maybe a text before them and
    /// calls beside them, whose results follow.
    fn request_message(&mut self, legacy: bool, reqs: &[Request]) -> R<()> {
        if !self.cfg.mixed_tool_messages {
            return self.separate_requests(legacy, reqs);
        }
        let mut mixed = Vec::new();
        let mut contents = Vec::new();
        if self.chance(1, 2)? {
            contents.push(self.text_item()?);
        }
        contents.extend(reqs.iter().map(|r| Self::request_item(legacy, r)));
        if self.cfg.tool_calls && self.chance(1, 5)? {
            for _ in 0..1 + self.upto(1)? {
                let id = self.new_call_id(&mixed)?;
                mixed.push(id);
            }
        }
        for id in &mixed {
            contents.push(self.call_item(id)?);
        }
        self.push(Role::Assistant, contents)?;
        if !mixed.is_empty() {
            self.results(&mixed)?;
            self.answered.extend(mixed);
        }
        Ok(())
    }

    /// While approval requests wait: often nothing, else one or two
    /// assistant texts (a suffix may start there, leaving the responses
    /// that follow without their requests).
    fn approval_wait(&mut self) -> R<()> {
        if self.chance(1, 2)? {
            for _ in 0..1 + self.upto(1)? {
                self.assistant_text()?;
            }
        }
        Ok(())
    }

    /// Each approval request alone in an assistant message (maybe after a
    /// reasoning item): the shape without `mixed_tool_messages`.
    fn separate_requests(&mut self, legacy: bool, reqs: &[Request]) -> R<()> {
        for r in reqs {
            self.maybe_reasoning()?;
            self.push(Role::Assistant, vec![Self::request_item(legacy, r)])?;
        }
        Ok(())
    }

    /// Unanswered calls and/or requests at the very end (newest turn):
    /// an assistant message with requests and/or calls (without
    /// `mixed_tool_messages`: each request alone, then the calls), then
    /// results for only some calls, or responses for only some requests.
    fn pending_tail(&mut self) -> R<()> {
        let want_requests = self.cfg.approvals && self.chance(1, 2)?;
        let want_calls = self.cfg.tool_calls && (!want_requests || self.chance(1, 2)?);
        if !want_requests && !want_calls {
            return Ok(());
        }
        let mut contents = self.beside_calls()?;
        let (reqs, legacy) = if want_requests {
            self.requests(None, &[])?
        } else {
            (Vec::new(), false)
        };
        if self.cfg.mixed_tool_messages {
            contents.extend(reqs.iter().map(|r| Self::request_item(legacy, r)));
        } else {
            self.separate_requests(legacy, &reqs)?;
        }
        let mut ids = Vec::new();
        if want_calls {
            for _ in 0..1 + self.upto(self.cfg.max_parallel_calls - 1)? {
                let id = self.new_call_id(&ids)?;
                ids.push(id);
            }
        }
        for id in &ids {
            contents.push(self.call_item(id)?);
        }
        if !contents.is_empty() || self.cfg.mixed_tool_messages {
            if !ids.is_empty() {
                self.maybe_reasoning()?;
            }
            self.push(Role::Assistant, contents)?;
        }
        if !ids.is_empty() {
            // Answer a strict subset; nothing but tool messages may follow.
            if self.cfg.shuffled_results && self.chance(1, 2)? {
                self.shuffle(&mut ids)?;
            }
            let m = self.upto(ids.len() - 1)?;
            return self.results(&ids[..m]);
        }
        if reqs.len() > 1 && self.chance(1, 2)? {
            let m = 1 + self.upto(reqs.len() - 2)?;
            let mut approved = Vec::with_capacity(reqs.len());
            for _ in 0..reqs.len() {
                approved.push(bool::arbitrary(self.u)?);
            }
            let which: Vec<usize> = (0..m).collect();
            self.responses(legacy, &reqs, &which, &approved)?;
        }
        if self.chance(1, 2)? {
            self.assistant_text()?;
        }
        Ok(())
    }

    /// The pinned system message: absent, first, or at a safe point after
    /// the first message and before any other system message.
    fn pinned(&mut self) -> R<()> {
        if !(self.cfg.pinned_system && self.chance(3, 4)?) {
            return Ok(());
        }
        let limit = self.first_system.unwrap_or(self.msgs.len());
        let mut pos = 0;
        if self.cfg.pinned_not_first && self.chance(1, 3)? {
            let mut candidates: Vec<usize> = self
                .safe
                .iter()
                .copied()
                .filter(|&p| p >= 1 && p <= limit)
                .collect();
            candidates.dedup();
            if !candidates.is_empty() {
                pos = self.pick(&candidates)?;
            }
        }
        let contents = vec![self.system_text_item()?];
        let msg = self.message(Role::System, contents)?;
        self.msgs.insert(pos, msg);
        Ok(())
    }
}
