//! Which wire format a history's messages look like, to catch a history
//! read in the wrong `--format`: OpenAI messages read as
//! canonical have no `contents`, so every reader would take them for
//! messages without items and call the history valid.
//!
//! The test is conservative. A message *fits* a format when it has that
//! format's mark (below); a message with no mark of any format (`{"role":
//! "user"}`, not an object) fits none and decides nothing. A history is
//! refused only when no message fits the chosen format and some message
//! fits another: an empty history, or one where *some* message fits, is
//! never refused.
//!
//! | format | a message fits when it has |
//! |--------|----------------------------|
//! | canonical | a `contents` member |
//! | openai | `tool_calls` or `tool_call_id`; or `content` a string, `null`, or an array of objects with a string `type` |
//! | anthropic | `content` a string, `null`, or an array of objects with a string `type` |
//! | responses | a string `type`; or a `role` and `content` a string or an array of objects with a string `type` |
//! | gemini | a `parts` array |
//! | bedrock | `content` an array of objects none of which has a `type` |

use super::Format;
use serde_json::Value;
use std::borrow::Borrow;

/// A history none of whose messages has the shape of the chosen format,
/// while some message has the shape of another (see the module's table).
/// Its text names both: `no message has the shape of canonical messages
/// (`contents` arrays of `$type` items); they look like openai: try
/// --format openai`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "no message has the shape of {} messages ({}); they look like {}: try --format {}",
    chosen.name(),
    shape(*chosen),
    looks_like.name(),
    looks_like.name()
)]
pub struct FormatMismatch {
    /// The format the history was read in.
    pub chosen: Format,
    /// The format most of its messages fit (the first of [`Format::ALL`]
    /// on a tie).
    pub looks_like: Format,
}

/// What a message of `format` has, in a few words, for [`FormatMismatch`].
fn shape(format: Format) -> &'static str {
    match format {
        Format::Canonical => "`contents` arrays of `$type` items",
        Format::OpenAi => "`content` strings or parts, `tool_calls`, `tool_call_id`",
        Format::Anthropic => "`content` strings or blocks with a `type`",
        Format::Responses => "items with a `type`, or a `role` and `content`",
        Format::Gemini => "`parts` arrays",
        Format::Bedrock => "`content` arrays of blocks such as `text`, `toolUse`, `toolResult`",
    }
}

/// Whether `content` is an array of objects each with a string `type`.
fn typed_blocks(content: &Value) -> bool {
    content.as_array().is_some_and(|a| {
        a.iter()
            .all(|b| b.get("type").is_some_and(Value::is_string))
    })
}

/// Whether message `msg` has the mark of `format` (the module's table).
fn fits(format: Format, msg: &Value) -> bool {
    let Some(m) = msg.as_object() else {
        return false;
    };
    let content = m.get("content");
    let text_or_typed = content.is_some_and(|c| c.is_string() || c.is_null() || typed_blocks(c));
    match format {
        Format::Canonical => m.contains_key("contents"),
        Format::OpenAi => {
            m.contains_key("tool_calls") || m.contains_key("tool_call_id") || text_or_typed
        }
        Format::Anthropic => text_or_typed,
        Format::Responses => {
            m.get("type").is_some_and(Value::is_string)
                || (m.contains_key("role")
                    && content.is_some_and(|c| c.is_string() || typed_blocks(c)))
        }
        Format::Gemini => m.get("parts").is_some_and(Value::is_array),
        Format::Bedrock => content
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().all(|b| b.is_object() && b.get("type").is_none())),
    }
}

/// Whether `messages` (one history, as read) are in `format` at all: the
/// one test `validate`, `reduce` and `check` make before reading a history
/// (see the module's table). The messages are looked at lazily: the first
/// that fits `format` ends the test, so a history in its format costs one
/// message; only a refused history is looked at whole.
///
/// # Errors
///
/// [`FormatMismatch`] when no message fits `format` and some message fits
/// another, naming the format most messages fit.
pub fn format_mismatch<V, I>(format: Format, messages: I) -> Result<(), FormatMismatch>
where
    V: Borrow<Value>,
    I: IntoIterator<Item = V>,
    I::IntoIter: Clone,
{
    let messages = messages.into_iter();
    if messages.clone().any(|m| fits(format, m.borrow())) {
        return Ok(());
    }
    let mut counts = [0usize; Format::ALL.len()];
    for m in messages {
        for (n, f) in counts.iter_mut().zip(Format::ALL) {
            *n += usize::from(fits(f, m.borrow()));
        }
    }
    let best = counts.iter().copied().max().unwrap_or(0);
    match Format::ALL
        .iter()
        .zip(counts)
        .find(|(_, n)| *n == best && best > 0)
    {
        Some((&looks_like, _)) => Err(FormatMismatch {
            chosen: format,
            looks_like,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn openai() -> Vec<Value> {
        vec![
            json!({"role": "user", "content": "Where is my order?"}),
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "find", "arguments": "{}"}}]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "shipped"}),
        ]
    }

    #[test]
    fn openai_read_as_canonical_is_refused_with_the_suggestion() {
        let err = format_mismatch(Format::Canonical, openai()).unwrap_err();
        assert_eq!(
            err,
            FormatMismatch {
                chosen: Format::Canonical,
                looks_like: Format::OpenAi
            }
        );
        assert_eq!(
            err.to_string(),
            "no message has the shape of canonical messages (`contents` arrays of `$type` items); they look like openai: try --format openai"
        );
        // Gemini too: no message has `parts`.
        assert_eq!(
            format_mismatch(Format::Gemini, openai())
                .unwrap_err()
                .looks_like,
            Format::OpenAi
        );
    }

    #[test]
    fn each_format_is_recognised() {
        let cases = [
            (
                Format::Canonical,
                json!({"role": "user", "contents": [{"$type": "text", "text": "hi"}]}),
            ),
            (
                Format::Gemini,
                json!({"role": "model", "parts": [{"text": "hi"}]}),
            ),
            (
                Format::Bedrock,
                json!({"role": "assistant", "content": [{"toolUse": {"toolUseId": "t", "name": "f", "input": {}}}]}),
            ),
            (
                Format::Responses,
                json!({"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}),
            ),
            (
                Format::OpenAi,
                json!({"role": "tool", "tool_call_id": "c1", "content": [{"text": "x"}]}),
            ),
        ];
        for (want, msg) in cases {
            let chosen = if want == Format::Canonical {
                Format::Gemini
            } else {
                Format::Canonical
            };
            assert_eq!(
                format_mismatch(chosen, [&msg]).map_err(|e| e.looks_like),
                Err(want),
                "{msg}"
            );
            assert_eq!(format_mismatch(want, [&msg]), Ok(()), "{msg}");
        }
    }

    #[test]
    fn conservative_cases_pass() {
        // Empty, and messages with no mark of any format.
        assert_eq!(
            format_mismatch(Format::Canonical, Vec::<Value>::new()),
            Ok(())
        );
        let bare = [json!({"role": "user"}), json!(3)];
        for f in Format::ALL {
            assert_eq!(format_mismatch(f, &bare), Ok(()));
        }
        // One canonical message among OpenAI ones is enough.
        let mut mixed = openai();
        mixed.push(json!({"role": "user", "contents": []}));
        assert_eq!(format_mismatch(Format::Canonical, &mixed), Ok(()));
        // OpenAI string contents are Anthropic and Responses messages too.
        assert_eq!(format_mismatch(Format::Anthropic, openai()), Ok(()));
        assert_eq!(format_mismatch(Format::Responses, openai()), Ok(()));
    }
}
