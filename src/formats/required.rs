//! What every wire format requires of the messages the kit writes into
//! it, checked once before any writer runs ([`super::to_wire`]): a
//! history that lacks it is outside the format (spec §9.5), never written
//! with a member invented.

use super::{ConvertError, Format};
use crate::terms::ShapeError;
use serde_json::Value;

/// The first `functionCall` item of `messages` (canonical) without a
/// string `name`, as the error that it has no form in `format`: every
/// wire format's API requires a tool call's name (Chat Completions'
/// `function.name`, Responses' and Anthropic's `name`, Gemini's
/// `functionCall.name`, Bedrock's `toolUse.name`), and the kit invents
/// none, so such a history is outside the format (spec §9.5).
pub(super) fn nameless_call(format: Format, messages: &[Value]) -> Result<(), ConvertError> {
    for (index, m) in messages.iter().enumerate() {
        let Some(items) = m.get("contents").and_then(Value::as_array) else {
            continue;
        };
        for (k, it) in items.iter().enumerate() {
            if it.get("$type").and_then(Value::as_str) == Some("functionCall")
                && !it.get("name").is_some_and(Value::is_string)
            {
                return Err(ShapeError::new(
                    index,
                    Some(k),
                    format!(
                        "a functionCall without a string `name` has no {} form (the API requires a tool call's name)",
                        format.title()
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::to_wire;
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_without_a_name_is_outside_every_wire_format() {
        let h = [
            json!({"role": "user", "contents": [{"$type": "text", "text": "q"}]}),
            json!({"role": "assistant", "contents": [{"$type": "text", "text": "looking"}, {"$type": "functionCall", "callId": "c1"}]}),
            json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": "r"}]}),
        ];
        for f in Format::ALL.into_iter().filter(|f| *f != Format::Canonical) {
            let e = to_wire(f, &h).unwrap_err();
            assert_eq!((e.index, e.item), (1, Some(1)), "{f:?}");
            assert_eq!(
                e.problem,
                format!(
                    "a functionCall without a string `name` has no {} form (the API requires a tool call's name)",
                    f.title()
                )
            );
        }
        assert_eq!(to_wire(Format::Canonical, &h).unwrap(), h);
        let mut named = h.clone();
        named[1]["contents"][1]["name"] = json!("lookup");
        assert!(nameless_call(Format::OpenAi, &named).is_ok());
        let mut number = h;
        number[1]["contents"][1]["name"] = json!(7);
        assert!(nameless_call(Format::Gemini, &number).is_err());
    }
}
