//! The canonical text of a history's messages, in one buffer: equality of
//! messages by their bytes (spec §1.3).
//!
//! Every message is written once in the canonical text of
//! [`canonical_json`](super::canonical_json) (members sorted by name,
//! numbers in canonical form, no spaces). Two messages are equal
//! ([`json_eq`](super::json_eq)) exactly when their canonical texts are the
//! same bytes, so whoever compares messages many times (the checker: the
//! output against the input and against four other answers) pays for one
//! walk of each value tree and then compares a hash and contiguous bytes,
//! never two trees: no hash collision can change an answer, since equal
//! hashes are confirmed on the bytes.
//!
//! For a message that is an object whose items member (the format's
//! [`items_key`](crate::formats::Format::items_key), given by the caller)
//! is an array, the spans of that array and of each of its elements are
//! kept too: "equal but for some removed elements" (spec §7) is judged
//! on bytes as well (the text before the array, the elements, the text
//! after it; members are sorted, so the array sits at the same place in
//! both messages when the other members are equal).

use super::{Decimal, Number, Value};
use std::hash::BuildHasher;

/// "No items array".
const NONE: usize = usize::MAX;

/// Where one message's canonical text lies in [`CanonHistory`]'s buffer.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
    /// The offsets of the items array's `[` and `]`, or [`NONE`].
    open: usize,
    close: usize,
    /// Its elements' spans: `elems[first..last]` of the history.
    first: u32,
    last: u32,
    hash: u64,
}

/// The canonical texts of a history's messages (see the module doc): one
/// buffer of text, one span per message, one span per element of each
/// message's items array.
///
/// # Examples
///
/// ```
/// use reducer_kit::json::canon::CanonHistory;
/// let a: Vec<serde_json::Value> = serde_json::from_str(
///     r#"[{"role":"user","contents":[{"$type":"text","text":"hi"}]},{"n":1.0}]"#).unwrap();
/// let b: Vec<serde_json::Value> = serde_json::from_str(r#"[{"n":1},{"role":"tool"}]"#).unwrap();
/// let (ca, cb) = (CanonHistory::of("contents", &a), CanonHistory::of("contents", &b));
/// assert_eq!(ca.text(0), br#"{"contents":[{"$type":"text","text":"hi"}],"role":"user"}"#);
/// assert!(ca.same(1, &cb, 0));
/// assert!(!ca.same(0, &cb, 1));
/// let items = ca.items(0).unwrap();
/// assert_eq!(items.prefix, br#"{"contents":["#);
/// assert_eq!(ca.elem(&items, 0), br#"{"$type":"text","text":"hi"}"#);
/// assert_eq!(items.suffix, br#"],"role":"user"}"#);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CanonHistory {
    text: Vec<u8>,
    spans: Vec<Span>,
    elems: Vec<(usize, usize)>,
}

/// A message's items array, in its canonical text: the text up to and
/// including `[`, the elements (spans into the history's buffer: read them
/// with [`CanonHistory::elem`]), and the text from `]` on.
#[derive(Clone, Copy, Debug)]
pub struct Items<'a> {
    /// The message's text up to and including the array's `[`.
    pub prefix: &'a [u8],
    /// The message's text from the array's `]` to its end.
    pub suffix: &'a [u8],
    elems: &'a [(usize, usize)],
}

impl Items<'_> {
    /// How many elements the array has.
    pub fn len(&self) -> usize {
        self.elems.len()
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }
}

/// The hash of some canonical text ([`CanonHistory::hash`]).
pub fn text_hash(bytes: &[u8]) -> u64 {
    foldhash::fast::FixedState::with_seed(0xca70).hash_one(bytes)
}

impl CanonHistory {
    /// The canonical texts of `messages`, keeping the spans of each
    /// message's `items_key` array (when it is an object with such an
    /// array member). Any JSON value is accepted.
    pub fn of(items_key: &str, messages: &[Value]) -> CanonHistory {
        let mut w = Writer {
            out: Vec::with_capacity(messages.len() * 96),
            members: Vec::new(),
        };
        let mut spans = Vec::with_capacity(messages.len());
        let mut elems = Vec::with_capacity(messages.len() + messages.len() / 4);
        for m in messages {
            let start = w.out.len();
            let first = elems.len() as u32;
            let (open, close) = match m {
                Value::Object(o) => w.object(o, Some((items_key, &mut elems))),
                other => {
                    w.value(other);
                    (NONE, NONE)
                }
            };
            let end = w.out.len();
            // Only the message's own items array records elements.
            let last = elems.len() as u32;
            spans.push(Span {
                start,
                end,
                open,
                close,
                first,
                last,
                hash: text_hash(&w.out[start..end]),
            });
        }
        CanonHistory {
            text: w.out,
            spans,
            elems,
        }
    }

    /// The number of messages.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there is no message.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The canonical text of message `k`.
    ///
    /// # Panics
    ///
    /// When `k >= self.len()`.
    pub fn text(&self, k: usize) -> &[u8] {
        let s = &self.spans[k];
        &self.text[s.start..s.end]
    }

    /// The hash of message `k`'s canonical text ([`text_hash`]).
    pub fn hash(&self, k: usize) -> u64 {
        self.spans[k].hash
    }

    /// Whether message `k` equals message `j` of `other` (spec §1.3):
    /// the same canonical text.
    #[inline]
    pub fn same(&self, k: usize, other: &CanonHistory, j: usize) -> bool {
        self.spans[k].hash == other.spans[j].hash && self.text(k) == other.text(j)
    }

    /// Whether the two histories are equal message by message.
    pub fn same_history(&self, other: &CanonHistory) -> bool {
        self.len() == other.len() && (0..self.len()).all(|k| self.same(k, other, k))
    }

    /// Message `k`'s items array, when it is an object with an items array
    /// member.
    pub fn items(&self, k: usize) -> Option<Items<'_>> {
        let s = &self.spans[k];
        (s.open != NONE).then(|| Items {
            prefix: &self.text[s.start..=s.open],
            suffix: &self.text[s.close..s.end],
            elems: &self.elems[s.first as usize..s.last as usize],
        })
    }

    /// The canonical text of element `e` of `items` (an array of this
    /// history).
    ///
    /// # Panics
    ///
    /// When `e >= items.len()`.
    pub fn elem(&self, items: &Items<'_>, e: usize) -> &[u8] {
        let (a, b) = items.elems[e];
        &self.text[a..b]
    }
}

/// Writes the canonical text of `value` (that of
/// [`canonical_json`](super::canonical_json)) at the end of `out`.
pub fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    let mut w = Writer {
        out: std::mem::take(out),
        members: Vec::new(),
    };
    w.value(value);
    *out = w.out;
}

/// Writes canonical text; `members` is scratch for sorting members, used
/// as a stack across the recursion.
struct Writer<'v> {
    out: Vec<u8>,
    members: Vec<(&'v str, &'v Value)>,
}

impl<'v> Writer<'v> {
    fn value(&mut self, v: &'v Value) {
        match v {
            Value::Null => self.out.extend_from_slice(b"null"),
            Value::Bool(true) => self.out.extend_from_slice(b"true"),
            Value::Bool(false) => self.out.extend_from_slice(b"false"),
            Value::Number(n) => write_number(n, &mut self.out),
            Value::String(s) => write_string(s, &mut self.out),
            Value::Array(a) => {
                self.out.push(b'[');
                for (i, e) in a.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.value(e);
                }
                self.out.push(b']');
            }
            Value::Object(o) => {
                self.object(o, None);
            }
        }
    }

    /// Writes an object, members sorted by name; with `items`, records the
    /// spans of the member of that name when it is an array (its `[` and
    /// `]` offsets are returned, else `NONE`).
    fn object(
        &mut self,
        o: &'v serde_json::Map<String, Value>,
        mut items: Option<(&str, &mut Vec<(usize, usize)>)>,
    ) -> (usize, usize) {
        let base = self.members.len();
        self.members.extend(o.iter().map(|(k, v)| (k.as_str(), v)));
        // Insertion sort: objects are small, and names mostly differ in
        // their first byte.
        let members = &mut self.members[base..];
        for i in 1..members.len() {
            let mut j = i;
            while j > 0 && name_less(members[j].0, members[j - 1].0) {
                members.swap(j, j - 1);
                j -= 1;
            }
        }
        let mut span = (NONE, NONE);
        self.out.push(b'{');
        for i in base..self.members.len() {
            let (k, v) = self.members[i];
            if i > base {
                self.out.push(b',');
            }
            write_string(k, &mut self.out);
            self.out.push(b':');
            match (&mut items, v) {
                (Some((key, elems)), Value::Array(a)) if k == *key => {
                    let open = self.out.len();
                    self.out.push(b'[');
                    for (e, x) in a.iter().enumerate() {
                        if e > 0 {
                            self.out.push(b',');
                        }
                        let start = self.out.len();
                        self.value(x);
                        elems.push((start, self.out.len()));
                    }
                    span = (open, self.out.len());
                    self.out.push(b']');
                }
                _ => self.value(v),
            }
        }
        self.out.push(b'}');
        self.members.truncate(base);
        span
    }
}

/// Byte order of member names (that of [`canonical_json`](super::canonical_json)),
/// deciding on the first byte without a call when it differs.
#[inline]
fn name_less(a: &str, b: &str) -> bool {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y => x < y,
        _ => a < b,
    }
}

/// A JSON string as `serde_json` writes it (the text of
/// [`canonical_json`](super::canonical_json)).
#[inline]
fn write_string(s: &str, out: &mut Vec<u8>) {
    let b = s.as_bytes();
    if needs_escape(b) {
        serde_json::to_writer(&mut *out, s).expect("writing to a Vec cannot fail");
        return;
    }
    out.reserve(b.len() + 2);
    out.push(b'"');
    out.extend_from_slice(b);
    out.push(b'"');
}

/// Whether `serde_json` writes some byte of `b` escaped: `"`, `\\` or a
/// control character (eight bytes at a time).
#[inline]
fn needs_escape(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Whether some byte of `x` is zero, or below 0x20.
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH != 0;
    let below = |x: u64| x.wrapping_sub(ONES * 0x20) & !x & HIGH != 0;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes(c.try_into().expect("eight bytes"));
        if below(x) || zero(x ^ (ONES * u64::from(b'"'))) || zero(x ^ (ONES * u64::from(b'\\'))) {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|&c| c < 0x20 || c == b'"' || c == b'\\')
}

/// A number's canonical text ([`canonical_number`](super::canonical_number)):
/// plain integers directly, anything else through [`Decimal`].
fn write_number(n: &Number, out: &mut Vec<u8>) {
    let text = n.as_str();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let plain = !digits.is_empty()
        && !digits.starts_with('0')
        && digits.bytes().all(|b| b.is_ascii_digit());
    if plain {
        let significant = digits.trim_end_matches('0');
        if negative {
            out.push(b'-');
        }
        out.extend_from_slice(significant.as_bytes());
        out.push(b'e');
        push_count(digits.len() - significant.len(), out);
    } else {
        out.extend_from_slice(Decimal::parse(text).to_string().as_bytes());
    }
}

/// Writes `n` in decimal.
fn push_count(n: usize, out: &mut Vec<u8>) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::json::{canonical_number, json_eq};
    use quickcheck::{Arbitrary, Gen};

    /// The canonical text as first written (value by value, through
    /// `to_string`): the oracle of the buffer writer.
    fn canonical_json(value: &Value) -> String {
        let mut out = String::new();
        oracle(value, &mut out);
        out
    }

    fn oracle(value: &Value, out: &mut String) {
        match value {
            Value::Number(n) => out.push_str(&canonical_number(n)),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    oracle(item, out);
                }
                out.push(']');
            }
            Value::Object(members) => {
                let mut names: Vec<&String> = members.keys().collect();
                names.sort();
                out.push('{');
                for (i, name) in names.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(name.clone()).to_string());
                    out.push(':');
                    oracle(&members[name], out);
                }
                out.push('}');
            }
            other => out.push_str(&other.to_string()),
        }
    }

    #[test]
    fn the_text_is_canonical_json() {
        let values = [
            json!({"b": 12.0, "a": [1, "x", -0.0, -120, 1.5e3, "\u{1}\"\\é"], "\u{7f}": null}),
            json!([true, false, {}, [], {"z": {"y": 1, "x": [0]}}]),
            json!("plain"),
            json!(0),
            serde_json::from_str::<Value>("100000000000000000000000000000").unwrap(),
            serde_json::from_str::<Value>("-7.250e-3").unwrap(),
        ];
        let c = CanonHistory::of("a", &values);
        for (k, v) in values.iter().enumerate() {
            assert_eq!(
                std::str::from_utf8(c.text(k)).unwrap(),
                canonical_json(v),
                "{v}"
            );
        }
        let items = c.items(0).unwrap();
        assert_eq!(items.len(), 6);
        assert_eq!(c.elem(&items, 3), b"-12e1");
        assert_eq!(items.prefix, br#"{"a":["#);
        assert_eq!(items.suffix, "],\"b\":12e0,\"\u{7f}\":null}".as_bytes());
        assert!(c.items(1).is_none());
    }

    #[test]
    fn equal_values_have_the_same_text() {
        let a: Vec<Value> =
            serde_json::from_str(r#"[{"x": 1, "y": [2.0, {"q": "é"}]}, 10, "s"]"#).unwrap();
        let b: Vec<Value> =
            serde_json::from_str(r#"[{"y": [2, {"q": "\u00e9"}], "x": 1e0}, 1e1, "s"]"#).unwrap();
        let (ca, cb) = (CanonHistory::of("y", &a), CanonHistory::of("y", &b));
        assert!(ca.same_history(&cb));
        assert_eq!(ca.hash(0), cb.hash(0));
        let c: Vec<Value> = serde_json::from_str(r#"[{"x": 1, "y": [2.5]}]"#).unwrap();
        assert!(!CanonHistory::of("y", &c).same(0, &ca, 0));
    }

    #[test]
    fn element_spans_belong_to_their_message() {
        let h: Vec<Value> = serde_json::from_str(
            r#"[{"c": [1, 2]}, {"c": "text"}, {"d": 1}, {"c": []}, {"c": [[3], {"c": [4]}]}]"#,
        )
        .unwrap();
        let c = CanonHistory::of("c", &h);
        let elems = |k: usize| {
            let items = c.items(k).unwrap();
            (0..items.len())
                .map(|e| String::from_utf8(c.elem(&items, e).to_vec()).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(elems(0), ["1e0", "2e0"]);
        assert!(c.items(1).is_none());
        assert!(c.items(2).is_none());
        assert_eq!(elems(3), Vec::<String>::new());
        assert_eq!(elems(4), ["[3e0]", r#"{"c":[4e0]}"#]);
    }

    fn v(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn equal_numbers_and_members_in_any_order_have_one_text() {
        let same = crate::json::tests::EQUAL
            .into_iter()
            .chain([("-12", "-1.2e1"), (r#""\u00e9\/""#, r#""é/""#)]);
        for (a, b) in same {
            let c = CanonHistory::of("", &[v(a), v(b)]);
            assert!(c.same(0, &c, 1), "{a} {b}");
        }
        let differ = [
            ("1", "-1"),
            ("[1,2]", "[2,1]"),
            (r#"{"a":1}"#, r#"{"a":"1"}"#),
            ("10", "1"),
            (r#"{"a":1}"#, r#"{"a":1,"b":null}"#),
            (r#""a""#, r#""a ""#),
        ];
        for (a, b) in differ {
            let c = CanonHistory::of("", &[v(a), v(b)]);
            assert!(!c.same(0, &c, 1), "{a} {b}");
        }
    }

    /// A small JSON value.
    #[derive(Clone, Debug)]
    struct J(Value);

    fn gen_value(g: &mut Gen, depth: u32) -> Value {
        let pick = u8::arbitrary(g) % if depth == 0 { 5 } else { 7 };
        match pick {
            0 => Value::Null,
            1 => Value::Bool(bool::arbitrary(g)),
            2 => json!(i64::arbitrary(g) % 1000),
            3 => v(["1.5", "-0.0", "2e3", "120", "0.001", "7"][usize::arbitrary(g) % 6]),
            4 => Value::String(
                [
                    "",
                    "a",
                    "é",
                    "q\"u",
                    "\\",
                    "\n\u{1}",
                    "role",
                    "eight by\"tes and more",
                    "0123456789abcdef\\",
                    "tab\there, more than eight",
                    "no escapes here, just a sentence",
                ][usize::arbitrary(g) % 11]
                    .into(),
            ),
            5 => Value::Array(
                (0..usize::arbitrary(g) % 4)
                    .map(|_| gen_value(g, depth - 1))
                    .collect(),
            ),
            _ => Value::Object(
                (0..usize::arbitrary(g) % 4)
                    .map(|_| {
                        let k = ["a", "b", "$type", "contents", "é"][usize::arbitrary(g) % 5];
                        (k.to_string(), gen_value(g, depth - 1))
                    })
                    .collect(),
            ),
        }
    }

    impl Arbitrary for J {
        fn arbitrary(g: &mut Gen) -> J {
            J(gen_value(g, 3))
        }
    }

    /// The same value spelled otherwise: members in reverse order,
    /// integers as decimals.
    fn respelled(v: &Value) -> Value {
        match v {
            Value::Object(o) => Value::Object(
                o.iter()
                    .rev()
                    .map(|(k, x)| (k.clone(), respelled(x)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(respelled).collect()),
            Value::Number(n) if n.as_str().bytes().all(|b| b.is_ascii_digit()) => {
                serde_json::from_str(&format!("{}.0", n.as_str())).unwrap()
            }
            other => other.clone(),
        }
    }

    quickcheck::quickcheck! {
        fn text_is_the_oracles(a: J) -> bool {
            let c = CanonHistory::of("contents", std::slice::from_ref(&a.0));
            c.text(0) == canonical_json(&a.0).as_bytes()
        }

        fn same_text_exactly_when_equal(a: J, b: J) -> bool {
            let again = respelled(&a.0);
            let c = CanonHistory::of("contents", &[a.0.clone(), b.0.clone(), again]);
            c.same(0, &c, 1) == json_eq(&a.0, &b.0) && c.same(0, &c, 2)
        }
    }
}
