//! Safety-level clauses (semantics §6.3), the same for every policy:
//! `budget`, `system-pinned`, `no-fabrication`, `no-orphan-result`,
//! `no-orphan-approval`, `calls-keep-results`, `valid-output` and
//! `rejects-bad-budget` (`deterministic` is judged with the other
//! comparisons of responses, in [`super::metamorphic`]).

use super::{fail, not_judged, preview, Judge, Outcome, OutputState};
use crate::json::first_difference;
use crate::protocol::Response;
use crate::terms::{pair, ItemKind, MessageView, Role};
use crate::validate::{validate, Options};

impl Judge<'_> {
    pub(super) fn rejects_bad_budget(&self) -> Outcome {
        match (&self.budget, self.response) {
            (Ok(_), _) => not_judged("the budget is valid"),
            (Err(_), Response::Error(_)) => Outcome::Pass,
            (Err(_), Response::Messages(m)) => fail(format!(
                "maxMessages {} was answered with {} messages instead of an error",
                self.req.max_messages,
                m.len()
            )),
        }
    }

    pub(super) fn kept_non_pinned(&self, out: &OutputState) -> usize {
        out.messages.len() - usize::from(out.mapping.out_pinned.is_some())
    }

    pub(super) fn budget_clause(&self, out: &OutputState, budget: usize) -> Outcome {
        let n = self.kept_non_pinned(out);
        if n <= budget {
            Outcome::Pass
        } else {
            fail(format!(
                "{n} messages besides the pinned system message, budget {budget}"
            ))
        }
    }

    pub(super) fn system_pinned(&self, out: &OutputState) -> Outcome {
        let Some(p) = self.pinned else {
            return not_judged("the input has no system message");
        };
        if out.mapping.out_pinned.is_some() {
            return Outcome::Pass;
        }
        match out.views.iter().position(|v| v.as_ref().is_some_and(|v| v.role == Role::System)) {
            None => fail(format!("the pinned system message (input message {p}) is missing")),
            Some(k) => fail(format!(
                "the output's first system message (output message {k}) is not the pinned one (input message {p}): differs at {}",
                first_difference(&self.req.messages[p], &out.messages[k]).unwrap_or_default()
            )),
        }
    }

    pub(super) fn no_fabrication(&self, out: &OutputState) -> Outcome {
        match out.mapping.map.iter().position(Option::is_none) {
            None => Outcome::Pass,
            Some(k) => fail(format!(
                "output message {k} is not an input message (or is out of order, or repeated): {}",
                preview(&out.messages[k])
            )),
        }
    }

    pub(super) fn no_orphan(
        &self,
        out: &OutputState,
        kind: ItemKind,
        what: &str,
        partner: &str,
    ) -> Outcome {
        let views: Vec<MessageView> = out
            .views
            .iter()
            .map(|v| {
                v.clone().unwrap_or(MessageView {
                    role: Role::Other,
                    role_text: String::new(),
                    items: Vec::new(),
                })
            })
            .collect();
        let all: Vec<usize> = (0..views.len()).collect();
        let paired = pair(&views, &all);
        for (k, v) in views.iter().enumerate() {
            for (t, item) in v.items.iter().enumerate() {
                if item.kind == kind && paired[k][t].is_none() {
                    return fail(format!(
                        "output message {k}: {what} {:?} has no {partner} earlier in the output",
                        item.id
                    ));
                }
            }
        }
        Outcome::Pass
    }

    pub(super) fn calls_keep_results(&self, out: &OutputState) -> Outcome {
        for (k, m) in out.mapping.map.iter().enumerate() {
            let Some((j, _)) = m else { continue };
            for (t, item) in self.in_views[*j].items.iter().enumerate() {
                if !matches!(item.kind, ItemKind::Call | ItemKind::ApprovalRequest) {
                    continue;
                }
                if let Some((pm, pt)) = self.partner[*j][t] {
                    if !out.mapping.kept[pm] || out.mapping.removed[pm].contains(&pt) {
                        let (what, answer) = if item.kind == ItemKind::Call {
                            ("call", "result")
                        } else {
                            ("approval request", "response")
                        };
                        return fail(format!(
                            "output message {k} keeps {what} {:?} but its {answer} (input message {pm}) was dropped",
                            item.id
                        ));
                    }
                }
            }
        }
        Outcome::Pass
    }

    pub(super) fn valid_output(&self, out: &OutputState) -> Outcome {
        let allow_pending = if self.input_valid_strict {
            false
        } else if self.input_valid_pending {
            true
        } else {
            return not_judged(format!(
                "the input is not valid ({})",
                self.first_input_violation.as_deref().unwrap_or("?")
            ));
        };
        let mut views = Vec::with_capacity(out.views.len());
        for (k, v) in out.views.iter().enumerate() {
            match v {
                Some(v) => views.push(v.clone()),
                None => {
                    return fail(format!(
                        "output message {k} cannot be read as a {} message",
                        self.req.format
                    ))
                }
            }
        }
        match validate(&views, Options { allow_pending }).first() {
            None => Outcome::Pass,
            Some(v) => fail(format!("the output breaks {v}")),
        }
    }

    /// Input message `j` was legitimately dropped by orphan removal: it has
    /// items, all results / approval responses, none of whose partners is
    /// kept in the output.
    pub(super) fn explainable_drop(&self, out: &OutputState, j: usize) -> bool {
        let v = &self.in_views[j];
        !v.items.is_empty()
            && v.items.iter().enumerate().all(|(t, item)| {
                item.kind.is_removable()
                    && self.partner[j][t].is_none_or(|(pm, _)| !out.mapping.kept[pm])
            })
    }
}
