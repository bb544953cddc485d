//! The one gate every input of the kit passes (spec §8.11), and
//! reading histories from files and stdin for the command line.
//!
//! **The gate.** A file is read only when it is a regular file (a symbolic
//! link is followed) of at most the size limit ([`DEFAULT_MAX_INPUT`], 64
//! MiB, unless the command line's `--max-input` says otherwise), opened
//! without blocking, so that a FIFO or a device is an error naming it,
//! never a wait or an endless read ([`read_regular`]); `-` is stdin, read
//! up to the same limit ([`read_input`]). Its text must be UTF-8. Before
//! it is parsed, its nesting is measured ([`check_text`]): no message (nor
//! any other member of a history or case) may nest deeper than
//! [`MAX_DEPTH`] levels, and the error names the place (`message 3`).
//! Histories ([`parse_entries`], [`parse_raw_entries`]) and case files
//! (`crate::case::parse_cases`) are both read through it, so `validate`,
//! `reduce`, `check`, `certify` and the `corpus` commands refuse the same
//! input with the same message.
//!
//! **Histories**: a bare array of messages, a request envelope
//! (`{"maxMessages": N, "messages": [...]}`), or JSON Lines with one of
//! those per line (as the tau-bench trajectories are stored: objects with a
//! `messages` member and other members, which are kept).

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::io::Read;
use std::path::Path;

mod depth;
pub use depth::{check_text, Holds, LoneSurrogate, TextError, TooDeep};

/// The largest file (or stdin) the kit reads unless told otherwise, in
/// bytes (64 MiB); the command line's `--max-input BYTES` sets another.
pub const DEFAULT_MAX_INPUT: u64 = 64 * 1024 * 1024;

/// The deepest a message, or any other member of a history, an envelope
/// or a case, may nest: an array or an object is one level, the message's
/// own included (`{"role": "user", "contents": []}` nests 2 levels).
/// Deeper input is refused before it is parsed ([`check_text`]), so that
/// every reader of the kit reads the same histories (the JSON parser's own
/// limit, 128 levels for a whole document, is never reached: a case file
/// adds at most 3 levels around a message).
pub const MAX_DEPTH: usize = 100;

/// Reads the file at `path` (a symbolic link is followed) when it is a
/// regular file of at most `max` bytes, without ever blocking on what is
/// not one: it is opened non-blocking (a FIFO without a writer does not
/// wait) and checked before anything is read.
///
/// # Errors
///
/// The I/O error opening or reading it; [`std::io::ErrorKind::InvalidInput`]
/// with `not a regular file (a FIFO)` (a directory, a character or block
/// device, a socket) or `larger than the limit of N bytes (--max-input)`.
#[cfg(not(feature = "process"))]
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if meta.len() > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("larger than the limit of {max} bytes (--max-input)"),
        ));
    }
    let mut out = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut out)?;
    Ok(out)
}

/// Reads the file at `path` (see the other build of this function).
///
/// # Errors
///
/// As the other build's.
#[cfg(feature = "process")]
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    let kind = meta.file_type();
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_char_device() {
            "a character device"
        } else if kind.is_block_device() {
            "a block device"
        } else if kind.is_socket() {
            "a socket"
        } else if kind.is_dir() {
            "a directory"
        } else {
            "not a file"
        };
        return Err(invalid_input(format!("not a regular file ({what})")));
    }
    if meta.len() > max {
        return Err(too_large(max));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(max));
    }
    Ok(bytes)
}

fn invalid_input(what: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, what)
}

fn too_large(max: u64) -> std::io::Error {
    invalid_input(format!(
        "larger than the limit of {max} bytes (--max-input)"
    ))
}

/// Reads at most `max` bytes of `from` (stdin, for `-`).
///
/// # Errors
///
/// The read's I/O error, or [`std::io::ErrorKind::InvalidInput`] with
/// `larger than the limit of N bytes (--max-input)` when there is more.
pub fn read_limited(from: impl Read, max: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    from.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(max));
    }
    Ok(bytes)
}

/// Bytes as UTF-8 text.
///
/// # Errors
///
/// [`std::io::ErrorKind::InvalidData`] with `not UTF-8 (invalid byte at
/// offset N)`.
pub fn utf8(bytes: Vec<u8>) -> std::io::Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// The whole text of `path` through the gate: `-` is stdin (at most `max`
/// bytes), anything else a regular file of at most `max` bytes
/// ([`read_regular`]); either must be UTF-8.
///
/// # Errors
///
/// [`InputError::Io`] naming the source (`<stdin>` for `-`).
pub fn read_input(path: &str, max: u64) -> Result<String, InputError> {
    let bytes = if path == "-" {
        read_limited(std::io::stdin().lock(), max)
    } else {
        read_regular(Path::new(path), max)
    };
    bytes.and_then(utf8).map_err(|error| InputError::Io {
        source_name: source_name(path).into(),
        error,
    })
}

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
    /// The file or stdin cannot be read: missing, not a regular file, over
    /// the size limit, not UTF-8 (the command line exits 2).
    #[error("{source_name}: {error}")]
    Io {
        /// The source.
        source_name: String,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The content is not JSON, or not a history (the command line exits
    /// 2).
    #[error("{origin}: {problem}")]
    Invalid {
        /// Where.
        origin: Origin,
        /// What is wrong.
        problem: String,
    },
    /// A message (or another member) nests deeper than [`MAX_DEPTH`]: a
    /// history the kit cannot represent (the command line exits 1).
    #[error("{origin}: {too_deep}")]
    TooDeep {
        /// The source, and the line for JSON Lines.
        origin: Origin,
        /// The place.
        too_deep: TooDeep,
    },
}

impl InputError {
    /// The exit code of the command line's rule (spec §8.11): 1 for a
    /// history nested too deep (invalid input), 2 for input that cannot be
    /// read or is not JSON or not a history.
    pub fn exit_code(&self) -> u8 {
        match self {
            InputError::TooDeep { .. } => 1,
            InputError::Io { .. } | InputError::Invalid { .. } => 2,
        }
    }
}

/// Reads `path` (`-` for stdin) as one or more histories, through the gate
/// with the default size limit ([`read_entries_with`]).
///
/// # Errors
///
/// As [`read_entries_with`].
pub fn read_entries(path: &str) -> Result<Vec<Entry>, InputError> {
    read_entries_with(path, DEFAULT_MAX_INPUT)
}

/// Reads `path` (`-` for stdin; at most `max` bytes, [`read_input`]) as one
/// or more histories.
///
/// # Errors
///
/// [`InputError::Io`] when unreadable; [`InputError::TooDeep`] and
/// [`InputError::Invalid`] as [`parse_entries`] gives them.
pub fn read_entries_with(path: &str, max: u64) -> Result<Vec<Entry>, InputError> {
    let text = read_input(path, max)?;
    parse_entries(&text, source_name(path))
}

/// [`check_text`] of histories as an [`InputError`] naming `source`.
fn depth_gate(text: &str, source: &str) -> Result<(), InputError> {
    check_text(text, Holds::Histories).map_err(|e| match e {
        TextError::TooDeep(too_deep) => InputError::TooDeep {
            origin: Origin {
                source: source.into(),
                line: too_deep.line,
            },
            too_deep,
        },
        TextError::LoneSurrogate(bad) => InputError::Invalid {
            origin: Origin {
                source: source.into(),
                line: None,
            },
            problem: bad.to_string(),
        },
    })
}

/// The name errors give a path: `<stdin>` for `-`.
pub fn source_name(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// Parses text as one history, a request envelope, or JSON Lines of them.
///
/// # Errors
///
/// [`InputError::TooDeep`] for text nested deeper than [`MAX_DEPTH`]
/// ([`check_text`], before anything is parsed); [`InputError::Invalid`]
/// naming the source and, for JSON Lines, the line.
pub fn parse_entries(text: &str, source: &str) -> Result<Vec<Entry>, InputError> {
    depth_gate(text, source)?;
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
    depth_gate(text, source)?;
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
mod tests;
