//! Arbitrary bytes into every reader: an error, never a panic.
//!
//! The bytes are read as a case file, as input entries (array, request,
//! JSON Lines), as a budget, and, when they are JSON, as a history (a bare
//! array, or the `messages` of an object with its `maxMessages`) in every
//! format: views, turns, pairing, the validator, both reducers at the
//! given budget and at 1, 2 and a huge one, every format's converters both
//! ways (and the system split),
//! a protocol response, and the checker on a cut of the input as output.

use crate::check::{check, Extras, Request};
use crate::formats::{view_history, Format};
use crate::protocol::Response;
use crate::reduce::{self, Reference};
use crate::terms::{pair, turns, Budget, BudgetFields, Policy};
use crate::validate::{validate, Options};
use arbitrary::Unstructured;
use serde_json::{json, Value};
use std::path::Path;

super::fuzz_input!();

/// Runs every reader on all of `u`'s bytes.
///
/// # Errors
///
/// Never: every input is used.
///
/// # Panics
///
/// When a reader panics: the bug this target looks for.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let bytes = u.bytes(u.len())?;
    let text = String::from_utf8_lossy(bytes);
    let _ = crate::case::parse_cases(&text, Path::new("fuzz"));
    let _ = crate::input::parse_entries(&text, "fuzz");
    if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
        exercise(&v);
    }
    Ok(())
}

/// The whole input: JSON text, whose prefixes are other inputs (see
/// [`super::trimmed_len`]).
pub fn consumed(bytes: &[u8]) -> Option<usize> {
    Some(bytes.len())
}

/// Shows the bytes as (lossy) text.
pub fn describe(bytes: &[u8]) -> String {
    format!(
        "parse_no_panic input, {} bytes, as text: {:?}",
        bytes.len(),
        String::from_utf8_lossy(bytes)
    )
}

fn exercise(v: &Value) {
    let _ = Budget::parse(v);
    let _ = Response::from_json(v);
    let default_budget = json!(3);
    let (messages, budget) = match v {
        Value::Array(a) => (a, &default_budget),
        Value::Object(o) => match o.get("messages") {
            Some(Value::Array(a)) => (a, o.get("maxMessages").unwrap_or(&default_budget)),
            _ => return,
        },
        _ => return,
    };
    for format in Format::ALL {
        let _ = crate::formats::to_wire(format, messages);
        let _ = crate::formats::from_wire(format, messages);
    }
    let (system, rest) = crate::protocol::split_system(messages);
    let _ = crate::protocol::join_system(system, rest);
    let budgets = [budget.clone(), json!(1), json!(2), json!(u64::MAX)];
    for format in Format::ALL {
        if let Ok(views) = view_history(format, messages) {
            let _ = turns(&views);
            let all: Vec<usize> = (0..views.len()).collect();
            let _ = pair(&views, &all);
            for allow_pending in [false, true] {
                let _ = validate(&views, Options { allow_pending });
            }
        }
        for policy in Policy::EVERY {
            let reference = Reference::new(policy, format);
            for b in &budgets {
                let _ = reference
                    .reduce(reduce::Input::new(messages).max_messages(b))
                    .map(|s| s.messages());
            }
            let fields = BudgetFields::messages(budget.clone());
            let req = Request {
                format,
                policy,
                budget: &fields,
                messages,
                summary: None,
                declared: Default::default(),
                provider: None,
            };
            let cut = messages[messages.len() / 2..].to_vec();
            let extras = Extras {
                reference: Some(Response::from(
                    reference.reduce(reduce::Input::new(messages).max_messages(budget)),
                )),
                ..Extras::default()
            };
            let _ = check(&req, &Response::Messages(cut), &extras);
        }
    }
}
