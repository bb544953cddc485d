//! Clauses judged by comparing the response with the input or with other
//! responses: `identity-when-fits` (the input), `deterministic` (the same
//! request again), `idempotent` (the output reduced again),
//! `budget-monotone` (a smaller budget) and `matches-reference` (the
//! reference reducer's answer, which the caller supplies in
//! [`Extras::reference`](super::Extras::reference): the checker never
//! reduces).

use super::mapping::embeds;
use super::{describe_difference, fail, not_judged, preview, Judge, Outcome, OutputState};
use crate::formats::view_history;
use crate::json::{first_difference, json_eq};
use crate::protocol::Response;
use serde_json::Value;

impl Judge<'_> {
    pub(super) fn deterministic(&self) -> Outcome {
        match &self.extras.repeat {
            None => not_judged("needs the response to a repeated request"),
            Some(r) if r.same_as(self.response) => Outcome::Pass,
            Some(r) => fail(format!(
                "the same request got a different response: {}",
                describe_difference(self.response, r)
            )),
        }
    }

    pub(super) fn matches_reference(&self) -> Outcome {
        let Some(reference) = &self.extras.reference else {
            return not_judged("needs the reference reducer's answer");
        };
        if reference.same_as(self.response) {
            Outcome::Pass
        } else {
            fail(format!(
                "differs from the reference: {}",
                describe_difference(reference, self.response)
            ))
        }
    }

    pub(super) fn identity_when_fits(&self, out: &OutputState, budget: usize) -> Outcome {
        if self.rest.len() > budget {
            return not_judged("the input does not fit the budget");
        }
        let (a, b) = (
            Value::Array(self.req.messages.to_vec()),
            Value::Array(out.messages.clone()),
        );
        match first_difference(&a, &b) {
            None => Outcome::Pass,
            Some(path) => fail(format!("the input fits but the output differs at {path}")),
        }
    }

    pub(super) fn idempotent(&self, out: &OutputState) -> Outcome {
        match &self.extras.again {
            None => not_judged("needs the response to the output reduced again"),
            Some(Response::Messages(m))
                if m.len() == out.messages.len()
                    && m.iter().zip(&out.messages).all(|(x, y)| json_eq(x, y)) =>
            {
                Outcome::Pass
            }
            Some(r) => fail(format!(
                "reducing the output again changed it: {}",
                describe_difference(&Response::Messages(out.messages.clone()), r)
            )),
        }
    }

    pub(super) fn budget_monotone(&self, out: &OutputState) -> Outcome {
        let Some((smaller, response)) = &self.extras.smaller else {
            return not_judged("needs the response for a smaller budget");
        };
        let Response::Messages(small) = response else {
            return fail(format!(
                "budget {smaller} was rejected: {}",
                describe_difference(self.response, response)
            ));
        };
        let Ok(big_views) = view_history(self.req.format, &out.messages) else {
            return not_judged("the output cannot be read");
        };
        // Latest embedding of the smaller output into the larger one.
        let mut bound = out.messages.len();
        for (k, m) in small.iter().enumerate().rev() {
            match (0..bound).rev().find(|&j| embeds(self.req.format, m, &out.messages[j], &big_views[j]).is_some()) {
                Some(j) => bound = j,
                None => {
                    return fail(format!(
                        "message {k} of the output for budget {smaller} is not in the output for budget {}: {}",
                        self.req.max_messages,
                        preview(m)
                    ))
                }
            }
        }
        Outcome::Pass
    }
}
