//! JSON value equality and difference paths (spec §1, "equal"), and
//! the kit's pretty layout.
//!
//! Two JSON values are *equal* when objects have the same members in any
//! order, arrays are equal element by element, strings are equal, and numbers
//! denote the same value (`1` = `1.0` = `10e-1`). `serde_json`'s own `==`
//! compares number representations, so the kit uses [`json_eq`] everywhere a
//! clause or rule says "equal".
//!
//! | file | owns |
//! |------|------|
//! | `mod.rs` | equality ([`json_eq`], [`number_eq`]), hashes consistent with it, canonical numbers, difference paths ([`first_difference`], [`difference_values`]), [`to_nearest_doubles`], [`json_len`] |
//! | [`canon`] | canonical texts of messages, compared as bytes |
//! | `decimal.rs` | exact decimal values of number texts, whatever their exponent |
//! | `pretty.rs` | pretty JSON bounded in size ([`BoundedPretty`]), `reduce`'s [`Relayer`] |
//!
//! **Pretty JSON is bounded** (spec §8.11): every pretty JSON the kit
//! writes (`reduce`'s output, case files, the JSON report) lays out the top
//! [`PRETTY_DEPTH`] levels as `serde_json`'s pretty printer does, one value
//! per line with two-space indents, and writes anything deeper compactly
//! ([`BoundedPretty`], [`to_string_pretty`], [`Relayer`]). An indent per
//! level makes a value nested n deep take O(n²) bytes; with the bound, what
//! the kit writes is at most a constant factor of the compact text
//! (about `2 × PRETTY_DEPTH + 3` bytes per byte in the worst case, a
//! shallow array of one-digit numbers; histories as they come, far less).

use serde_json::{Map, Number, Value};

pub mod canon;
mod decimal;
mod pretty;

pub(crate) use decimal::{BigInt, Decimal};
pub use pretty::{
    to_string_pretty, to_string_pretty_at, to_writer_pretty_at, write_array_at1, BoundedPretty,
    Relayer, PRETTY_DEPTH, STREAMED,
};

/// The length in bytes of `value` written as compact JSON text
/// (`serde_json::to_writer`), counted without building the text: what a
/// report says of a history it does not copy (spec §9.1). A value that
/// cannot be written (a map with non-string keys) counts the bytes
/// written before the error.
pub fn json_len<T: serde::Serialize + ?Sized>(value: &T) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len() as u64;
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, value);
    c.0
}

/// Whether `a` and `b` are equal JSON values in the sense of spec §1.
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
/// the answers before judging them (spec §16.7). Returns whether anything
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

/// The canonical text of a JSON number: equal numbers (spec §1.3) and
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
/// text exactly when they are equal ([`json_eq`], spec §1.3). Object
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
    // same order pairwise instead of looking each key up.
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

#[cfg(test)]
mod tests;
