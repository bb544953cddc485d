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
    let out = run(&["reduce", "--max", "3", not_json.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
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
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("maxMessages must be an integer >= 1, got 0"));

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
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("l.jsonl:3: `messages` is not an array"));
    assert!(out.stdout.is_empty(), "no partial output");
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
