//! Writing JSON whose size is linear in its input's (spec §8.11): pretty
//! at the top levels and compact below ([`BoundedPretty`]), and the
//! relayer that writes `reduce`'s output from the input's own text
//! ([`Relayer`]).

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io::Write;

/// How many levels of nesting pretty JSON lays out one value per line
/// ([`BoundedPretty`]); anything deeper is written compactly. 16 covers
/// every history, case and report as they come (a report's message items
/// sit at level 11).
pub const PRETTY_DEPTH: usize = 16;

/// A `serde_json` formatter that writes what `serde_json`'s pretty printer
/// writes (two-space indents, `": "`) for the arrays and objects of the top
/// [`PRETTY_DEPTH`] levels, less the levels `at` the value is written
/// under, and deeper ones compactly, as `serde_json::to_string` writes
/// them.
#[derive(Clone, Debug)]
pub struct BoundedPretty {
    /// The depth of the innermost open array or object.
    depth: usize,
    /// The levels laid out one value per line.
    pretty: usize,
    has_value: bool,
}

impl BoundedPretty {
    /// A formatter for a value written at the top level.
    pub fn new() -> BoundedPretty {
        BoundedPretty::at(0)
    }

    /// A formatter for a value that the document holds `at` levels deep
    /// (its lines indented by the caller): its own top levels are laid out
    /// as [`PRETTY_DEPTH`] `- at` levels.
    pub fn at(at: usize) -> BoundedPretty {
        BoundedPretty {
            depth: 0,
            pretty: PRETTY_DEPTH.saturating_sub(at),
            has_value: false,
        }
    }

    fn indent<W: ?Sized + Write>(&self, w: &mut W, depth: usize) -> std::io::Result<()> {
        for _ in 0..depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    /// Before an element or a key of the innermost container.
    fn begin_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        if self.depth > self.pretty {
            return if first { Ok(()) } else { w.write_all(b",") };
        }
        w.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(w, self.depth)
    }

    fn begin<W: ?Sized + Write>(&mut self, w: &mut W, open: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(open)
    }

    fn end<W: ?Sized + Write>(&mut self, w: &mut W, close: &[u8]) -> std::io::Result<()> {
        let closing = self.depth;
        self.depth -= 1;
        if self.has_value && closing <= self.pretty {
            w.write_all(b"\n")?;
            self.indent(w, self.depth)?;
        }
        w.write_all(close)
    }
}

impl Default for BoundedPretty {
    fn default() -> Self {
        BoundedPretty::new()
    }
}

impl Formatter for BoundedPretty {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.begin(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.end(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.begin_value(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.begin(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.end(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.begin_value(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(if self.depth > self.pretty {
            b":"
        } else {
            b": "
        })
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// `value` as the kit's pretty JSON ([`BoundedPretty`]): what
/// `serde_json::to_string_pretty` writes for the top [`PRETTY_DEPTH`]
/// levels, compact below.
///
/// # Errors
///
/// Those of `value`'s `Serialize` (never for a `serde_json::Value`).
///
/// # Examples
///
/// ```
/// use reducer_kit::json::{to_string_pretty, PRETTY_DEPTH};
/// let v = serde_json::json!({"a": [1, {"b": null}]});
/// assert_eq!(to_string_pretty(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap());
/// let deep: serde_json::Value = serde_json::from_str(&format!("{}{}", "[".repeat(40), "]".repeat(40))).unwrap();
/// let text = to_string_pretty(&deep).unwrap();
/// assert_eq!(text.lines().count(), 2 * PRETTY_DEPTH + 1);
/// ```
pub fn to_string_pretty<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    to_string_pretty_at(value, 0)
}

/// [`to_string_pretty`] of a value the document holds `at` levels deep
/// (the caller indents its lines): [`BoundedPretty::at`].
///
/// # Errors
///
/// As [`to_string_pretty`].
pub fn to_string_pretty_at<T: Serialize + ?Sized>(
    value: &T,
    at: usize,
) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(128);
    to_writer_pretty_at(&mut out, value, at)?;
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

/// [`to_string_pretty_at`], written to `out`.
///
/// # Errors
///
/// As [`to_string_pretty`], and those of `out`.
pub fn to_writer_pretty_at<W: Write, T: Serialize + ?Sized>(
    out: W,
    value: &T,
    at: usize,
) -> serde_json::Result<()> {
    value.serialize(&mut serde_json::Serializer::with_formatter(
        out,
        BoundedPretty::at(at),
    ))
}

/// Writes JSON text laid out as `serde_json` writes the value it denotes
/// (compact, or the kit's bounded pretty layout, [`to_string_pretty`]),
/// copying its tokens: numbers and literals as they are, strings as they
/// are unless they hold an escape `serde_json` would write otherwise (then
/// decoded and re-encoded). So the output is byte for byte what serialising
/// the parsed value gives, without parsing it, and at most a constant
/// factor of the input's bytes whatever its nesting. Feed it whole values
/// or single punctuation marks, in order.
///
/// # Examples
///
/// ```
/// use reducer_kit::json::Relayer;
/// let mut out = Vec::new();
/// let mut r = Relayer::new(true);
/// r.feed("[", &mut out).unwrap();
/// r.feed(r#"{ "a" : [1, 2.50], "b": {}, "c": "\u00e9" }"#, &mut out).unwrap();
/// r.feed("]", &mut out).unwrap();
/// let v: serde_json::Value = serde_json::from_str(r#"[{"a":[1,2.50],"b":{},"c":"\u00e9"}]"#).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), reducer_kit::json::to_string_pretty(&v).unwrap());
/// ```
#[derive(Debug)]
pub struct Relayer {
    pretty: bool,
    depth: usize,
    /// What came last: an opening bracket, a comma, or anything else.
    after: After,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    Open,
    Comma,
    Other,
}

impl Relayer {
    /// A relayer writing pretty (`true`) or compact JSON.
    pub fn new(pretty: bool) -> Relayer {
        Relayer {
            pretty,
            depth: 0,
            after: After::Other,
        }
    }

    /// Whether the innermost open container (at `depth`) is laid out one
    /// value per line.
    fn laid_out(&self, depth: usize) -> bool {
        self.pretty && depth <= PRETTY_DEPTH
    }

    fn newline(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        out.write_all(b"\n")?;
        for _ in 0..self.depth {
            out.write_all(b"  ")?;
        }
        Ok(())
    }

    /// Before a value or a key: a new line in pretty mode after `[`, `{` or
    /// `,`.
    fn before_value(&mut self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        if self.laid_out(self.depth) && self.after != After::Other {
            self.newline(out)?;
        }
        self.after = After::Other;
        Ok(())
    }

    /// Writes the tokens of `text` (valid JSON text, or a part of it made
    /// of whole tokens) to `out`.
    ///
    /// # Errors
    ///
    /// Those of `out`.
    pub fn feed(&mut self, text: &str, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                b'[' | b'{' => {
                    self.before_value(out)?;
                    out.write_all(&[c])?;
                    self.depth += 1;
                    self.after = After::Open;
                    i += 1;
                }
                b']' | b'}' => {
                    let closing = self.depth;
                    self.depth -= 1;
                    if self.laid_out(closing) && self.after != After::Open {
                        self.newline(out)?;
                    }
                    out.write_all(&[c])?;
                    self.after = After::Other;
                    i += 1;
                }
                b',' => {
                    out.write_all(b",")?;
                    self.after = After::Comma;
                    i += 1;
                }
                b':' => {
                    out.write_all(if self.laid_out(self.depth) {
                        b": "
                    } else {
                        b":"
                    })?;
                    self.after = After::Other;
                    i += 1;
                }
                b'"' => {
                    self.before_value(out)?;
                    let start = i;
                    let mut escaped = false;
                    i += 1;
                    while bytes[i] != b'"' {
                        if bytes[i] == b'\\' {
                            escaped = true;
                            i += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                    let token = &text[start..i];
                    if escaped {
                        let decoded: String = serde_json::from_str(token)
                            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
                        serde_json::to_writer(&mut *out, &decoded)?;
                    } else {
                        out.write_all(token.as_bytes())?;
                    }
                }
                _ => {
                    self.before_value(out)?;
                    let start = i;
                    while i < bytes.len()
                        && !matches!(
                            bytes[i],
                            b',' | b']' | b'}' | b':' | b' ' | b'\t' | b'\n' | b'\r'
                        )
                    {
                        i += 1;
                    }
                    let token = &bytes[start..i];
                    let is_number = matches!(token[0], b'-' | b'0'..=b'9');
                    match token
                        .iter()
                        .position(|&b| is_number && (b == b'e' || b == b'E'))
                    {
                        // serde_json writes an exponent as `e` and a sign.
                        Some(e) => {
                            out.write_all(&token[..e])?;
                            out.write_all(b"e")?;
                            if !matches!(token.get(e + 1), Some(b'+' | b'-')) {
                                out.write_all(b"+")?;
                            }
                            out.write_all(&token[e + 1..])?;
                        }
                        None => out.write_all(token)?,
                    }
                }
            }
        }
        Ok(())
    }
}

/// What stands for a member streamed into a pretty text made without it:
/// the text is split at this string (quoted) and the member written there
/// ([`write_array_at1`]).
pub const STREAMED: &str = "\u{0}streamed\u{0}";

/// Writes `items` as the elements of a pretty array that is a member of
/// the top-level object (its elements indented by 4 spaces), as
/// [`to_string_pretty`] lays out the whole document, one element at a time.
///
/// # Errors
///
/// Those of `out`, and of an item's `Serialize`.
pub fn write_array_at1<T: Serialize>(
    out: &mut dyn Write,
    items: impl Iterator<Item = T>,
) -> std::io::Result<()> {
    let mut empty = true;
    for item in items {
        out.write_all(if empty { b"[\n" } else { b",\n" })?;
        empty = false;
        let text = to_string_pretty_at(&item, 2)?;
        for (j, line) in text.lines().enumerate() {
            if j > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(b"    ")?;
            out.write_all(line.as_bytes())?;
        }
    }
    out.write_all(if empty { b"[]" } else { b"\n  ]" })
}
