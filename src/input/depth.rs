//! The depth gate (spec §8.11): how deep a history's messages nest and
//! whether its text holds a lone surrogate escape, measured on the text
//! before it is parsed, so that no reader builds a value it cannot write
//! back.

use super::MAX_DEPTH;

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
pub(super) struct Frame {
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
pub(super) fn unit(holds: Holds, text: &[u8], frames: &[Frame]) -> (String, usize) {
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
pub(super) fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
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
