//! The clauses of spec v2: `reasoning-attached` (§14.6) and
//! `provider-accepts` (§15.5), and what the policy clauses ask of a
//! provider profile (whether a cut the policy could have made passes it).

use super::{fail, not_judged, Judge, Outcome, OutputState};
use crate::formats::{view_history, view_message};
use crate::json::json_eq;
use crate::protocol::Response;
use crate::terms::links::{attached_reasoning, window};
use crate::terms::provider::{provider_violations, required_reasoning, server_id, ProviderRule};
use crate::terms::MessageView;
use serde_json::Value;

impl Judge<'_> {
    pub(super) fn reasoning_attached(&self, out: &OutputState) -> Outcome {
        let kept = &out.mapping.kept;
        for j in 0..self.in_h.len() {
            if attached_reasoning(self.in_h, j) && kept[j] != kept[j + 1] {
                let (k, d) = if kept[j] {
                    ("kept", "dropped")
                } else {
                    ("dropped", "kept")
                };
                // A kept item with a server id is one the provider knows
                // came after this reasoning item (spec §15.3).
                let rejected = match server_id(&self.req.messages[j + 1]) {
                    Some(id) if kept[j + 1] => format!(
                        "; it carries the server id {id:?}, which the openai-responses profile rejects without its reasoning item (required-reasoning)"
                    ),
                    _ => String::new(),
                };
                return fail(format!(
                    "the reasoning item at input message {j} is {k} while the item it is attached to (input message {}) is {d}{rejected}",
                    j + 1
                ));
            }
        }
        Outcome::Pass
    }

    pub(super) fn provider_accepts(&self, out: &OutputState) -> Outcome {
        let Some(given) = self.provider_given else {
            return not_judged("no provider profile");
        };
        if self.req.policy == crate::terms::Policy::Repair {
            if let Some(gate) = self.repair_provider_gate() {
                return gate;
            }
        } else if self.provider.is_none() {
            let first = provider_violations(given, &self.in_views)
                .first()
                .map(|v| v.to_string())
                .unwrap_or_default();
            return not_judged(format!(
                "the input does not pass the {given} profile ({first})"
            ));
        }
        let mut views = Vec::with_capacity(out.messages.len());
        for (k, m) in out.messages.iter().enumerate() {
            match view_message(self.req.format, m, k) {
                Ok(v) => views.push(v),
                Err(_) => {
                    return fail(format!(
                        "output message {k} cannot be read as a {} message",
                        self.req.format
                    ))
                }
            }
        }
        let mut broken = provider_violations(given, &views);
        if given.rules().contains(&ProviderRule::RequiredReasoning) {
            // The input is the stored conversation the request is made
            // from (spec §15.3, `required-reasoning`).
            let ids: Vec<Option<&str>> = self.req.messages.iter().map(server_id).collect();
            broken.extend(required_reasoning(&self.in_views, &ids, &out.mapping.map));
        }
        match broken.first() {
            None => Outcome::Pass,
            Some(v) => fail(format!("the {given} profile rejects the output: {v}")),
        }
    }

    /// Whether input message `j` is a turn start that fits the budget
    /// alone.
    fn fitting_turn_start(&self, j: usize) -> bool {
        let Ok(r) = &self.budget else {
            return false;
        };
        self.in_h.view(j).is_turn_start() && r.budget.cost(j) <= r.room
    }

    /// Whether M has a turn start that fits the budget alone (with a
    /// profile, the reference falls back on the newest such one alone,
    /// spec §15.4).
    pub(super) fn has_turn_start(&self) -> bool {
        self.rest().iter().any(|&j| self.fitting_turn_start(j))
    }

    /// Whether the cut keeping `selection` of M (plus the pinned message)
    /// passes the provider profile after orphan removal and the reasoning
    /// rule, and its `required-reasoning` rule against the input's server
    /// ids (spec §15.3, §15.4); true without a profile (or when the input
    /// breaks it).
    pub(super) fn profile_accepts_cut(&self, selection: &[usize]) -> bool {
        let Some(p) = self.provider else {
            return true;
        };
        let mut sel: Vec<usize> = selection.to_vec();
        sel.extend(self.pinned);
        sel.sort_unstable();
        let (sent, w): (Vec<Option<usize>>, Vec<MessageView>) = window(&self.in_views, &sel)
            .into_iter()
            .map(|(j, v)| (Some(j), v))
            .unzip();
        if !provider_violations(p, &w).is_empty() {
            return false;
        }
        // The stored conversation's rule (spec §15.3): a cut that sends an
        // item with its server id without its reasoning item is rejected.
        !p.rules().contains(&ProviderRule::RequiredReasoning) || {
            let ids: Vec<Option<&str>> = self.req.messages.iter().map(server_id).collect();
            required_reasoning(&self.in_views, &ids, &sent).is_empty()
        }
    }

    /// Whether the output is a provider profile's fallback (spec
    /// §15.4): with a profile, M's newest turn start that fits alone
    /// (besides the pinned message), not the last message of M.
    pub(super) fn is_profile_fallback(&self, out: &OutputState) -> bool {
        if self.provider.is_none() {
            return false;
        }
        let kept = self.kept_of_m(out);
        matches!((kept.as_slice(), self.newest_fitting_turn_start()), ([k], Some(u)) if *k == u && self.rest().last() != Some(&u))
    }

    /// M's newest turn start that fits the budget alone: what a profile
    /// falls back on (spec §15.4 step 3).
    pub(super) fn newest_fitting_turn_start(&self) -> Option<usize> {
        self.rest()
            .iter()
            .rev()
            .copied()
            .find(|&j| self.fitting_turn_start(j))
    }

    /// With a profile, whether the answer for the smaller budget is what the
    /// profile falls back on (spec §15.4): an error when M has no turn
    /// start, or M's newest turn start alone (besides system messages) when
    /// it is not the last message of M. `budget-monotone` does not judge
    /// those: the fallback is not a cut of the policy.
    pub(super) fn smaller_is_profile_fallback(&self, response: &Response) -> bool {
        let small = match response {
            // The smaller budget may leave no turn start that fits alone.
            Response::Error(_) => return true,
            Response::Unsupported(_) => return false,
            Response::Messages(small) => small,
        };
        let views = view_history(self.req.format, small).ok();
        let others: Vec<&Value> = small
            .iter()
            .enumerate()
            .filter(|(k, _)| {
                views
                    .as_ref()
                    .is_none_or(|v| v[*k].role != crate::terms::Role::System)
            })
            .map(|(_, m)| m)
            .collect();
        // A turn start alone, not the last message of M (which fits the
        // smaller budget depends on it, so any turn start is taken).
        let [m] = others.as_slice() else {
            return false;
        };
        self.rest().iter().any(|&u| {
            self.in_h.view(u).is_turn_start()
                && self.rest().last() != Some(&u)
                && json_eq(m, &self.req.messages[u])
        })
    }
}
