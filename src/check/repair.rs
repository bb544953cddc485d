//! The clauses of policy `repair` (spec §17.3–§17.4): `repair-valid`,
//! `no-unanswered-call`, `repair-keeps-whole`, `repair-keeps-content`
//! and, under `--declare complete-calls`, `completes-calls`; and how
//! `system-pinned` and `provider-accepts` read a repair. Judged from the
//! definition of what is whole and well placed
//! ([`crate::terms::repair`]), never from the reference reducer.

use super::safety::item_name;
use super::{fail, not_judged, Judge, Outcome, OutputState};
use crate::formats::Format;
use crate::json::json_eq;
use crate::terms::links::{attached_reasoning, continues_call_group};
use crate::terms::provider::provider_violations;
use crate::terms::repair::{first_unanswered, is_pairing, repair, Repair};
use crate::terms::{ItemKind, MessageView, Role};
use crate::validate::{validate_history, Options};
use serde_json::Value;

impl Judge<'_> {
    /// What a repair keeps of the input (spec §17.2), computed once.
    pub(super) fn repair_plan(&self) -> &Repair {
        self.lazy.repair.get_or_init(|| repair(self.in_h))
    }

    /// `item_name` with the item's id: `call "a"`.
    fn named(&self, m: usize, t: usize) -> String {
        let it = self.in_h.items(m)[t];
        let name = item_name(it.kind)
            .trim_start_matches("a ")
            .trim_start_matches("an ");
        format!("{name} {:?}", self.in_h.id(it.id))
    }

    /// `repair-valid`: the output passes the validator strictly.
    pub(super) fn repair_valid(&self, out: &OutputState) -> Outcome {
        if let Some(k) = (0..out.h.len()).find(|&k| out.h.view(k).is_unreadable()) {
            return fail(format!(
                "output message {k} cannot be read as a {} message",
                self.req.format
            ));
        }
        match validate_history(out.h, Options::default()).first() {
            None => Outcome::Pass,
            Some(v) => fail(format!("the output breaks {v}")),
        }
    }

    /// `no-unanswered-call`: no call of the output lacks its result in the
    /// tool messages right after it, no approval request its response
    /// before the next turn start.
    pub(super) fn no_unanswered_call(&self, out: &OutputState) -> Outcome {
        match first_unanswered(out.h) {
            None => Outcome::Pass,
            Some((k, t)) => {
                let it = out.h.items(k)[t];
                let id = out.h.id(it.id);
                fail(if it.kind == ItemKind::Call {
                    format!(
                        "output message {k}: call {id:?} has no result in the tool messages right after its message"
                    )
                } else {
                    format!(
                        "output message {k}: approval request {id:?} has no response before the next turn start"
                    )
                })
            }
        }
    }

    /// The JSON value of item `t` of input message `m`: its element of the
    /// items array, or (OpenAI) its `tool_calls` entry.
    fn item_value(&self, m: usize, t: usize) -> Option<&Value> {
        let items = self.in_h.items(m);
        let msg = &self.req.messages[m];
        match items[t].elem() {
            Some(e) => msg.get(self.req.format.items_key())?.get(e),
            None if self.req.format == Format::OpenAi && items[t].kind == ItemKind::Call => {
                let k = items[..t]
                    .iter()
                    .filter(|it| it.kind == ItemKind::Call && it.elem().is_none())
                    .count();
                msg.get("tool_calls")?.get(k)
            }
            None => None,
        }
    }

    /// Whether item `t` of input message `j` is in the output: `j` is
    /// kept and the item not taken out of it, or an equal input message
    /// the repair drops is kept in place of `j`, or an equal item of `j`
    /// the repair takes out stands in its place (equal messages and
    /// elements are indistinguishable: the mapping matches them first come
    /// first).
    fn item_in_output(&self, out: &OutputState, j: usize, t: usize) -> bool {
        let plan = self.repair_plan();
        if !out.mapping.kept[j] {
            // An input message equal to this one, kept in its place.
            let msgs = self.req.messages;
            return (0..msgs.len()).any(|j2| {
                j2 != j
                    && out.mapping.kept[j2]
                    && !plan.keeps_message(j2)
                    && !out.mapping.removed(j2).contains(&t)
                    && json_eq(&msgs[j2], &msgs[j])
            });
        }
        let removed = out.mapping.removed(j);
        if !removed.contains(&t) {
            return true;
        }
        let base = self.in_h.view(j).item_range().start;
        let mine = self.item_value(j, t);
        (0..self.in_h.items(j).len()).any(|u| {
            u != t
                && !removed.contains(&u)
                && !plan.keeps_item(base + u)
                && matches!((mine, self.item_value(j, u)), (Some(a), Some(b)) if json_eq(a, b))
        })
    }

    /// `repair-keeps-whole`: every item the repair keeps (spec §17.2) of
    /// a kind it may remove is in the output.
    pub(super) fn repair_keeps_whole(&self, out: &OutputState) -> Outcome {
        let plan = self.repair_plan();
        for j in 0..self.in_h.len() {
            if !plan.keeps_message(j) {
                continue;
            }
            let base = self.in_h.view(j).item_range().start;
            for (t, it) in self.in_h.items(j).iter().enumerate() {
                if !is_pairing(it.kind) || !plan.keeps_item(base + t) {
                    continue;
                }
                if self.item_in_output(out, j, t) {
                    continue;
                }
                let how = if out.mapping.kept[j] {
                    format!("the output takes it out of input message {j}")
                } else {
                    format!("the output drops input message {j}")
                };
                return fail(format!(
                    "input message {j}: {} is whole and well placed, but {how}",
                    self.named(j, t)
                ));
            }
        }
        Outcome::Pass
    }

    /// `repair-keeps-content`: an input message that holds anything but
    /// calls, results and approval items, or nothing, is kept, but for an
    /// attached reasoning item whose item is not.
    pub(super) fn repair_keeps_content(&self, out: &OutputState) -> Outcome {
        for j in 0..self.in_h.len() {
            if out.mapping.kept[j] {
                continue;
            }
            let items = self.in_h.items(j);
            let what = if items.is_empty() {
                "no item"
            } else if let Some(it) = items.iter().find(|it| !is_pairing(it.kind)) {
                if it.kind == ItemKind::Text {
                    "text"
                } else {
                    "an item that is not a call, result or approval item"
                }
            } else {
                continue;
            };
            // An attached reasoning item goes with its item (spec §14.6).
            if attached_reasoning(self.in_h, j) && !out.mapping.kept[j + 1] {
                continue;
            }
            return fail(format!(
                "input message {j} holds {what} and is dropped: a repair drops only messages left with no item"
            ));
        }
        Outcome::Pass
    }

    /// `system-pinned` under `repair`: not judged when the repair itself
    /// drops the pinned message (it held only broken approval items).
    pub(super) fn repair_drops_pinned(&self) -> bool {
        self.pinned
            .is_some_and(|p| !self.repair_plan().keeps_message(p))
    }

    /// `provider-accepts` under `repair` (spec §17.5): judged when the
    /// repair of the input (spec §17.2) passes the profile, whatever the
    /// input does.
    pub(super) fn repair_provider_gate(&self) -> Option<Outcome> {
        let given = self.provider_given?;
        let plan = self.repair_plan();
        let views: Vec<MessageView> = plan
            .kept_messages()
            .into_iter()
            .map(|j| {
                let mut v = self.in_views[j].clone();
                let removed = plan.removed(self.in_h, j);
                v.items = v
                    .items
                    .into_iter()
                    .enumerate()
                    .filter(|(t, _)| !removed.contains(t))
                    .map(|(_, i)| i)
                    .collect();
                v
            })
            .collect();
        provider_violations(given, &views).first().map(|v| {
            not_judged(format!(
                "the repair of the input does not pass the {given} profile ({v})"
            ))
        })
    }

    /// `completes-calls` (spec §17.4): every output message that comes
    /// from no input message is a completion of a call the repair would
    /// remove, right after it.
    pub(super) fn completes_calls(&self, out: &OutputState) -> Outcome {
        let plan = self.repair_plan();
        for (k, m) in out.mapping.map.iter().enumerate() {
            if m.is_some() {
                continue;
            }
            if !out.is_completion(k) {
                return fail(format!(
                    "output message {k} comes from no input message and is no completion: a completion is a tool message holding only results"
                ));
            }
            for (t, it) in out.h.items(k).iter().enumerate() {
                let id = out.h.id(it.id);
                let Some((c, ct)) = out.pairing.partner(out.h, k, t) else {
                    return fail(format!(
                        "output message {k}: result {id:?} answers no call of the output"
                    ));
                };
                let Some(j) = out.mapping.map[c] else {
                    return fail(format!(
                        "output message {k}: result {id:?} answers output message {c}, which is no input message"
                    ));
                };
                // The input item of the call: the ct-th item of j left.
                let removed = out.mapping.removed(j);
                let Some(jt) = (0..self.in_h.items(j).len())
                    .filter(|u| !removed.contains(u))
                    .nth(ct)
                else {
                    continue;
                };
                if plan.keeps_item(self.in_h.view(j).item_range().start + jt) {
                    return fail(format!(
                        "output message {k} completes call {id:?} of input message {j}, which the input answers where it should: a completion answers only a call the repair would remove"
                    ));
                }
                if let Some(b) = (c + 1..k)
                    .find(|&b| out.h.role(b) != Role::Tool && !continues_call_group(out.h, b))
                {
                    return fail(format!(
                        "output message {k} completes call {id:?} (output message {c}) but not right after it: output message {b} comes between"
                    ));
                }
            }
        }
        Outcome::Pass
    }
}
