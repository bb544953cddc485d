//! Tests of the parent module.

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
/// (`1e99999999999999999999` is not `1`).
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

/// Pairs of JSON texts of equal values (spec §1.3), also what the
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
