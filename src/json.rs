//! JSON value equality and difference paths (semantics §1, "equal").
//!
//! Two JSON values are *equal* when objects have the same members in any
//! order, arrays are equal element by element, strings are equal, and numbers
//! denote the same value (`1` = `1.0` = `10e-1`). `serde_json`'s own `==`
//! compares number representations, so the kit uses [`json_eq`] everywhere a
//! clause or rule says "equal".

use serde_json::{Number, Value};

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
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => false,
    }
}

/// Whether two JSON numbers denote the same value, compared exactly on their
/// decimal text (no floating-point rounding).
pub fn number_eq(a: &Number, b: &Number) -> bool {
    let (x, y) = (a.to_string(), b.to_string());
    x == y || normalize_number(&x) == normalize_number(&y)
}

/// A decimal number in normal form: sign, significant digits without leading
/// or trailing zeros, and the power of ten of the last digit. Zero is
/// `(false, "", 0)`.
pub(crate) fn normalize_number(text: &str) -> (bool, String, i64) {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (rest, 0),
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    let mut digits: String = int_part.chars().chain(frac_part.chars()).collect();
    let mut exp = exponent.saturating_sub(frac_part.len() as i64);
    let trimmed_trailing = digits.trim_end_matches('0').len();
    exp = exp.saturating_add((digits.len() - trimmed_trailing) as i64);
    digits.truncate(trimmed_trailing);
    let digits = digits.trim_start_matches('0').to_string();
    if digits.is_empty() {
        return (false, String::new(), 0);
    }
    (negative, digits, exp)
}

/// The JSON path (`$[3].contents[1].callId` style) of the first place where
/// `a` and `b` differ, or `None` when they are equal (see [`json_eq`]).
///
/// Object members are visited in `a`'s order, then members only `b` has.
pub fn first_difference(a: &Value, b: &Value) -> Option<String> {
    let mut path = String::from("$");
    if diff_at(a, b, &mut path) {
        Some(path)
    } else {
        None
    }
}

fn diff_at(a: &Value, b: &Value, path: &mut String) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => (0..x.len().max(y.len()))
            .any(|i| diff_below(x.get(i), y.get(i), &format!("[{i}]"), path)),
        (Value::Object(x), Value::Object(y)) => {
            let mut keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            keys.any(|k| {
                let step =
                    if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !k.is_empty() {
                        format!(".{k}")
                    } else {
                        format!("[{}]", Value::String(k.clone()))
                    };
                diff_below(x.get(k), y.get(k), &step, path)
            })
        }
        _ => !json_eq(a, b),
    }
}

/// Whether the members (or elements) `p` and `q` at `step` below `path`
/// differ, either missing counting as a difference; on a difference `path`
/// is left pointing at it.
fn diff_below(p: Option<&Value>, q: Option<&Value>, step: &str, path: &mut String) -> bool {
    let len = path.len();
    path.push_str(step);
    let differs = match (p, q) {
        (Some(p), Some(q)) => diff_at(p, q, path),
        _ => true,
    };
    if !differs {
        path.truncate(len);
    }
    differs
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
}
