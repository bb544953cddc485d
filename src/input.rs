//! Reading histories from files and stdin for the command line: a bare
//! array of messages, a request envelope (`{"maxMessages": N, "messages":
//! [...]}`), or JSON Lines with one of those per line (as the tau-bench
//! trajectories are stored: objects with a `messages` member and other
//! members, which are kept).

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
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
    /// `--max N`, a JSON number as written) when given, which overrides the
    /// entry's own, else the
    /// entry's `maxMessages` as written (possibly not a budget; the reducer
    /// judges that).
    ///
    /// # Errors
    ///
    /// [`NoBudget`] when there is neither.
    pub fn max_messages_or(&self, max: Option<&Value>) -> Result<Value, NoBudget> {
        match (max, &self.max_messages) {
            (Some(n), _) => Ok(n.clone()),
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
    let text = read_text(path)?;
    parse_entries(&text, source_name(path))
}

/// The name errors give a path: `<stdin>` for `-`.
pub fn source_name(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// The whole text of `path` (`-` for stdin).
///
/// # Errors
///
/// [`InputError::Io`] when unreadable.
pub fn read_text(path: &str) -> Result<String, InputError> {
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
    Ok(text)
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

/// One history read without building its values: each message is its slice
/// of the input text (for the command line's `reduce` and `validate`, which
/// write kept messages from their input bytes).
#[derive(Debug)]
pub struct RawEntry<'a> {
    /// Where it came from.
    pub origin: Origin,
    /// The messages, as raw JSON text.
    pub messages: Vec<&'a RawValue>,
    /// `maxMessages` when the entry is an object that has one.
    pub max_messages: Option<Value>,
    /// The other members of an object entry, in the order
    /// [`Entry::with_messages`] writes them (`messages` goes last); `None`
    /// for a bare array.
    pub envelope: Option<Vec<(String, &'a RawValue)>>,
}

impl RawEntry<'_> {
    /// As [`Entry::max_messages_or`].
    ///
    /// # Errors
    ///
    /// [`NoBudget`] when there is neither `max` nor a `maxMessages`.
    pub fn max_messages_or(&self, max: Option<&Value>) -> Result<Value, NoBudget> {
        match (max, &self.max_messages) {
            (Some(n), _) => Ok(n.clone()),
            (None, Some(m)) => Ok(m.clone()),
            (None, None) => Err(NoBudget {
                origin: self.origin.clone(),
            }),
        }
    }
}

/// A JSON document as far as an entry needs it.
enum RawDoc<'a> {
    Array(Vec<&'a RawValue>),
    /// Members in order, a repeated key replacing the value in place (as
    /// `serde_json::Map` does).
    Object(Vec<(String, &'a RawValue)>),
    Other,
}

impl<'de> Deserialize<'de> for RawDoc<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawDoc<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(16));
                while let Some(m) = seq.next_element::<&'de RawValue>()? {
                    out.push(m);
                }
                Ok(RawDoc::Array(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(String, &'de RawValue)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                    match out.iter_mut().find(|(key, _)| *key == k) {
                        Some(slot) => slot.1 = v,
                        None => out.push((k, v)),
                    }
                }
                Ok(RawDoc::Object(out))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(RawDoc::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(RawDoc::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(RawDoc::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(RawDoc::Other)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(RawDoc::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(RawDoc::Other)
            }
        }
        d.deserialize_any(V)
    }
}

fn raw_entry<'a>(doc: RawDoc<'a>, origin: Origin) -> Option<RawEntry<'a>> {
    match doc {
        RawDoc::Array(messages) => Some(RawEntry {
            origin,
            messages,
            max_messages: None,
            envelope: None,
        }),
        RawDoc::Object(mut members) => {
            let at = members.iter().position(|(k, _)| k == "messages")?;
            let (_, messages) = members.swap_remove(at);
            let messages: Vec<&RawValue> = serde_json::from_str(messages.get()).ok()?;
            let max_messages = match members.iter().find(|(k, _)| k == "maxMessages") {
                Some((_, v)) => Some(serde_json::from_str(v.get()).ok()?),
                None => None,
            };
            Some(RawEntry {
                origin,
                messages,
                max_messages,
                envelope: Some(members),
            })
        }
        RawDoc::Other => None,
    }
}

/// [`parse_entries`] without building the messages' values: the same
/// entries (one history, a request envelope, or JSON Lines of them), each
/// message a slice of `text`.
///
/// # Errors
///
/// Exactly those of [`parse_entries`] on the same text.
pub fn parse_raw_entries<'a>(text: &'a str, source: &str) -> Result<Vec<RawEntry<'a>>, InputError> {
    let slow_error = || match parse_entries(text, source) {
        Err(e) => e,
        Ok(_) => InputError::Invalid {
            origin: Origin {
                source: source.into(),
                line: None,
            },
            problem: "not readable as raw JSON".into(),
        },
    };
    let whole = Origin {
        source: source.into(),
        line: None,
    };
    match serde_json::from_str::<RawDoc>(text) {
        Ok(doc) => {
            return raw_entry(doc, whole)
                .map(|e| vec![e])
                .ok_or_else(slow_error)
        }
        Err(_) => {
            if text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(2)
                .count()
                <= 1
            {
                return Err(slow_error());
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
        let doc = serde_json::from_str::<RawDoc>(line).map_err(|_| slow_error())?;
        out.push(raw_entry(doc, origin).ok_or_else(slow_error)?);
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
                Some(_) => {
                    return Err(InputError::Invalid {
                        origin,
                        problem: "`messages` is not an array".into(),
                    })
                }
                None => {
                    // A provider's own request body keeps its messages
                    // under another name (Gemini `contents`, Responses
                    // `input`); say where they go.
                    let hint = ["contents", "input"]
                        .into_iter()
                        .find(|k| obj.get(*k).is_some_and(Value::is_array))
                        .map_or(String::new(), |k| {
                            format!("; put the array of `{k}` in `messages`")
                        });
                    return Err(InputError::Invalid {
                        origin,
                        problem: format!("an object without `messages` (expected an array of messages or {{\"maxMessages\": N, \"messages\": [...]}}){hint}"),
                    });
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
    fn raw_entries_are_the_entries() {
        let text = "{\"task_id\":1,\"messages\":[{\"role\":\"user\"}, {\"role\":\"tool\"}],\"z\":[1],\"maxMessages\":3}\n\n[{\"role\":\"user\"}]\n";
        let raw = parse_raw_entries(text, "f.jsonl").unwrap();
        let values = parse_entries(text, "f.jsonl").unwrap();
        assert_eq!(raw.len(), 2);
        for (r, v) in raw.iter().zip(&values) {
            assert_eq!(r.origin, v.origin);
            assert_eq!(r.max_messages, v.max_messages);
            let msgs: Vec<Value> = r
                .messages
                .iter()
                .map(|m| serde_json::from_str(m.get()).unwrap())
                .collect();
            assert_eq!(msgs, v.messages);
            let keys: Option<Vec<&str>> = r
                .envelope
                .as_ref()
                .map(|e| e.iter().map(|(k, _)| k.as_str()).collect());
            let want: Option<Vec<&str>> = v
                .envelope
                .as_ref()
                .map(|e| e.keys().map(String::as_str).collect());
            assert_eq!(keys, want);
        }
        // The envelope's order after `messages` is taken out: the last
        // member moves into its place.
        assert_eq!(
            raw[0]
                .envelope
                .as_ref()
                .unwrap()
                .iter()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>(),
            vec!["task_id", "maxMessages", "z"]
        );
        for bad in [
            "[]\n{oops\n",
            "42",
            "{\"a\":1}",
            "not json",
            "{\"messages\":3}",
        ] {
            assert_eq!(
                parse_raw_entries(bad, "x").unwrap_err().to_string(),
                parse_entries(bad, "x").unwrap_err().to_string()
            );
        }
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
        let err = parse_entries("{\"contents\":[],\"systemInstruction\":{}}", "x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "x: an object without `messages` (expected an array of messages or {\"maxMessages\": N, \"messages\": [...]}); put the array of `contents` in `messages`"
        );
        let err =
            parse_entries("{\"input\":[{\"role\":\"user\",\"content\":\"hi\"}]}", "x").unwrap_err();
        assert!(err
            .to_string()
            .ends_with("; put the array of `input` in `messages`"));
        let err = parse_entries("not json", "x").unwrap_err();
        assert!(err.to_string().starts_with("x: not JSON:"));
    }
}
