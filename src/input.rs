//! The one gate every input of the kit passes (spec v1 §8.11), and
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

/// What a JSON text holds, for [`check_text`]: where its messages are,
/// and how a place is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// Histories (input histories, `check`'s outputs): a bare array of
    /// messages (`message i`), an object whose `messages` member is one
    /// (`message i`; any other member: ``member `key` ``), or JSON Lines of
    /// those.
    Histories,
    /// Case files: a case object, or an array of them (`case c: ...`),
    /// whose `messages` and `expected` hold messages (`message i`,
    /// `expected message i`; any other member: ``member `key` ``).
    Cases,
    /// Any other JSON (a `--tokens` file): each element of a top-level
    /// array (`element i`) or member of a top-level object.
    Other,
}

/// A place nested deeper than [`MAX_DEPTH`] levels: what [`check_text`]
/// found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{place}: nested deeper than {limit} levels")]
pub struct TooDeep {
    /// The place: `message 3`, `case 1: expected message 0`, ``member
    /// `meta` ``.
    pub place: String,
    /// The 1-based line of the JSON Lines entry it is in (`None` for a
    /// single JSON text).
    pub line: Option<usize>,
    /// The limit, [`MAX_DEPTH`].
    pub limit: usize,
}

/// A `\u` escape of half a surrogate pair with no other half (`"\ud800"`):
/// JSON text the kit cannot read into a string, which the raw reader
/// (that skips strings) would otherwise let through while the value
/// reader refuses it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not JSON: lone surrogate {escape} at line {line} column {column}")]
pub struct LoneSurrogate {
    /// The escape as written (`\ud800`).
    pub escape: String,
    /// Its 1-based line in the text.
    pub line: usize,
    /// Its 1-based column (in bytes).
    pub column: usize,
}

/// What [`check_text`] refuses in a text before it is parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// Nested deeper than [`MAX_DEPTH`]: a history the kit cannot
    /// represent (the command line exits 1).
    #[error(transparent)]
    TooDeep(TooDeep),
    /// Not JSON the kit can read (the command line exits 2).
    #[error(transparent)]
    LoneSurrogate(LoneSurrogate),
}

/// One open array or object among the first three levels of a document.
struct Frame {
    object: bool,
    /// Elements begun so far, less one (arrays).
    index: usize,
    /// The current member's key, as written between its quotes (objects).
    key: (usize, usize),
    /// Whether the next string is a key (objects).
    expect_key: bool,
}

/// The unit (a message, another member) that the path `frames` is in, for
/// `holds`: its place and how many levels enclose it.
fn unit(holds: Holds, text: &[u8], frames: &[Frame]) -> (String, usize) {
    let key = |f: &Frame| String::from_utf8_lossy(&text[f.key.0..f.key.1]).into_owned();
    let member = |f: &Frame, prefix: &str, at: usize| -> (String, usize) {
        (format!("{prefix}member `{}`", key(f)), at)
    };
    // A case object at frames[at], its members holding messages.
    let case = |at: usize, prefix: &str| -> (String, usize) {
        let f = &frames[at];
        let k = key(f);
        match frames.get(at + 1) {
            Some(next) if !next.object && (k == "messages" || k == "expected") => {
                let what = if k == "messages" {
                    "message"
                } else {
                    "expected message"
                };
                (format!("{prefix}{what} {}", next.index), at + 2)
            }
            _ => member(f, prefix, at + 1),
        }
    };
    let top = &frames[0];
    match holds {
        Holds::Histories if !top.object => (format!("message {}", top.index), 1),
        Holds::Histories => match frames.get(1) {
            Some(next) if !next.object && key(top) == "messages" => {
                (format!("message {}", next.index), 2)
            }
            _ => member(top, "", 1),
        },
        Holds::Cases if top.object => case(0, ""),
        Holds::Cases => match frames.get(1) {
            Some(f) if f.object => case(1, &format!("case {}: ", top.index)),
            _ => (format!("case {}", top.index), 1),
        },
        Holds::Other if top.object => member(top, "", 1),
        Holds::Other => (format!("element {}", top.index), 1),
    }
}

/// The code unit of the four hexadecimal digits at `at`, if they are.
fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
    u16::from_str_radix(digits, 16).ok()
}

/// Refuses a JSON text (or JSON Lines of them) in which a message, or any
/// other unit of `holds`, nests deeper than [`MAX_DEPTH`] levels, or a
/// string holds a lone surrogate escape ([`LoneSurrogate`]): the first such
/// place, and for depth the line of its entry when the text holds more
/// than one top-level value. Other text that is not JSON passes (the
/// parser says what is wrong with it). Linear in the text; the places are
/// tracked for the first three levels only.
///
/// # Errors
///
/// [`TextError`].
///
/// # Examples
///
/// ```
/// use reducer_kit::input::{check_text, Holds};
/// let deep = format!("[{{\"role\":\"user\"}}, {}{}]", "[".repeat(101), "]".repeat(101));
/// let e = check_text(&deep, Holds::Histories).unwrap_err();
/// assert_eq!(e.to_string(), "message 1: nested deeper than 100 levels");
/// assert!(check_text(&format!("[{}{}]", "[".repeat(100), "]".repeat(100)), Holds::Histories).is_ok());
/// let e = check_text(r#"[{"text": "\ud800"}]"#, Holds::Histories).unwrap_err();
/// assert_eq!(e.to_string(), r"not JSON: lone surrogate \ud800 at line 1 column 12");
/// ```
pub fn check_text(text: &str, holds: Holds) -> Result<(), TextError> {
    let bytes = text.as_bytes();
    let mut frames: Vec<Frame> = Vec::with_capacity(3);
    let (mut level, mut docs, mut line, mut doc_line) = (0usize, 0usize, 1usize, 1usize);
    let mut line_start = 0usize;
    let mut found: Option<TextError> = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] != b'\\' {
                        i += 1;
                        continue;
                    }
                    if bytes.get(i + 1) != Some(&b'u') {
                        i += 2;
                        continue;
                    }
                    // A high surrogate followed by a low one is a pair.
                    let paired = bytes.get(i + 6..i + 8) == Some(&b"\\u"[..])
                        && hex4(bytes, i + 8).is_some_and(|lo| (0xDC00..=0xDFFF).contains(&lo));
                    i += match hex4(bytes, i + 2) {
                        Some(0xD800..=0xDBFF) if paired => 12,
                        Some(0xD800..=0xDFFF) => {
                            if found.is_none() {
                                found = Some(TextError::LoneSurrogate(LoneSurrogate {
                                    escape: String::from_utf8_lossy(&bytes[i..i + 6]).into_owned(),
                                    line,
                                    column: i - line_start + 1,
                                }));
                            }
                            6
                        }
                        _ => 2,
                    };
                }
                if level == 0 {
                    docs += 1;
                }
                if let Some(f) = frames.last_mut().filter(|_| level <= 3) {
                    if f.object && f.expect_key {
                        f.key = (start, i.min(bytes.len()));
                        f.expect_key = false;
                    }
                }
            }
            b'[' | b'{' => {
                if level == 0 {
                    docs += 1;
                    doc_line = line;
                }
                level += 1;
                if level > MAX_DEPTH && found.is_none() {
                    let (place, enclosing) = unit(holds, bytes, &frames);
                    if level - enclosing > MAX_DEPTH {
                        found = Some(TextError::TooDeep(TooDeep {
                            place,
                            line: Some(doc_line),
                            limit: MAX_DEPTH,
                        }));
                    }
                }
                if level <= 3 {
                    frames.push(Frame {
                        object: bytes[i] == b'{',
                        index: 0,
                        key: (0, 0),
                        expect_key: true,
                    });
                }
            }
            b']' | b'}' => {
                if level <= 3 {
                    frames.pop();
                }
                level = level.saturating_sub(1);
            }
            b',' => {
                if let Some(f) = frames.last_mut().filter(|_| level <= 3) {
                    if f.object {
                        f.expect_key = true;
                    } else {
                        f.index += 1;
                    }
                }
            }
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b' ' | b'\t' | b'\r' | b':' => {}
            _ if level == 0 => {
                // A scalar at the top level: another value.
                docs += 1;
                while i + 1 < bytes.len() && !bytes[i + 1].is_ascii_whitespace() {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    match found {
        None => Ok(()),
        Some(TextError::TooDeep(mut deep)) => {
            // The entry's line only for JSON Lines.
            if docs <= 1 || holds != Holds::Histories {
                deep.line = None;
            }
            Err(TextError::TooDeep(deep))
        }
        Some(other) => Err(other),
    }
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
    /// The exit code of the command line's rule (spec v1 §8.11): 1 for a
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
mod tests {
    use super::*;

    fn nest(n: usize) -> String {
        format!("{}{}", "[".repeat(n), "]".repeat(n))
    }

    #[test]
    fn depth_is_measured_per_message_and_named_by_place() {
        let deep = |holds, text: &str| check_text(text, holds).map_err(|e| e.to_string());
        let ok = nest(MAX_DEPTH);
        let over = nest(MAX_DEPTH + 1);
        // A message may nest MAX_DEPTH levels, in any container.
        for text in [
            format!("[{ok}]"),
            format!("{{\"messages\": [{{}}, {ok}], \"meta\": {ok}}}"),
            format!("{{\"messages\": [{ok}]}}\n[{ok}]\n"),
        ] {
            assert_eq!(deep(Holds::Histories, &text), Ok(()), "{text:.40}");
        }
        assert_eq!(
            deep(Holds::Histories, &format!("[{{}}, \"x\", {over}]")),
            Err("message 2: nested deeper than 100 levels".into())
        );
        assert_eq!(
            deep(
                Holds::Histories,
                &format!("{{\"maxMessages\": 1, \"messages\": [[], {{\"a\": {ok}}}]}}")
            ),
            Err("message 1: nested deeper than 100 levels".into())
        );
        assert_eq!(
            deep(
                Holds::Histories,
                &format!("{{\"messages\": [], \"meta\": {over}}}")
            ),
            Err("member `meta`: nested deeper than 100 levels".into())
        );
        // JSON Lines: the line of the entry.
        let deep_at = |text: &str| match check_text(text, Holds::Histories) {
            Err(TextError::TooDeep(d)) => (d.line, d.place),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            deep_at(&format!("[]\n\n[{over}]\n")),
            (Some(3), "message 0".to_string())
        );
        assert_eq!(
            deep_at(&format!("[{over}]")),
            (None, "message 0".to_string())
        );
        // Case files: a case or an array of them.
        let case =
            |m: &str| format!("{{\"id\": \"a\", \"messages\": [{{}}, {m}], \"expected\": []}}");
        assert_eq!(deep(Holds::Cases, &case(&ok)), Ok(()));
        assert_eq!(
            deep(Holds::Cases, &format!("[{}, {}]", case("[]"), case(&ok))),
            Ok(())
        );
        assert_eq!(
            deep(Holds::Cases, &case(&over)),
            Err("message 1: nested deeper than 100 levels".into())
        );
        assert_eq!(
            deep(Holds::Cases, &format!("[{}, {}]", case("[]"), case(&over))),
            Err("case 1: message 1: nested deeper than 100 levels".into())
        );
        assert_eq!(
            deep(Holds::Cases, &format!("{{\"expected\": [{over}]}}")),
            Err("expected message 0: nested deeper than 100 levels".into())
        );
        assert_eq!(
            deep(Holds::Cases, &nest(100_000)),
            Err("case 0: nested deeper than 100 levels".into())
        );
        assert_eq!(
            deep(Holds::Histories, &nest(100_000)),
            Err("message 0: nested deeper than 100 levels".into())
        );
        // Brackets inside strings and escaped quotes do not count.
        let quoted = format!("[\"{}\\\"{}\"]", "[".repeat(500), "{".repeat(500));
        assert_eq!(deep(Holds::Histories, &quoted), Ok(()));
        assert_eq!(
            deep(Holds::Other, &format!("[1, {over}]")),
            Err("element 1: nested deeper than 100 levels".into())
        );
        // Not JSON at all: left to the parser.
        assert_eq!(deep(Holds::Histories, "]]]} {oops"), Ok(()));
    }

    #[test]
    fn lone_surrogates_are_refused_by_both_readers_and_pairs_read() {
        let text = "[{\"role\": \"user\", \"contents\": [{\"$type\": \"text\",\n \"text\": \"a\\ud83d\\ude00 \\udc00\"}]}]";
        for e in [
            parse_entries(text, "f.json").unwrap_err(),
            parse_raw_entries(text, "f.json").unwrap_err(),
        ] {
            assert_eq!(
                e.to_string(),
                "f.json: not JSON: lone surrogate \\udc00 at line 2 column 25"
            );
            assert_eq!(e.exit_code(), 2);
        }
        for ok in [r#"["\ud83d\ude00", "\\ud800", "\u00e9"]"#, r#"["\"\\"]"#] {
            assert_eq!(check_text(ok, Holds::Histories), Ok(()), "{ok}");
            assert!(serde_json::from_str::<Value>(ok).is_ok());
        }
        for bad in [
            r#"["\ud800"]"#,
            r#"["\ud800\n"]"#,
            r#"["\ud800\ud800"]"#,
            r#"["\udfff"]"#,
        ] {
            assert!(check_text(bad, Holds::Histories).is_err(), "{bad}");
            assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn deep_input_is_refused_before_parsing_by_both_readers() {
        let text = format!("[{{}}, {}]", nest(MAX_DEPTH + 1));
        for e in [
            parse_entries(&text, "f.json").unwrap_err(),
            parse_raw_entries(&text, "f.json").unwrap_err(),
        ] {
            assert_eq!(
                e.to_string(),
                "f.json: message 1: nested deeper than 100 levels"
            );
            assert_eq!(e.exit_code(), 1);
        }
        let e = parse_entries(&format!("[]\n[{}]\n", nest(MAX_DEPTH + 1)), "f.jsonl").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.jsonl:2: message 0: nested deeper than 100 levels"
        );
        // Deep but within the limit: read, whatever the container.
        let m = format!("{{\"a\": {}}}", nest(MAX_DEPTH - 1));
        let e = parse_entries(&format!("{{\"messages\": [{m}]}}"), "x").unwrap();
        assert_eq!(e[0].messages.len(), 1);
    }

    #[test]
    fn the_gate_reads_regular_files_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("h.json");
        std::fs::write(&f, "[]").unwrap();
        assert_eq!(read_regular(&f, 2).unwrap(), b"[]");
        let e = read_regular(&f, 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "larger than the limit of 1 bytes (--max-input)"
        );
        let e = read_regular(dir.path(), 100).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a directory)");
        let e = read_regular(Path::new("/dev/zero"), 100).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a character device)");
        assert_eq!(read_limited(&b"abc"[..], 3).unwrap(), b"abc");
        assert_eq!(
            read_limited(std::io::repeat(0), 10)
                .unwrap_err()
                .to_string(),
            "larger than the limit of 10 bytes (--max-input)"
        );
        assert_eq!(
            utf8(vec![b'a', 0xff]).unwrap_err().to_string(),
            "not UTF-8 (invalid byte at offset 1)"
        );
        let e = read_input(f.with_extension("missing").to_str().unwrap(), 10).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string()
                .ends_with("h.missing: No such file or directory (os error 2)"),
            "{e}"
        );
    }

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
