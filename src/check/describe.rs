//! How a failure describes what it compares: a value cut for a report
//! ([`preview`]) and the difference of two answers, messages or errors
//! ([`describe_difference`]), as the metamorphic and safety clauses write
//! them in their failure details.

use crate::json::first_difference_in;
use crate::protocol::Response;
use serde_json::Value;

pub(super) fn preview(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}

pub(super) fn describe_difference(want: &Response, got: &Response) -> String {
    match (want, got) {
        (_, Response::Unsupported(u)) => format!(
            "expected {}, got unsupported ({u:?})",
            match want {
                Response::Messages(m) => format!("{} messages", m.len()),
                _ => "an error".into(),
            }
        ),
        _ => describe_answers(answer_of(want), answer_of(got)),
    }
}

/// A response as borrowed parts: its messages, or its error text.
pub(super) fn answer_of(r: &Response) -> Result<&[Value], &str> {
    match r {
        Response::Messages(m) => Ok(m),
        Response::Error(e) | Response::Unsupported(e) => Err(e),
    }
}

/// [`describe_difference`] of answers given as borrowed parts (messages or
/// an error text), so that no history is copied to describe it.
pub(super) fn describe_answers(
    want: Result<&[Value], &str>,
    got: Result<&[Value], &str>,
) -> String {
    match (want, got) {
        (Ok(a), Ok(b)) => {
            let path = first_difference_in(a, b);
            format!(
                "expected {}, got {} messages, first difference at {}",
                a.len(),
                b.len(),
                path.unwrap_or_else(|| "$".into())
            )
        }
        (Err(e), Ok(b)) => {
            format!("expected an error ({e:?}), got {} messages", b.len())
        }
        (Ok(a), Err(e)) => {
            format!("expected {} messages, got an error ({e:?})", a.len())
        }
        (Err(_), Err(_)) => "both are errors".into(),
    }
}
