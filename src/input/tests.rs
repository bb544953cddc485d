//! Tests of the parent module.

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
    let case = |m: &str| format!("{{\"id\": \"a\", \"messages\": [{{}}, {m}], \"expected\": []}}");
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
