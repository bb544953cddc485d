//! JSON value equality and difference paths (semantics §1, "equal"), and
//! the kit's pretty layout.
//!
//! Two JSON values are *equal* when objects have the same members in any
//! order, arrays are equal element by element, strings are equal, and numbers
//! denote the same value (`1` = `1.0` = `10e-1`). `serde_json`'s own `==`
//! compares number representations, so the kit uses [`json_eq`] everywhere a
//! clause or rule says "equal".
//!
//! **Pretty JSON is bounded** (spec v1 §8.11): every pretty JSON the kit
//! writes (`reduce`'s output, case files, the JSON report) lays out the top
//! [`PRETTY_DEPTH`] levels as `serde_json`'s pretty printer does, one value
//! per line with two-space indents, and writes anything deeper compactly
//! ([`BoundedPretty`], [`to_string_pretty`], [`Relayer`]). An indent per
//! level makes a value nested n deep take O(n²) bytes; with the bound, what
//! the kit writes is at most a constant factor of the compact text
//! (about `2 × PRETTY_DEPTH + 3` bytes per byte in the worst case, a
//! shallow array of one-digit numbers; histories as they come, far less).

pub mod canon;

use serde::Serialize;
use serde_json::ser::Formatter;
use serde_json::{Map, Number, Value};
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

/// Whether `a` and `b` are equal JSON values in the sense of semantics §1.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use reducer_kit::json::json_eq;
/// assert!(json_eq(&json!({"a": 1, "b": [true]}), &serde_json::from_str(r#"{"b":[true],"a":1.0}"#).unwrap()));
/// assert!(!json_eq(&json!("1"), &json!(1)));
/// ```
pub fn json_eq(a: &Value, b: &Value) -> bool {
    // A value is equal to itself (JSON has no NaN): an answer the runner
    // borrows instead of copying is compared without a walk.
    if std::ptr::eq(a, b) {
        return true;
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && objects_eq(x, y),
        _ => false,
    }
}

/// Object equality for objects of the same size: members in the same order
/// (the usual case) compare pairwise; from the first key that differs on,
/// by lookup.
fn objects_eq(x: &Map<String, Value>, y: &Map<String, Value>) -> bool {
    for (n, ((k, v), (l, w))) in x.iter().zip(y).enumerate() {
        if k != l {
            return x
                .iter()
                .skip(n)
                .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)));
        }
        if !json_eq(v, w) {
            return false;
        }
    }
    true
}

/// Whether two JSON numbers denote the same value, compared exactly on their
/// decimal text (no floating-point rounding, whatever the size of the
/// exponent: `1e99999999999999999999` is not `1`).
pub fn number_eq(a: &Number, b: &Number) -> bool {
    let (x, y) = (a.as_str(), b.as_str());
    x == y || Decimal::parse(x) == Decimal::parse(y)
}

/// Rewrites every number of `value` that an IEEE double cannot carry
/// exactly as the nearest double, and a number beyond the doubles' range
/// as `null` (what `JSON.stringify` writes for the infinity a JavaScript
/// reader makes of it): how `--declare json-numbers` reads the input and
/// the answers before judging them (spec v2 §16.7). Returns whether anything
/// changed.
///
/// # Examples
///
/// ```
/// use reducer_kit::json::{json_eq, to_nearest_doubles};
/// let mut v: serde_json::Value = serde_json::from_str(r#"[1e400, 123456789012345678901234567890, 0.5, 7]"#).unwrap();
/// assert!(to_nearest_doubles(&mut v));
/// let js: serde_json::Value = serde_json::from_str(r#"[null, 1.2345678901234568e+29, 0.5, 7]"#).unwrap();
/// assert!(json_eq(&v, &js));
/// ```
pub fn to_nearest_doubles(value: &mut Value) -> bool {
    match value {
        Value::Number(n) => {
            let Ok(f) = n.as_str().parse::<f64>() else {
                return false;
            };
            match Number::from_f64(f) {
                None => {
                    *value = Value::Null;
                    true
                }
                Some(d) if !number_eq(n, &d) => {
                    *n = d;
                    true
                }
                Some(_) => false,
            }
        }
        Value::Array(a) => a.iter_mut().fold(false, |c, v| to_nearest_doubles(v) | c),
        Value::Object(o) => o.values_mut().fold(false, |c, v| to_nearest_doubles(v) | c),
        _ => false,
    }
}

/// A 64-bit hash of a JSON value consistent with [`json_eq`]: equal values
/// hash alike (object members in any order, numbers by value). Different
/// values may collide; callers confirm with [`json_eq`].
pub fn json_hash(v: &Value) -> u64 {
    match v {
        Value::Null => mix(1, 0),
        Value::Bool(b) => mix(2, u64::from(*b)),
        Value::String(s) => mix(3, str_hash(s)),
        Value::Number(n) => mix(4, number_hash(n)),
        Value::Array(a) => {
            let mut h = mix(5, a.len() as u64);
            for e in a {
                h = mix(h, json_hash(e));
            }
            h
        }
        Value::Object(o) => {
            object_hash(o.len(), o.iter().map(|(k, v)| member_hash(k, json_hash(v))))
        }
    }
}

/// The hash of one object member whose value hashes to `value`: objects
/// hash as the wrapping sum of their members' hashes
/// ([`object_hash`]), so that member order does not matter.
pub fn member_hash(key: &str, value: u64) -> u64 {
    mix(str_hash(key), value)
}

/// The hash of an object of `len` members from its members' hashes
/// ([`member_hash`]), in any order.
pub fn object_hash(len: usize, members: impl Iterator<Item = u64>) -> u64 {
    let sum = members.fold(0u64, u64::wrapping_add);
    mix(mix(6, len as u64), sum)
}

/// Combines two hashes (not commutative).
pub fn mix(a: u64, b: u64) -> u64 {
    let x = (a ^ b.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (x ^ (x >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ a.rotate_left(7)
}

fn str_hash(s: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x6a5d).hash_one(s)
}

fn bytes_hash(b: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x6a5e).hash_one(b)
}

fn number_hash(n: &Number) -> u64 {
    let text = n.as_str();
    // Plain integers without trailing zeros are already in normal form:
    // their own digits, exponent zero, not negative (as `Decimal::parse`
    // would read them, without building it).
    let plain =
        text.bytes().all(|b| b.is_ascii_digit()) && !text.starts_with('0') && !text.ends_with('0');
    if plain {
        return decimal_hash(false, text, &BigInt::zero());
    }
    let d = Decimal::parse(text);
    decimal_hash(d.negative, &d.digits, &d.exponent)
}

/// The hash of a [`Decimal`] from its parts: numbers equal under
/// [`number_eq`] have the same parts, so they hash alike whatever the size
/// of their exponent.
fn decimal_hash(negative: bool, digits: &str, exponent: &BigInt) -> u64 {
    let exp = mix(u64::from(exponent.negative), bytes_hash(&exponent.digits));
    mix(mix(str_hash(digits), exp), u64::from(negative))
}

/// The canonical text of a JSON number: equal numbers (semantics §1.3) and
/// only they have the same text. `0` for zero, else an optional `-`, the
/// significant digits without leading or trailing zeros, `e` and the power
/// of ten of the last digit: `12.0`, `12` and `1.2e1` are all `12e0`.
///
/// # Examples
///
/// ```
/// use reducer_kit::json::canonical_number;
/// let n = |s: &str| serde_json::from_str::<serde_json::Number>(s).unwrap();
/// assert_eq!(canonical_number(&n("12.0")), "12e0");
/// assert_eq!(canonical_number(&n("1.2e1")), "12e0");
/// assert_eq!(canonical_number(&n("-0.0")), "0");
/// assert_eq!(canonical_number(&n("1e99999999999999999999")), "1e99999999999999999999");
/// ```
pub fn canonical_number(n: &Number) -> String {
    Decimal::parse(&n.to_string()).to_string()
}

/// The canonical text of a JSON value: two values have the same canonical
/// text exactly when they are equal ([`json_eq`], semantics §1.3). Object
/// members sorted by name, numbers as [`canonical_number`] writes them
/// (as strings would be ambiguous, they are written bare), strings and
/// names as JSON strings, no spaces.
///
/// # Examples
///
/// ```
/// use reducer_kit::json::canonical_json;
/// let a: serde_json::Value = serde_json::from_str(r#"{"b": 12.0, "a": [1, "x"]}"#).unwrap();
/// let b: serde_json::Value = serde_json::from_str(r#"{"a": [1e0, "x"], "b": 12}"#).unwrap();
/// assert_eq!(canonical_json(&a), canonical_json(&b));
/// assert_eq!(canonical_json(&a), r#"{"a":[1e0,"x"],"b":12e0}"#);
/// ```
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::new();
    canon::write_canonical(value, &mut out);
    String::from_utf8(out).expect("canonical text is UTF-8")
}

/// A JSON number's exact value: sign, significant digits without leading
/// or trailing zeros, and the power of ten of the last digit, of any size.
/// Zero is `negative: false`, no digits, exponent 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    /// Below zero.
    pub negative: bool,
    /// The significant digits, ASCII, neither starting nor ending with `0`.
    pub digits: String,
    /// The power of ten of the last digit.
    pub exponent: BigInt,
}

impl Decimal {
    /// Reads the text of a JSON number (as `serde_json` keeps it with
    /// `arbitrary_precision`; a leading `+` is accepted). Text that is not
    /// a number reads as whatever digits it holds; it never panics.
    pub fn parse(text: &str) -> Decimal {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], BigInt::parse(&rest[i + 1..])),
            None => (rest, BigInt::zero()),
        };
        let (int_part, frac_part) = match mantissa.find('.') {
            Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
            None => (mantissa, ""),
        };
        let all: String = int_part
            .chars()
            .chain(frac_part.chars())
            .filter(char::is_ascii_digit)
            .collect();
        let significant = all.trim_end_matches('0');
        let trailing = all.len() - significant.len();
        let digits = significant.trim_start_matches('0').to_string();
        if digits.is_empty() {
            return Decimal {
                negative: false,
                digits,
                exponent: BigInt::zero(),
            };
        }
        // Both lengths are at most the text's length, so they fit an i128.
        let shift = trailing as i128 - frac_part.len() as i128;
        Decimal {
            negative,
            digits,
            exponent: exponent.add(&BigInt::from_i128(shift)),
        }
    }
}

impl std::fmt::Display for Decimal {
    /// The canonical text ([`canonical_number`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.digits.is_empty() {
            return f.write_str("0");
        }
        let sign = if self.negative { "-" } else { "" };
        write!(f, "{sign}{}e{}", self.digits, self.exponent)
    }
}

/// A whole number of any size, in decimal (the exponent of a
/// [`Decimal`]): a sign and its digits without leading zeros; zero has no
/// digits and is not negative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BigInt {
    negative: bool,
    digits: Vec<u8>,
}

impl BigInt {
    fn zero() -> BigInt {
        BigInt {
            negative: false,
            digits: Vec::new(),
        }
    }

    /// An optional sign and decimal digits; other characters are ignored.
    fn parse(text: &str) -> BigInt {
        let negative = text.starts_with('-');
        let digits: Vec<u8> = text
            .bytes()
            .filter(u8::is_ascii_digit)
            .map(|b| b - b'0')
            .skip_while(|&d| d == 0)
            .collect();
        BigInt::new(negative, digits)
    }

    fn new(negative: bool, digits: Vec<u8>) -> BigInt {
        let negative = negative && !digits.is_empty();
        BigInt { negative, digits }
    }

    fn from_i128(n: i128) -> BigInt {
        BigInt::parse(&n.to_string())
    }

    /// Below zero.
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// The value, when it fits an `i64`.
    pub fn to_i64(&self) -> Option<i64> {
        if self.digits.len() > 18 {
            return None;
        }
        let magnitude = self
            .digits
            .iter()
            .fold(0i64, |acc, &d| acc * 10 + i64::from(d));
        Some(if self.negative { -magnitude } else { magnitude })
    }

    fn add(&self, other: &BigInt) -> BigInt {
        if self.negative == other.negative {
            return BigInt::new(self.negative, add_magnitudes(&self.digits, &other.digits));
        }
        match compare_magnitudes(&self.digits, &other.digits) {
            std::cmp::Ordering::Equal => BigInt::zero(),
            std::cmp::Ordering::Greater => BigInt::new(
                self.negative,
                subtract_magnitudes(&self.digits, &other.digits),
            ),
            std::cmp::Ordering::Less => BigInt::new(
                other.negative,
                subtract_magnitudes(&other.digits, &self.digits),
            ),
        }
    }
}

impl std::fmt::Display for BigInt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.digits.is_empty() {
            return f.write_str("0");
        }
        if self.negative {
            f.write_str("-")?;
        }
        let text: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        f.write_str(&text)
    }
}

/// Compares two magnitudes (digits, most significant first, no leading
/// zeros).
fn compare_magnitudes(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn add_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut i, mut j, mut carry) = (a.len(), b.len(), 0u8);
    while i > 0 || j > 0 || carry > 0 {
        let mut sum = carry;
        if i > 0 {
            i -= 1;
            sum += a[i];
        }
        if j > 0 {
            j -= 1;
            sum += b[j];
        }
        out.push(sum % 10);
        carry = sum / 10;
    }
    out.reverse();
    out
}

/// `a - b` for `a >= b`.
fn subtract_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let (mut i, mut j, mut borrow) = (a.len(), b.len(), 0i8);
    while i > 0 {
        i -= 1;
        let mut d = a[i] as i8 - borrow;
        if j > 0 {
            j -= 1;
            d -= b[j] as i8;
        }
        borrow = i8::from(d < 0);
        out.push((d + 10 * borrow) as u8);
    }
    while out.len() > 1 && out.last() == Some(&0) {
        out.pop();
    }
    out.reverse();
    if out == [0] {
        out.clear();
    }
    out
}

/// The JSON path (`$[3].contents[1].callId` style) of the first place where
/// `a` and `b` differ, or `None` when they are equal (see [`json_eq`]).
///
/// Object members are visited in `a`'s order, then members only `b` has.
pub fn first_difference(a: &Value, b: &Value) -> Option<String> {
    // Each node is visited once; the steps are spelled out only along the
    // path to the difference, innermost first, as the search unwinds.
    let mut steps = Vec::new();
    diff_at(a, b, &mut steps).then(|| {
        steps.reverse();
        format!("${}", steps.concat())
    })
}

/// The first difference between two JSON values ([`difference_values`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Difference<'a> {
    /// Where, as [`first_difference`] writes it: `$.contents[0].result`.
    pub path: String,
    /// Where, as a JSON pointer (RFC 6901): `/contents/0/result`.
    pub pointer: String,
    /// The first value there (`None`: it has no such member or element).
    pub was: Option<&'a Value>,
    /// The second value there.
    pub is: Option<&'a Value>,
}

/// The first difference between `a` and `b`, as [`first_difference`]
/// finds it, with the two values there; `None` when they are equal.
///
/// # Examples
///
/// ```
/// use reducer_kit::json::difference_values;
/// use serde_json::json;
/// let (a, b) = (json!({"x": [1, 2.5]}), json!({"x": [1, null]}));
/// let d = difference_values(&a, &b).unwrap();
/// assert_eq!((d.path.as_str(), d.pointer.as_str()), ("$.x[1]", "/x/1"));
/// assert_eq!((d.was, d.is), (Some(&json!(2.5)), Some(&json!(null))));
/// ```
pub fn difference_values<'a>(a: &'a Value, b: &'a Value) -> Option<Difference<'a>> {
    if json_eq(a, b) {
        return None;
    }
    let below =
        |step: String, token: String, x: Option<&'a Value>, y: Option<&'a Value>| match (x, y) {
            (Some(x), Some(y)) => difference_values(x, y).map(|d| Difference {
                path: format!("{step}{}", &d.path[1..]),
                pointer: format!("/{token}{}", d.pointer),
                ..d
            }),
            _ => Some(Difference {
                path: step,
                pointer: format!("/{token}"),
                was: x,
                is: y,
            }),
        };
    let found = match (a, b) {
        (Value::Array(x), Value::Array(y)) => (0..x.len().max(y.len()))
            .find_map(|i| below(format!("$[{i}]"), i.to_string(), x.get(i), y.get(i))),
        (Value::Object(x), Value::Object(y)) => x
            .keys()
            .chain(y.keys().filter(|k| !x.contains_key(*k)))
            .find_map(|k| {
                let step =
                    if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !k.is_empty() {
                        format!("$.{k}")
                    } else {
                        format!("$[{}]", Value::String(k.clone()))
                    };
                let token = k.replace('~', "~0").replace('/', "~1");
                below(step, token, x.get(k), y.get(k))
            }),
        _ => None,
    };
    found.or_else(|| {
        Some(Difference {
            path: "$".into(),
            pointer: String::new(),
            was: Some(a),
            is: Some(b),
        })
    })
}

/// [`first_difference`] of the arrays `a` and `b` (given as slices, not
/// built): `$[i]` and the path below it at the first message `i` that
/// differs (`$[i]` alone where one array has no element `i`), or `None`
/// when they are equal.
pub fn first_difference_in(a: &[Value], b: &[Value]) -> Option<String> {
    (0..a.len().max(b.len())).find_map(|i| match (a.get(i), b.get(i)) {
        (Some(x), Some(y)) => first_difference(x, y).map(|p| format!("$[{i}]{}", &p[1..])),
        _ => Some(format!("$[{i}]")),
    })
}

/// Whether `a` and `b` differ; on a difference `steps` holds the path to
/// it below this node, innermost step first.
fn diff_at(a: &Value, b: &Value, steps: &mut Vec<String>) -> bool {
    // Equal values (the usual case: most messages of an answer are those
    // of the other) are told by `json_eq`, which compares members in the
    // same order pairwise instead of looking each key up (issue 14).
    if json_eq(a, b) {
        return false;
    }
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => (0..x.len().max(y.len())).any(|i| {
            diff_below(x.get(i), y.get(i), steps) && {
                steps.push(format!("[{i}]"));
                true
            }
        }),
        (Value::Object(x), Value::Object(y)) => {
            let mut keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            keys.any(|k| {
                diff_below(x.get(k), y.get(k), steps) && {
                    steps.push(
                        if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !k.is_empty()
                        {
                            format!(".{k}")
                        } else {
                            format!("[{}]", Value::String(k.clone()))
                        },
                    );
                    true
                }
            })
        }
        // Scalars, or values of different kinds: not equal (above).
        _ => true,
    }
}

/// Whether the members (or elements) `p` and `q` differ, either missing
/// counting as a difference (then with no step below it).
fn diff_below(p: Option<&Value>, q: Option<&Value>, steps: &mut Vec<String>) -> bool {
    match (p, q) {
        (Some(p), Some(q)) => diff_at(p, q, steps),
        _ => true,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_eq(&v("1"), &v("1.0")));
        assert!(json_eq(&v("100"), &v("1e2")));
        assert!(json_eq(&v("0.5"), &v("5E-1")));
        assert!(json_eq(&v("-0"), &v("0.0")));
        assert!(!json_eq(&v("1"), &v("-1")));
        assert!(!json_eq(&v("0.1"), &v("0.10000000000000001")));
        assert!(json_eq(
            &v("123456789012345678901234567890"),
            &v("1.2345678901234567890123456789e29")
        ));
    }

    /// Exponents too large for any machine integer are compared exactly
    /// (issue 13: `1e99999999999999999999` was read as `1`).
    #[test]
    fn huge_exponents_compare_exactly() {
        assert!(!json_eq(&v("1"), &v("1e99999999999999999999")));
        assert!(!json_eq(
            &v(r#"{"amountCents": 1}"#),
            &v(r#"{"amountCents": 1e99999999999999999999}"#)
        ));
        assert!(!json_eq(&v("1"), &v("1e-99999999999999999999")));
        assert!(!json_eq(&v("2"), &v("2e99999999999999999999")));
        assert!(json_eq(
            &v("1e99999999999999999999"),
            &v("10e99999999999999999998")
        ));
        assert!(json_eq(
            &v("100e-100000000000000000002"),
            &v("1E-100000000000000000000")
        ));
        assert!(json_eq(&v("0e99999999999999999999"), &v("0")));
        assert!(json_eq(&v("-0.0e-99999999999999999999"), &v("0")));
        assert!(!json_eq(
            &v("1e99999999999999999999"),
            &v("1e99999999999999999998")
        ));
        assert!(!json_eq(
            &v("1e99999999999999999999"),
            &v("-1e99999999999999999999")
        ));
        assert!(!json_eq(
            &v("1e9223372036854775807"),
            &v("1e-9223372036854775808")
        ));
        let c = |s: &str| canonical_number(&serde_json::from_str(s).unwrap());
        assert_eq!(c("12"), "12e0");
        assert_eq!(c("12.0"), "12e0");
        assert_eq!(c("0.12e2"), "12e0");
        assert_eq!(c("1200e-2"), "12e0");
        assert_eq!(c("-0.5"), "-5e-1");
        assert_eq!(c("1e99999999999999999999"), "1e99999999999999999999");
        assert_eq!(c("10e99999999999999999999"), "1e100000000000000000000");
        assert_eq!(c("0.1e-99999999999999999999"), "1e-100000000000000000000");
        assert_eq!(c("1e400"), "1e400");
    }

    #[test]
    fn big_integer_arithmetic() {
        let b = |s: &str| BigInt::parse(s);
        assert_eq!(b("999").add(&b("1")).to_string(), "1000");
        assert_eq!(b("1000").add(&b("-1")).to_string(), "999");
        assert_eq!(b("-1000").add(&b("1")).to_string(), "-999");
        assert_eq!(b("5").add(&b("-5")).to_string(), "0");
        assert_eq!(b("-5").add(&b("-5")).to_string(), "-10");
        assert_eq!(b("3").add(&b("-10")).to_string(), "-7");
        assert_eq!(b("-0").to_string(), "0");
        assert!(!b("-0").is_negative());
        assert_eq!(b("-123").to_i64(), Some(-123));
        assert_eq!(b("1234567890123456789").to_i64(), None);
    }

    /// Pairs of JSON texts of equal values (semantics §1.3), also what the
    /// canonical texts are held to (`canon`'s tests).
    pub(crate) const EQUAL: [(&str, &str); 10] = [
        ("1", "1.0"),
        ("100", "1e2"),
        ("-0", "0.0"),
        ("120", "1.2E2"),
        ("1e99999999999999999999", "10e99999999999999999998"),
        ("100e-100000000000000000002", "1E-100000000000000000000"),
        ("0e99999999999999999999", "0"),
        ("-0.0e-99999999999999999999", "0"),
        ("12", "1200e-2"),
        (
            r#"{"a":1,"b":[2,{"c":null}]}"#,
            r#"{"b":[2.0,{"c":null}],"a":1}"#,
        ),
    ];

    #[test]
    fn hashes_agree_with_equality() {
        for (a, b) in EQUAL {
            assert!(json_eq(&v(a), &v(b)), "{a} {b}");
            assert_eq!(json_hash(&v(a)), json_hash(&v(b)), "{a} {b}");
        }
        let differ = [
            ("1", "-1"),
            ("[1,2]", "[2,1]"),
            (r#"{"a":1}"#, r#"{"a":"1"}"#),
            ("10", "1"),
            ("1", "1e99999999999999999999"),
            ("1e99999999999999999999", "1e99999999999999999998"),
            ("1e99999999999999999999", "-1e99999999999999999999"),
            ("1e9223372036854775807", "1e-9223372036854775808"),
        ];
        for (a, b) in differ {
            assert_ne!(json_hash(&v(a)), json_hash(&v(b)), "{a} {b}");
        }
    }

    #[test]
    fn pretty_is_serde_json_pretty_for_the_top_levels_and_compact_below() {
        let nested =
            |n: usize, inner: &str| format!("{}{inner}{}", "[{\"k\": ".repeat(n), "}]".repeat(n));
        // Up to PRETTY_DEPTH levels: serde_json's pretty printer, exactly.
        for text in [
            "[]".to_string(),
            r#"{"a":{},"b":[],"c":[[1,{"x":null}]],"d":"s"}"#.to_string(),
            nested(PRETTY_DEPTH / 2 - 1, "[1, 2]"),
        ] {
            let v: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                to_string_pretty(&v).unwrap(),
                serde_json::to_string_pretty(&v).unwrap(),
                "{text}"
            );
        }
        // Deeper: the levels below PRETTY_DEPTH on one line, compact.
        let v: Value = serde_json::from_str(&nested(PRETTY_DEPTH, "[1,{\"z\":2}]")).unwrap();
        let text = to_string_pretty(&v).unwrap();
        let last = text.lines().find(|l| l.contains('1')).unwrap();
        let tail = format!(
            "\"k\": {}[1,{{\"z\":2}}]{}",
            "[{\"k\":".repeat(PRETTY_DEPTH / 2),
            "}]".repeat(PRETTY_DEPTH / 2)
        );
        assert_eq!(last.trim_start(), tail);
        assert_eq!(last.len() - last.trim_start().len(), 2 * PRETTY_DEPTH);
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
        // At a depth: as if the document held it there.
        let inner: Value = serde_json::from_str(&nested(PRETTY_DEPTH, "0")).unwrap();
        let outer = Value::Array(vec![Value::Array(vec![inner.clone()])]);
        let whole = to_string_pretty(&outer).unwrap();
        let part = to_string_pretty_at(&inner, 2)
            .unwrap()
            .replace('\n', "\n    ");
        assert!(whole.contains(&part), "{whole}\n{part}");
    }

    #[test]
    fn pretty_output_is_linear_in_the_input_whatever_the_nesting() {
        for depth in [10, 1_000, 10_000] {
            let text = format!("[{}1{}]", "{\"a\":[".repeat(depth), "]}".repeat(depth));
            let mut out = Vec::new();
            Relayer::new(true).feed(&text, &mut out).unwrap();
            assert!(
                out.len() <= text.len() + 40 * PRETTY_DEPTH * PRETTY_DEPTH,
                "{depth} levels: {} bytes from {}",
                out.len(),
                text.len()
            );
            if depth <= 100 {
                let v: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    to_string_pretty(&v).unwrap()
                );
            }
        }
    }

    #[test]
    fn relaid_text_is_what_serde_json_writes() {
        let texts = [
            r#"[]"#,
            r#"{"a":{},"b":[],"c":[[]],"d":"x\"y\\z\u00e9\/\n\u0001","e":-1.50E+2,"f":[true,false,null]}"#,
            "[ {\"role\" : \"user\",\n  \"contents\": [ {\"$type\":\"text\", \"text\":\"a b\"} ] } , 3 ]",
        ];
        for text in texts {
            let v: Value = serde_json::from_str(text).unwrap();
            for pretty in [false, true] {
                let mut out = Vec::new();
                Relayer::new(pretty).feed(text, &mut out).unwrap();
                let want = if pretty {
                    to_string_pretty(&v).unwrap()
                } else {
                    serde_json::to_string(&v).unwrap()
                };
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    want,
                    "{text} pretty={pretty}"
                );
            }
        }
    }

    #[test]
    fn objects_ignore_member_order() {
        assert!(json_eq(&v(r#"{"a":1,"b":2}"#), &v(r#"{"b":2,"a":1}"#)));
        assert!(!json_eq(&v(r#"{"a":1}"#), &v(r#"{"a":1,"b":null}"#)));
        assert!(!json_eq(&json!([1, 2]), &json!([2, 1])));
    }

    #[test]
    fn difference_path_names_first_mismatch() {
        let a = json!([{"role": "user", "contents": [{"$type": "text", "text": "hi"}]}]);
        let b = json!([{"role": "user", "contents": [{"$type": "text", "text": "ho"}]}]);
        assert_eq!(
            first_difference(&a, &b).as_deref(),
            Some("$[0].contents[0].text")
        );
        assert_eq!(first_difference(&a, &a), None);
        assert_eq!(
            first_difference(&json!({"$type": 1}), &json!({"$type": 2})).as_deref(),
            Some("$[\"$type\"]")
        );
        assert_eq!(
            first_difference(&json!([1]), &json!([1, 2])).as_deref(),
            Some("$[1]")
        );
    }

    #[test]
    fn difference_of_slices_names_what_the_arrays_would() {
        let a = vec![json!({"role": "user"}), json!({"x": [1, {"k": "v"}]})];
        let b = vec![json!({"role": "user"}), json!({"x": [1, {"k": "w"}]})];
        assert_eq!(first_difference_in(&a, &b).as_deref(), Some("$[1].x[1].k"));
        assert_eq!(first_difference_in(&a, &a), None);
        assert_eq!(first_difference_in(&a[..1], &a).as_deref(), Some("$[1]"));
        assert_eq!(first_difference_in(&a, &[]).as_deref(), Some("$[0]"));
        let (wa, wb) = (Value::Array(a.clone()), Value::Array(b.clone()));
        assert_eq!(first_difference_in(&a, &b), first_difference(&wa, &wb));
    }
}
