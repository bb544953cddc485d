//! Drawings of what is saved on disk: a counterexample as a JSON document
//! holds it (an entry of the JSON report's `counterexamples`, or of a
//! compatibility matrix run's), and a case file's case with the reference
//! reducer's answer.

use super::{Answer, Conversation, Exhibit, Failure};
use crate::case::Case;
use crate::formats::{to_wire, Format};
use crate::protocol::{response_from_json, Response};
use crate::reduce::{Input, Reference};
use crate::terms::{BudgetFields, Clause, Policy};
use serde_json::Value;

/// What a drawing needs, owned: read from a saved counterexample
/// ([`Saved::counterexample`]) or a case ([`Saved::case`]).
#[derive(Clone, Debug)]
pub struct Saved {
    /// The wire format the input and the answers are drawn in.
    pub format: Format,
    /// The policy judged.
    pub policy: Policy,
    /// The input in `format` (canonical when it has no form there).
    pub input: Vec<Value>,
    /// Why the input is drawn in canonical: it has no form in the format
    /// asked for (the conversion's error).
    pub no_form: Option<String>,
    /// The budget as sent.
    pub budget: BudgetFields,
    /// The reference's answer (`None`: none could be read).
    pub expected: Option<Response>,
    /// The reducer's answer: `None` draws no reducer column; `Some(None)`:
    /// it gave no usable answer.
    pub actual: Option<Option<Response>>,
    /// The failure of a counterexample.
    pub failure: Option<Failure>,
}

impl Saved {
    /// `canonical` in `format` as the input: its wire form, or, when it
    /// has none, itself (and why).
    fn input(format: Format, canonical: &[Value]) -> (Format, Vec<Value>, Option<String>) {
        match to_wire(format, canonical) {
            Ok(w) => (format, w, None),
            Err(e) => (Format::Canonical, canonical.to_vec(), Some(e.to_string())),
        }
    }

    /// A counterexample as the JSON report (`counterexamples`) or a
    /// compatibility matrix run writes it, from a run in `format` under
    /// `policy`: its input (`messages`, or `input` in the matrix;
    /// canonical), its budget members (`maxMessages`, `maxTokens`,
    /// `tokens`, `countPinned`; a `null` beside another is absent),
    /// `expected` and `actual` (response objects in `format`), `clause`,
    /// `definition` (else the clause's own), `detail` and
    /// `firstDifference` (or `difference`).
    ///
    /// # Errors
    ///
    /// What is missing: no input array, no clause.
    pub fn counterexample(format: Format, policy: Policy, cx: &Value) -> Result<Saved, String> {
        let canonical = ["input", "messages"]
            .iter()
            .find_map(|k| cx.get(k).and_then(Value::as_array))
            .ok_or("a counterexample without its input (`messages` or `input`)")?;
        let clause = cx
            .get("clause")
            .and_then(Value::as_str)
            .ok_or("a counterexample without its `clause`")?;
        let member = |k: &str| cx.get(k).filter(|v| !v.is_null()).cloned();
        let mut budget = BudgetFields {
            max_messages: member("maxMessages"),
            max_tokens: member("maxTokens"),
            tokens: member("tokens"),
            count_pinned: member("countPinned"),
        };
        if budget.max_messages.is_none() && budget.max_tokens.is_none() {
            budget.max_messages = cx.get("maxMessages").cloned();
        }
        let answer = |k: &str| -> Option<Response> {
            cx.get(k)
                .filter(|v| !v.is_null())
                .and_then(|v| response_from_json(format, v).ok())
        };
        let text = |k: &str| cx.get(k).and_then(Value::as_str).map(str::to_string);
        let (drawn_in, input, no_form) = Saved::input(format, canonical);
        Ok(Saved {
            format: drawn_in,
            policy,
            input,
            no_form,
            budget,
            expected: answer("expected"),
            actual: Some(answer("actual")),
            failure: Some(Failure {
                clause: clause.to_string(),
                definition: text("definition")
                    .or_else(|| Clause::from_id(clause).map(|c| c.definition().to_string()))
                    .unwrap_or_default(),
                detail: text("detail").unwrap_or_default(),
                first_difference: text("firstDifference").or_else(|| text("difference")),
            }),
        })
    }

    /// Case `case` in `format`: its input, its budget, and the reference
    /// reducer's answer under the case's policy (what its `expected` or
    /// `expectedError` holds, `corpus check` holds them together); no
    /// reducer column.
    pub fn case(format: Format, case: &Case) -> Saved {
        let (drawn_in, input, no_form) = Saved::input(format, &case.messages);
        let budget = case.budget_fields();
        let expected = Response::from(
            Reference::new(case.policy, drawn_in).reduce(Input::new(&input).budget_fields(&budget)),
        );
        Saved {
            format: drawn_in,
            policy: case.policy,
            input,
            no_form,
            budget,
            expected: Some(expected),
            actual: None,
            failure: None,
        }
    }

    /// The drawing.
    pub fn draw(&self) -> Conversation {
        Conversation::of(&Exhibit {
            format: self.format,
            policy: self.policy,
            input: &self.input,
            budget: &self.budget,
            reference: Answer::of(self.expected.as_ref()),
            reducer: self.actual.as_ref().map(|a| Answer::of(a.as_ref())),
            failure: self.failure.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_report_counterexample_is_read_with_its_budget_and_answers() {
        // `messages` is canonical in the report; the answers are in the run's format.
        let cx = json!({
            "clause": "no-orphan-result", "maxMessages": 1, "detail": "d", "firstDifference": "$[0]",
            "messages": [{"role": "user", "contents": [{"$type": "text", "text": "q"}]}],
            "expected": {"messages": [{"role": "user", "content": "q"}]},
            "actual": null
        });
        let s = Saved::counterexample(Format::OpenAi, Policy::Turns, &cx).unwrap();
        assert_eq!(s.input, vec![json!({"role": "user", "content": "q"})]);
        assert_eq!(s.budget, BudgetFields::messages(json!(1)));
        assert!(matches!(&s.expected, Some(Response::Messages(m)) if m.len() == 1));
        assert!(matches!(s.actual, Some(None)));
        let f = s.failure.clone().unwrap();
        assert_eq!(
            (f.definition.as_str(), f.first_difference.as_deref()),
            (Clause::NoOrphanResult.definition(), Some("$[0]"))
        );
        let c = s.draw();
        assert_eq!(c.columns[1].summary, "no usable answer");
        assert_eq!(c.rows[0].cells[0].state, super::super::State::Kept);
    }

    #[test]
    fn a_matrix_counterexample_reads_its_token_budget() {
        let cx = json!({
            "clause": "maximal", "maxMessages": null, "maxTokens": 1, "tokens": [1],
            "countPinned": false, "difference": null, "detail": "d",
            "input": [{"role": "assistant", "contents": [{"$type": "text", "text": ""}]}],
            "expected": {"messages": [{"role": "assistant", "content": ""}]},
            "actual": {"messages": []}
        });
        let s = Saved::counterexample(Format::OpenAi, Policy::Turns, &cx).unwrap();
        assert_eq!(
            s.budget,
            BudgetFields::tokens(json!(1), json!([1]), Some(json!(false)))
        );
        let b = s.draw().budget.unwrap();
        assert_eq!((b.tokens, b.used), (true, vec![Some(1), Some(0)]));
        assert!(
            Saved::counterexample(Format::OpenAi, Policy::Turns, &json!({"clause": "x"})).is_err()
        );
    }
}
