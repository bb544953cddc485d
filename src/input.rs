//! Reading histories from files and stdin for the command line: a bare
//! array of messages, a request envelope (`{"maxMessages": N, "messages":
//! [...]}`), or JSON Lines with one of those per line (as the tau-bench
//! trajectories are stored: objects with a `messages` member and other
//! members, which are kept).

use serde_json::{Map, Value};
use std::path::Path;

/// Where a history came from: the source name and the 1-based line number
/// for JSON Lines input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file path, or `-` for stdin.
    pub source: String,
    /// The line, for JSON Lines input.
    pub line: Option<usize>,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}", self.source),
            None => f.write_str(&self.source),
        }
    }
}

/// One history read from input.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Where it came from.
    pub origin: Origin,
    /// The messages.
    pub messages: Vec<Value>,
    /// `maxMessages` when the entry is an object that has one.
    pub max_messages: Option<Value>,
    /// The other members of an object entry (kept when writing back);
    /// `None` for a bare array.
    pub envelope: Option<Map<String, Value>>,
}

impl Entry {
    /// The entry with its messages replaced: a bare array for a bare array,
    /// else the same object with `messages` replaced.
    pub fn with_messages(&self, messages: Vec<Value>) -> Value {
        match &self.envelope {
            None => Value::Array(messages),
            Some(obj) => {
                let mut obj = obj.clone();
                obj.insert("messages".into(), Value::Array(messages));
                Value::Object(obj)
            }
        }
    }
}

/// An entry with no budget: neither `--max` nor a `maxMessages` member.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: no budget: pass --max N or give maxMessages")]
pub struct NoBudget {
    /// The entry.
    pub origin: Origin,
}

impl Entry {
    /// The `maxMessages` to send for this entry: `max` (the command line's
    /// `--max N`) when given, which overrides the entry's own, else the
    /// entry's `maxMessages` as written (possibly not a budget; the reducer
    /// judges that).
    ///
    /// # Errors
    ///
    /// [`NoBudget`] when there is neither.
    pub fn max_messages_or(&self, max: Option<i64>) -> Result<Value, NoBudget> {
        match (max, &self.max_messages) {
            (Some(n), _) => Ok(Value::from(n)),
            (None, Some(m)) => Ok(m.clone()),
            (None, None) => Err(NoBudget {
                origin: self.origin.clone(),
            }),
        }
    }
}

/// Input that cannot be read as histories, naming the place.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file or stdin cannot be read (exit 2).
    #[error("{source_name}: {error}")]
    Io {
        /// The source.
        source_name: String,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The content is not JSON, or not a history (exit 1).
    #[error("{origin}: {problem}")]
    Invalid {
        /// Where.
        origin: Origin,
        /// What is wrong.
        problem: String,
    },
}

/// Reads `path` (`-` for stdin) as one or more histories.
///
/// # Errors
///
/// [`InputError::Io`] when unreadable; [`InputError::Invalid`] naming the
/// line for content that is neither one JSON value nor JSON Lines of
/// histories.
pub fn read_entries(path: &str) -> Result<Vec<Entry>, InputError> {
    let text = if path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|error| {
            InputError::Io {
                source_name: "<stdin>".into(),
                error,
            }
        })?;
        s
    } else {
        std::fs::read_to_string(Path::new(path)).map_err(|error| InputError::Io {
            source_name: path.into(),
            error,
        })?
    };
    parse_entries(&text, if path == "-" { "<stdin>" } else { path })
}

/// Parses text as one history, a request envelope, or JSON Lines of them.
///
/// # Errors
///
/// [`InputError::Invalid`] naming the source and, for JSON Lines, the line.
pub fn parse_entries(text: &str, source: &str) -> Result<Vec<Entry>, InputError> {
    let whole = Origin {
        source: source.into(),
        line: None,
    };
    match serde_json::from_str::<Value>(text) {
        Ok(v) => return Ok(vec![entry(v, whole)?]),
        Err(e) => {
            let lines: Vec<(usize, &str)> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(i, l)| (i + 1, l))
                .collect();
            if lines.len() <= 1 {
                return Err(InputError::Invalid {
                    origin: whole,
                    problem: format!("not JSON: {e}"),
                });
            }
        }
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let origin = Origin {
            source: source.into(),
            line: Some(n + 1),
        };
        let v: Value = serde_json::from_str(line).map_err(|e| InputError::Invalid {
            origin: origin.clone(),
            problem: format!("not JSON: {e}"),
        })?;
        out.push(entry(v, origin)?);
    }
    Ok(out)
}

fn entry(v: Value, origin: Origin) -> Result<Entry, InputError> {
    match v {
        Value::Array(messages) => Ok(Entry {
            origin,
            messages,
            max_messages: None,
            envelope: None,
        }),
        Value::Object(mut obj) => {
            let messages = match obj.remove("messages") {
                Some(Value::Array(m)) => m,
                Some(_) => return Err(InputError::Invalid { origin, problem: "`messages` is not an array".into() }),
                None => {
                    return Err(InputError::Invalid {
                        origin,
                        problem: "an object without `messages` (expected an array of messages or {\"maxMessages\": N, \"messages\": [...]})".into(),
                    })
                }
            };
            let max_messages = obj.get("maxMessages").cloned();
            Ok(Entry {
                origin,
                messages,
                max_messages,
                envelope: Some(obj),
            })
        }
        other => Err(InputError::Invalid {
            origin,
            problem: format!(
                "expected an array of messages or an object with `messages`, got {}",
                kind(&other)
            ),
        }),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_envelope_and_jsonl() {
        let e = parse_entries("[]", "a").unwrap();
        assert_eq!(e[0].envelope, None);
        let e = parse_entries(r#"{"maxMessages": 3, "messages": [{"role":"user"}]}"#, "a").unwrap();
        assert_eq!(e[0].max_messages, Some(Value::from(3)));
        let e = parse_entries(
            "{\"task_id\":1,\"messages\":[]}\n\n[{\"role\":\"user\"}]\n",
            "f.jsonl",
        )
        .unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[1].origin.to_string(), "f.jsonl:3");
        assert_eq!(
            e[0].with_messages(vec![]),
            serde_json::json!({"task_id": 1, "messages": []})
        );
    }

    #[test]
    fn errors_name_the_line() {
        let err = parse_entries("[]\n{oops\n", "f.jsonl").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("f.jsonl:2: not JSON: key must be a string"),
            "{err}"
        );
        let err = parse_entries("42", "x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "x: expected an array of messages or an object with `messages`, got a number"
        );
        let err = parse_entries("{\"a\":1}", "x").unwrap_err();
        assert!(err
            .to_string()
            .starts_with("x: an object without `messages`"));
        let err = parse_entries("not json", "x").unwrap_err();
        assert!(err.to_string().starts_with("x: not JSON:"));
    }
}
