//! The command line end to end: reduce, validate, check, serve, certify,
//! and the exit codes and messages for bad input.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn kit() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_reducer-kit"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn data(name: &str) -> PathBuf {
    root().join("tests/data").join(name)
}

fn run(args: &[&str]) -> Output {
    kit().args(args).stdin(Stdio::null()).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn seed() -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(data("order-shipment.json")).unwrap()).unwrap()
}

#[test]
fn reduce_suffix_three_prints_the_last_two_messages() {
    let out = run(&[
        "reduce",
        "--policy",
        "suffix",
        "--max",
        "3",
        data("order-shipment.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got, Value::Array(seed()[4..].to_vec()));
    assert_eq!(got[0]["contents"][0]["text"], "Your order has shipped.");
    assert_eq!(got[1]["contents"][0]["text"], "When should it arrive?");
}

#[test]
fn reduce_turns_three_prints_only_the_last_question() {
    let out = run(&[
        "reduce",
        "--policy",
        "turns",
        "--max",
        "3",
        data("order-shipment.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        got,
        json!([{"role": "user", "contents": [{"$type": "text", "text": "When should it arrive?"}]}])
    );
}

#[test]
fn reduce_reads_an_envelope_from_stdin() {
    let mut child = kit()
        .args(["reduce", "--policy", "suffix", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let req = json!({"maxMessages": 5, "messages": seed()});
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), req.to_string().as_bytes()).unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["messages"], Value::Array(seed()[1..].to_vec()));
    assert_eq!(got["maxMessages"], 5);
}

#[test]
fn reduce_openai_jsonl_keeps_other_members_line_by_line() {
    let sample = root().join("corpus/tau-bench/sample.jsonl");
    let out = run(&[
        "reduce",
        "--format",
        "openai",
        "--max",
        "8",
        "--policy",
        "turns",
        sample.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 20);
    let first_in: Value = serde_json::from_str(
        std::fs::read_to_string(&sample)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(lines[0]["task_id"], first_in["task_id"]);
    assert_eq!(lines[0]["messages"][0], first_in["messages"][0]);
    for l in &lines {
        assert!(l["messages"].as_array().unwrap().len() <= 9);
    }
}

#[test]
fn bad_input_gets_one_clear_line_and_the_right_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let not_json = dir.path().join("x.json");
    std::fs::write(&not_json, "{oops").unwrap();
    // Unreadable input (not JSON) is exit 2, as a missing file is.
    let out = run(&["reduce", "--max", "3", not_json.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("x.json: not JSON: key must be a string at line 1 column 2"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());

    let out = run(&[
        "reduce",
        "--max",
        "0",
        data("order-shipment.json").to_str().unwrap(),
    ]);
    // `--max 0` is a usage error naming the option, not the input file.
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: invalid value '0' for '--max <N>': a budget is a whole number >= 1 (3, 3.0 and 3e0 are all 3)\n\nFor more information, try '--help'.\n"
    );

    let out = run(&[
        "reduce",
        "--max",
        "3",
        "--policy",
        "newest",
        data("order-shipment.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("invalid value 'newest' for '--policy <POLICY>'"));

    let out = run(&["reduce", "--max", "3", "/nonexistent/h.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/h.json: No such file or directory"));

    let wrong = dir.path().join("w.json");
    std::fs::write(
        &wrong,
        r#"[{"role": "assistant", "contents": [{"$type": "functionCall"}]}]"#,
    )
    .unwrap();
    let out = run(&["reduce", "--max", "3", wrong.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("w.json: message 0, content 0: functionCall has no `callId`"),
        "{}",
        text(&out.stderr)
    );

    let lines = dir.path().join("l.jsonl");
    std::fs::write(&lines, "[]\n[]\n{\"messages\": 3}\n").unwrap();
    let out = run(&["reduce", "--max", "3", lines.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("l.jsonl:3: `messages` is not an array"));
    assert!(out.stdout.is_empty(), "no partial output");

    // check: an unreadable output, histories and responses that do not
    // pair, and no budget are exit 2; an output that fails is exit 1.
    let input = data("order-shipment.json");
    let input = input.to_str().unwrap();
    let check = |args: &[&str]| run(&[&["check", "--policy", "suffix"][..], args].concat());
    let out = check(&["--max", "3", input, not_json.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "reducer-kit: error: {}: not JSON: key must be a string at line 1 column 2\n",
            not_json.display()
        )
    );
    let out = check(&["--max", "3", input, lines.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("l.jsonl:3: expected an array of messages"));
    let two = dir.path().join("two.jsonl");
    std::fs::write(&two, "[]\n[]\n").unwrap();
    let out = check(&["--max", "3", input, two.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "reducer-kit: error: {input} holds 1 histories but {} holds 2 responses\n",
            two.display()
        )
    );
    let out = check(&[input, input]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!("reducer-kit: error: {input}: no budget: pass --max N or give maxMessages\n")
    );
    assert!(out.stdout.is_empty());
    let out = check(&["--max", "3", input, input]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn max_is_read_as_max_messages_is() {
    let file = data("order-shipment.json");
    let file = file.to_str().unwrap();
    let want = run(&["reduce", "--policy", "suffix", "--max", "3", file]);
    assert_eq!(want.status.code(), Some(0));
    assert_eq!(
        serde_json::from_slice::<Value>(&want.stdout).unwrap(),
        Value::Array(seed()[4..].to_vec())
    );
    for max in ["3.0", "3e0", "0.3e1"] {
        let out = run(&["reduce", "--policy", "suffix", "--max", max, file]);
        assert_eq!(out.status.code(), Some(0), "{max}: {}", text(&out.stderr));
        assert_eq!(out.stdout, want.stdout, "{max}");
    }
    // Beyond 2^64: no limit, every message kept.
    let out = run(&["reduce", "--max", "18446744073709551617", file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        Value::Array(seed())
    );
    for (max, why) in [
        (
            "2.5",
            "a budget is a whole number >= 1 (3, 3.0 and 3e0 are all 3)",
        ),
        (
            "-1",
            "a budget is a whole number >= 1 (3, 3.0 and 3e0 are all 3)",
        ),
        (
            "three",
            "not a number; a budget is a whole number >= 1 (3, 3.0 and 3e0 are all 3)",
        ),
    ] {
        let out = run(&["reduce", "--max", max, file]);
        assert_eq!(out.status.code(), Some(2), "{max}");
        assert!(
            text(&out.stderr).starts_with(&format!(
                "error: invalid value '{max}' for '--max <N>': {why}\n"
            )),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn reduce_envelope_says_the_budget_it_used() {
    let dir = tempfile::tempdir().unwrap();
    let env = dir.path().join("env.json");
    let req = json!({"maxMessages": 1, "task": 7, "messages": seed()});
    std::fs::write(&env, req.to_string()).unwrap();
    let out = run(&[
        "reduce",
        "--policy",
        "suffix",
        "--max",
        "3",
        env.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        got,
        json!({"maxMessages": 3, "task": 7, "messages": seed()[4..].to_vec()})
    );
    // --max-tokens replaces maxMessages by maxTokens.
    let out = run(&[
        "reduce",
        "--policy",
        "suffix",
        "--max-tokens",
        "2",
        "--costs",
        "text-length",
        env.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&str> = got
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["task", "maxTokens", "messages"]);
    assert_eq!(got["maxTokens"], 2);
}

#[test]
fn every_help_states_the_exit_code_rule() {
    let rule = "Exit codes:\n  0  pass: everything judged passed (or the work is done)\n  1  a judged failure:";
    for sub in [
        &["reduce"][..],
        &["validate"],
        &["check"],
        &["serve"],
        &["generate"],
        &["corpus"],
        &["corpus", "regen"],
        &["corpus", "check"],
        &["corpus", "add"],
        &["corpus", "min"],
        &["corpus", "seed-fuzz"],
        &["certify"],
    ] {
        let out = run(&[sub, &["--help"]].concat());
        assert_eq!(out.status.code(), Some(0), "{sub:?}");
        let help = text(&out.stdout);
        assert!(help.contains("Exit codes:\n  0  pass: "), "{sub:?}: {help}");
        assert!(
            help.contains("  2  usage or unreadable input: a bad option"),
            "{sub:?}: {help}"
        );
        if sub != ["certify"] {
            assert!(help.contains(rule), "{sub:?}: {help}");
        } else {
            assert!(help.contains("  130, 143  stopped by SIGINT, SIGTERM"));
        }
    }
}

/// OpenAI messages read as canonical (or Gemini) are
/// refused with exit 2 by validate, reduce and check, naming the format
/// they look like; nothing goes to stdout.
#[test]
fn messages_in_another_format_are_refused_with_a_suggestion() {
    let sample = root().join("corpus/tau-bench/sample.jsonl");
    let sample = sample.to_str().unwrap();
    let first = format!("{sample}:1");
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.json");
    let line = std::fs::read_to_string(sample).unwrap();
    std::fs::write(&one, line.lines().next().unwrap()).unwrap();
    let one = one.to_str().unwrap();
    let canonical = "no message has the shape of canonical messages (`contents` arrays of `$type` items); they look like openai: try --format openai";
    let cases: [(&[&str], String); 4] = [
        (&["validate", sample], format!("{first}: {canonical}")),
        (&["reduce", "--max", "3", sample], format!("{first}: {canonical}")),
        (
            &["check", "--policy", "turns", "--max", "3", one, one],
            format!("{one}: {canonical}"),
        ),
        (
            &["validate", "--format", "gemini", sample],
            format!("{first}: no message has the shape of gemini messages (`parts` arrays); they look like openai: try --format openai"),
        ),
    ];
    for (args, want) in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stderr), format!("reducer-kit: error: {want}\n"));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // In its own format it is read (and valid); an empty history and a
    // history of bare messages are never refused.
    let out = run(&["validate", "--format", "openai", sample]);
    assert_eq!(out.status.code(), Some(0));
    let bare = dir.path().join("bare.jsonl");
    std::fs::write(&bare, "[]\n[{\"role\": \"user\"}]\n").unwrap();
    let out = run(&["validate", bare.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "2 histories: all valid\n");
}

/// check's output file is a history too: an output in another format than
/// `--format` is refused with exit 2 and the suggestion (as the input is),
/// not judged clause by clause (which convicted it of system-pinned,
/// no-fabrication, maximal-suffix and matches-reference, exit 1).
#[test]
fn check_refuses_an_output_in_another_format() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.json");
    std::fs::write(
        &input,
        r#"[{"role":"system","content":"sys"},{"role":"user","content":"hi"},{"role":"assistant","content":"done"}]"#,
    )
    .unwrap();
    let output = dir.path().join("output.json");
    std::fs::write(
        &output,
        r#"{"messages":[{"role":"assistant","contents":[{"$type":"text","text":"done"}]}]}"#,
    )
    .unwrap();
    let lines = dir.path().join("output.jsonl");
    std::fs::write(
        &lines,
        "[{\"role\":\"assistant\",\"contents\":[{\"$type\":\"text\",\"text\":\"done\"}]}]\n",
    )
    .unwrap();
    let (input, output, lines) = (
        input.to_str().unwrap(),
        output.to_str().unwrap(),
        lines.to_str().unwrap(),
    );
    let openai = "no message has the shape of openai messages";
    for (out_path, place) in [(output, output.to_string()), (lines, lines.to_string())] {
        let out = run(&[
            "check", "--format", "openai", "--policy", "suffix", "--max", "2", input, out_path,
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with(&format!("reducer-kit: error: {place}: {openai}")),
            "{stderr}"
        );
        assert!(
            stderr.ends_with("they look like canonical: try --format canonical\n"),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
    // The same output in the chosen format is judged (and passes).
    std::fs::write(
        dir.path().join("good.json"),
        r#"[{"role":"system","content":"sys"},{"role":"user","content":"hi"},{"role":"assistant","content":"done"}]"#,
    )
    .unwrap();
    let good = dir.path().join("good.json");
    let out = run(&[
        "check",
        "--format",
        "openai",
        "--policy",
        "suffix",
        "--max",
        "2",
        input,
        good.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).ends_with("11 passed, 0 failed\n"));
}

/// check reads either file from stdin as `-` (the output too: it was
/// "-: No such file or directory"), and refuses both as `-` (exit 2).
#[test]
fn check_reads_the_output_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.json");
    let history = r#"[{"role":"system","content":"sys"},{"role":"user","content":"hi"},{"role":"assistant","content":"done"}]"#;
    std::fs::write(&input, history).unwrap();
    let input = input.to_str().unwrap();
    let check = |args: &[&str], stdin: &str| {
        let mut child = kit()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A child that refuses its arguments exits without reading stdin:
        // the write then fails with a broken pipe, which is no failure here.
        let _ = std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin.as_bytes());
        child.wait_with_output().unwrap()
    };
    let base = [
        "check", "--format", "openai", "--policy", "suffix", "--max", "2",
    ];
    let mut args = base.to_vec();
    args.extend([input, "-"]);
    let out = check(&args, history);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).ends_with("11 passed, 0 failed\n"));
    // A short output from stdin is judged, and convicted.
    let out = check(
        &args,
        r#"{"messages":[{"role":"assistant","content":"done"}]}"#,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains(
        "FAIL        system-pinned: the pinned system message (input message 0) is missing"
    ));
    // Both from stdin: a usage error, nothing judged.
    let mut args = base.to_vec();
    args.extend(["-", "-"]);
    let out = check(&args, history);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "reducer-kit: error: INPUT and OUTPUT cannot both be `-` (stdin): give one of them as a file\n"
    );
    assert!(out.stdout.is_empty());
    // An output line count that differs names stdin as <stdin>.
    let mut args = base.to_vec();
    args.extend([input, "-"]);
    let out = check(&args, "[]\n[]\n");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!("reducer-kit: error: {input} holds 1 histories but <stdin> holds 2 responses\n")
    );
}

#[test]
fn validate_names_rule_index_and_id() {
    let out = run(&[
        "validate",
        data("order-shipment-last4.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout
            .contains("order-shipment-last4.json: result-follows-call: message 0, id \"order-1\""),
        "{stdout}"
    );
    assert!(stdout.contains("result-follows-call: message 1, id \"shipment-1\""));
    let out = run(&[
        "validate",
        "--format",
        "openai",
        root()
            .join("corpus/tau-bench/sample.jsonl")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "20 histories: all valid\n");
}

/// A Gemini `user` content holding function responses beside the user's
/// text is a tool message (spec §1.6, §14.2 rule 6): valid in `validate
/// --format gemini`.
#[test]
fn validate_gemini_takes_responses_beside_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gemini.json");
    let history = serde_json::json!([
        {"role": "user", "parts": [{"text": "weather in Paris and Rome?"}]},
        {"role": "model", "parts": [
            {"functionCall": {"id": "a", "name": "get_weather", "args": {"city": "Paris"}}},
            {"functionCall": {"id": "b", "name": "get_weather", "args": {"city": "Rome"}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"id": "a", "name": "get_weather", "response": {"output": "sunny"}}},
            {"functionResponse": {"id": "b", "name": "get_weather", "response": {"output": "rain"}}},
            {"text": "and tomorrow?"}]},
        {"role": "model", "parts": [{"text": "Checking tomorrow."}]}
    ]);
    std::fs::write(&file, history.to_string()).unwrap();
    let out = run(&["validate", "--format", "gemini", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(text(&out.stdout), "1 history: all valid\n");
}

#[test]
fn check_convicts_take_last_four() {
    let out = run(&[
        "check",
        "--max",
        "4",
        "--policy",
        "suffix",
        data("order-shipment.json").to_str().unwrap(),
        data("order-shipment-last4.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("FAIL        no-orphan-result: output message 0: result \"order-1\" has no call earlier in the output"), "{stdout}");
    assert!(stdout.contains("pass        budget"));
    assert!(stdout.contains("not judged  deterministic"));
}

/// Anthropic check: the input's top-level `system` is the pinned
/// system message; an output without it fails `system-pinned`.
#[test]
fn check_anthropic_judges_the_top_level_system() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.json");
    let user = |t: &str| json!({"role": "user", "content": t});
    let req = json!({"system": "Be brief.", "messages": [
        user("hi"), {"role": "assistant", "content": "hello"}, user("bye")]});
    std::fs::write(&input, req.to_string()).unwrap();
    let dropped = dir.path().join("dropped.json");
    std::fs::write(&dropped, json!({"messages": [user("bye")]}).to_string()).unwrap();
    let kept = dir.path().join("kept.json");
    std::fs::write(
        &kept,
        json!({"system": "Be brief.", "messages": [user("bye")]}).to_string(),
    )
    .unwrap();
    for policy in ["turns", "suffix"] {
        let args = |output: &Path| {
            run(&[
                "check",
                "--format",
                "anthropic",
                "--policy",
                policy,
                "--max",
                "1",
                input.to_str().unwrap(),
                output.to_str().unwrap(),
            ])
        };
        let out = args(&dropped);
        assert_eq!(out.status.code(), Some(1), "{policy}");
        let stdout = text(&out.stdout);
        let fails: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
        assert_eq!(
            fails,
            [
                "FAIL        system-pinned: the pinned system message (input message 0) is missing",
                "FAIL        matches-reference: differs from the reference: expected 2, got 1 messages, first difference at $[0].role",
            ],
            "{policy}: {stdout}"
        );
        let out = args(&kept);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{policy}: {}",
            text(&out.stdout)
        );
        assert!(text(&out.stdout).contains("pass        system-pinned\n"));
        assert!(text(&out.stdout).ends_with(" passed, 0 failed\n"));
    }
}

#[test]
fn serve_answers_per_case_and_persistent() {
    let mut child = kit()
        .args(["serve", "--policy", "suffix", "--persistent"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = String::new();
    for max in [json!(3), json!(5), json!(0)] {
        input.push_str(&json!({"maxMessages": max, "messages": seed()}).to_string());
        input.push('\n');
    }
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), input.as_bytes()).unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["messages"], Value::Array(seed()[4..].to_vec()));
    assert_eq!(lines[1]["messages"], Value::Array(seed()[1..].to_vec()));
    assert_eq!(
        lines[2],
        json!({"error": "maxMessages must be an integer >= 1, got 0"})
    );
}

#[test]
fn check_judges_json_lines_pairwise() {
    let sample = root().join("corpus/tau-bench/sample.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let reduced = dir.path().join("out.jsonl");
    let out = run(&[
        "reduce",
        "--format",
        "openai",
        "--max",
        "8",
        "--policy",
        "turns",
        sample.to_str().unwrap(),
    ]);
    std::fs::write(&reduced, &out.stdout).unwrap();
    let out = run(&[
        "check",
        "--format",
        "openai",
        "--max",
        "8",
        "--policy",
        "turns",
        sample.to_str().unwrap(),
        reduced.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).starts_with("20 histories judged\n"));
    // The same outputs judged as suffix outputs: some are convicted, by line.
    let out = run(&[
        "check",
        "--format",
        "openai",
        "--max",
        "8",
        "--policy",
        "suffix",
        sample.to_str().unwrap(),
        reduced.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout)
            .contains("sample.jsonl:2: maximal-suffix: the run could start at input message"),
        "{}",
        text(&out.stdout)
    );
}

/// In a format with a top-level system prompt, `validate` numbers messages
/// as `check` does: the prompt is message 0 (spec §13.1), so the first
/// entry of `messages` is message 1. It numbered from `messages` alone, so
/// the same orphan result was message 2 in `validate` and 3 in `check`.
#[test]
fn validate_and_check_number_a_top_level_system_prompt_alike() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.json");
    std::fs::write(
        &input,
        json!({"system": "be brief", "maxMessages": 2, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "x"}]}
        ]})
        .to_string(),
    )
    .unwrap();
    let path = input.to_str().unwrap();
    let out = run(&["validate", "--format", "anthropic", path]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        format!(
            "{path}: calls-answered: message 2, id \"t1\"\n{path}: result-follows-call: message 3, id \"t9\"\n1 history: 1 invalid\n"
        )
    );
    let output = dir.path().join("out.json");
    std::fs::write(&output, "[]").unwrap();
    let out = run(&[
        "check",
        "--policy",
        "suffix",
        "--format",
        "anthropic",
        path,
        output.to_str().unwrap(),
    ]);
    assert!(
        text(&out.stdout)
            .contains("the input is not valid (result-follows-call: message 3, id \"t9\")"),
        "{}",
        text(&out.stdout)
    );
}

/// `generate --requests` writes the protocol request `certify` sends for
/// each case (spec §8.1), its messages in `--format`: the same budget and
/// the case's messages carried in that format.
#[test]
fn generate_requests_are_the_cases_as_a_reducer_reads_them() {
    let args = [
        "generate", "--count", "20", "--seed", "3", "--format", "openai",
    ];
    let cases = run(&args);
    let requests = run(&[&args[..], &["--requests"]].concat());
    assert_eq!(
        requests.status.code(),
        Some(0),
        "{}",
        text(&requests.stderr)
    );
    let cases: Vec<Value> = text(&cases.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let requests: Vec<Value> = text(&requests.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(requests.len(), 20);
    assert_eq!(requests[0]["maxMessages"], 12);
    assert_eq!(requests[0]["messages"].as_array().unwrap().len(), 14);
    assert_eq!(
        requests[0]["messages"][0],
        json!({"role": "system", "content": "thanks order check when ? check order the"})
    );
    let mut with_calls = 0;
    for (case, req) in cases.iter().zip(&requests) {
        let keys: Vec<&str> = req
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(keys, ["maxMessages", "messages"], "{req}");
        assert_eq!(req["maxMessages"], case["maxMessages"]);
        let canonical = case["messages"].as_array().unwrap();
        let wire =
            reducer_kit::formats::to_wire(reducer_kit::formats::Format::OpenAi, canonical).unwrap();
        assert_eq!(req["messages"], Value::Array(wire));
        with_calls += req["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m.get("tool_calls").is_some())
            .count();
    }
    // The requests carry OpenAI tool calls, not canonical items.
    assert!(with_calls > 0);
}

/// `certify` without `--policy` judges `turns` and says on its start line
/// that it took the default; with `--policy` the line names the policy
/// alone.
#[test]
fn certify_says_when_it_takes_the_default_policy() {
    let kit_path = env!("CARGO_BIN_EXE_reducer-kit");
    let start_line = |policy: &[&str]| {
        let args = [
            &[
                "certify",
                "--cases",
                "0",
                "--replay",
                "corpus/seed/order-shipment.json",
            ][..],
            policy,
            &["--persistent", "--", kit_path, "serve", "--persistent"],
        ]
        .concat();
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        text(&out.stderr).lines().next().unwrap().to_string()
    };
    let line = start_line(&[]);
    assert!(
        line.starts_with("certify: 9 cases, policy turns (the default: --policy turns, suffix or repair names the reducer's), format canonical, persistent mode, "),
        "{line}"
    );
    let line = start_line(&["--policy", "turns"]);
    assert!(
        line.starts_with("certify: 9 cases, policy turns, format canonical, persistent mode, "),
        "{line}"
    );
}
