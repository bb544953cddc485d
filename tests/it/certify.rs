//! `certify` end to end: the kit certifying its own reference reducers, the
//! example reducers convicted of the right clauses, shrinking to a saved
//! counterexample that replays, reports, known failures, shards, and hostile
//! reducers that hang, flood, crash or lie.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{certify, example, kit_path, python, root, text};

fn report(dir: &Path, args: &[&str], reducer: &[&str]) -> (Output, Value) {
    let path = dir.join("report.json");
    let mut all: Vec<&str> = args.to_vec();
    let p = path.to_str().unwrap().to_string();
    all.extend(["--report-json", &p]);
    let out = certify(&all, reducer);
    let json = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("no report: {}", text(&out.stderr))),
    )
    .unwrap();
    (out, json)
}

#[test]
fn the_reference_reducers_pass_every_level() {
    let dir = tempfile::tempdir().unwrap();
    for (policy, format, mode) in [
        ("turns", "canonical", "--persistent"),
        ("suffix", "canonical", "--persistent"),
        ("turns", "openai", "--persistent"),
        ("suffix", "anthropic", "--persistent"),
        ("suffix", "canonical", ""),
        ("turns", "gemini", "--persistent"),
    ] {
        // A format of spec §14 makes the certificate a spec v2 one.
        let spec = if format == "gemini" { 2 } else { 1 };
        // With the budgets written other than as an integer (outside a
        // default run, spec §9.5), so that protocol-budget is judged too.
        let mut args = vec![
            "--policy",
            policy,
            "--format",
            format,
            "--cases",
            "150",
            "--with",
            "budget-spellings",
        ];
        let mut reducer = vec![kit_path(), "serve", "--policy", policy, "--format", format];
        if !mode.is_empty() {
            args.push(mode);
            reducer.push(mode);
        }
        let (out, r) = report(dir.path(), &args, &reducer);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{policy} {format}: {}",
            text(&out.stdout)
        );
        assert_eq!(
            r["levels"],
            serde_json::json!({"protocol": true, "safety": true, "policy": true, "exact": true})
        );
        assert!(r["casesRun"].as_u64().unwrap() > 100, "{}", r["casesRun"]);
        assert_eq!(r.get("firstDefect"), None);
        assert!(text(&out.stdout).contains(&format!(
            "certificate: reducer-kit {} spec v{spec} policy {policy} format {format}: levels passed [protocol, safety, policy, exact]",
            env!("CARGO_PKG_VERSION")
        )));
        for (clause, tally) in r["clauses"].as_object().unwrap() {
            // No failure on a valid input; on an input the validator
            // rejects (counterexamples of broken histories that compat/run
            // keeps in corpus/compat) the spec promises nothing (§9.2).
            assert_eq!(tally["defects"], 0, "{clause}");
            assert_eq!(tally["failed"], tally["invalidInput"], "{clause}");
            assert!(
                tally["passed"].as_u64().unwrap() > 0,
                "{policy} {format}: clause {clause} never judged"
            );
        }
        for case in r["results"].as_array().unwrap() {
            if case["status"] == "fail" {
                assert_eq!(case["validInput"], false, "{case}");
                assert!(
                    case["id"].as_str().unwrap().starts_with("compat/"),
                    "{case}"
                );
            }
        }
    }
}

#[test]
fn the_conforming_python_examples_pass() {
    for (policy, script) in [
        ("turns", "turns_reducer.py"),
        ("suffix", "suffix_reducer.py"),
    ] {
        let out = certify(
            &["--policy", policy, "--persistent", "--cases", "300"],
            &[python(), "-S", &example(script), "--persistent"],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{script}: {}",
            text(&out.stdout)
        );
    }
}

#[test]
fn the_naive_reducer_is_convicted_shrunk_saved_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("failures");
    let naive = example("naive_last_n.py");
    let (out, r) = report(
        dir.path(),
        &[
            "--policy",
            "suffix",
            "--cases",
            "0",
            "--save-failures",
            saved.to_str().unwrap(),
        ],
        &[python(), "-S", &naive],
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    // The seed example: TakeLast(4) keeps both results without their calls.
    // (The text report lists the first 20 failing cases, in corpus order:
    // corpus/compat's come first; the JSON report has every case.)
    let seed = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "seed/order-shipment-suffix-4")
        .unwrap();
    assert_eq!(seed["status"], "fail");
    assert!(
        seed["failures"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["clause"] == "no-orphan-result"
                && f["detail"]
                    == "output message 0: result \"order-1\" has no call earlier in the output"),
        "{seed}"
    );
    assert!(
        stdout.contains("no-orphan-result: output message 0: result"),
        "{stdout}"
    );
    assert_eq!(r["levels"]["protocol"], true);
    assert_eq!(r["levels"]["safety"], false);
    let cx = r["counterexamples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["clause"] == "no-orphan-result")
        .unwrap();
    assert!(cx["messages"].as_array().unwrap().len() <= 4, "{cx}");
    let file = PathBuf::from(cx["savedTo"].as_str().unwrap());
    let case: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(case["id"].as_str().unwrap().starts_with("fail/"));
    // Three clauses shrink to the same minimal case: its one file names
    // them all.
    assert_eq!(
        case["clauses"],
        serde_json::json!(["no-orphan-result", "valid-output", "matches-reference"])
    );
    let same_file: Vec<&str> = r["counterexamples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["savedTo"] == cx["savedTo"])
        .map(|c| c["clause"].as_str().unwrap())
        .collect();
    assert_eq!(
        same_file,
        ["no-orphan-result", "valid-output", "matches-reference"]
    );
    assert_eq!(
        file.file_name().unwrap().to_str().unwrap(),
        format!("{}.json", case["id"].as_str().unwrap().replace('/', "-"))
    );

    let replay = certify(
        &["--policy", "suffix", "--replay", file.to_str().unwrap()],
        &[python(), "-S", &naive],
    );
    assert_eq!(replay.status.code(), Some(1));
    let replayed = text(&replay.stdout);
    assert!(
        replayed.contains(&format!("FAIL {}", case["id"].as_str().unwrap())),
        "{replayed}"
    );
    assert!(replayed.contains("no-orphan-result"));
    // The reference passes the saved case.
    let fixed = certify(
        &["--policy", "suffix", "--replay", file.to_str().unwrap()],
        &[kit_path(), "serve", "--policy", "suffix"],
    );
    assert_eq!(fixed.status.code(), Some(0), "{}", text(&fixed.stdout));
    // Saving again never overwrites: the same content hash, the same single file.
    let again = certify(
        &[
            "--policy",
            "suffix",
            "--cases",
            "0",
            "--save-failures",
            saved.to_str().unwrap(),
        ],
        &[python(), "-S", &naive],
    );
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        serde_json::to_string_pretty(&case).unwrap() + "\n"
    );
}

/// A reducer that fails only policy clauses (it drops every tool-bearing
/// message: safe, not the claimed policy) has no defect (spec §9.3): no
/// `first defect` line and no `firstDefect`, but the first difference from
/// the policy, named with its time (`firstDifferenceFromPolicy` in JSON).
#[test]
fn a_policy_difference_is_no_defect() {
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let (out, r) = report(
        dir.path(),
        &[
            "--policy",
            "turns",
            "--cases",
            "40",
            "--jobs",
            "1",
            "--persistent",
        ],
        &[
            python(),
            "-S",
            &example("drop_tool_messages.py"),
            "--persistent",
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_eq!(
        r["levels"],
        serde_json::json!({"protocol": true, "safety": true, "policy": false, "exact": false})
    );
    assert_eq!(r.get("firstDefect"), None);
    assert!(!stdout.contains("first defect"), "{stdout}");
    let first = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["status"] == "fail" && c["validInput"] == true)
        .unwrap();
    let prefix = format!(
        "no defect; first difference from the policy: case {}, judged ",
        first["id"].as_str().unwrap()
    );
    let seconds: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix)?.strip_suffix(" s into the run"))
        .unwrap_or_else(|| panic!("no line {prefix:?} in {stdout}"))
        .parse()
        .unwrap();
    // Within the run, whatever the machine's load: after its start and no
    // later than the command's end (no upper bound by the clock).
    let took = started.elapsed().as_secs_f64();
    assert!(seconds > 0.0 && seconds <= took, "{seconds} of {took} s");
    // The JSON report names the same case, to the millisecond.
    let json_first = &r["firstDifferenceFromPolicy"];
    assert_eq!(json_first["case"], first["id"]);
    let json_seconds = json_first["seconds"].as_f64().unwrap();
    assert!(
        (json_seconds - seconds).abs() <= 0.006,
        "{json_seconds} {seconds}"
    );
}

#[test]
fn the_first_defect_is_named_with_the_time_it_took() {
    // One worker: the cases finish in order, so the first defect is the
    // first case with a valid input that fails a protocol or safety clause
    // (spec §9.3; one that fails policy clauses alone is no defect).
    let dir = tempfile::tempdir().unwrap();
    let naive = example("naive_last_n.py");
    let started = std::time::Instant::now();
    let (out, r) = report(
        dir.path(),
        &[
            "--policy",
            "suffix",
            "--cases",
            "40",
            "--jobs",
            "1",
            "--persistent",
        ],
        &[python(), "-S", &naive, "--persistent"],
    );
    let took = started.elapsed().as_secs_f64();
    assert_eq!(out.status.code(), Some(1));
    let level = |clause: &Value| r["clauses"][clause.as_str().unwrap()]["level"].clone();
    let first =
        r["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| {
                c["status"] == "fail"
                    && c["validInput"] == true
                    && c["failures"].as_array().unwrap().iter().any(|f| {
                        matches!(level(&f["clause"]).as_str(), Some("protocol" | "safety"))
                    })
            })
            .unwrap();
    assert_eq!(r["firstDefect"]["case"], first["id"]);
    // Bounded by counting: one reducer, never restarted, judged it.
    assert_eq!(r["restarts"], 0);
    // The time is within the run, whatever the machine's load: after its
    // start and no later than the command's end.
    let seconds = r["firstDefect"]["seconds"].as_f64().unwrap();
    assert!(seconds > 0.0 && seconds <= took, "{seconds} of {took} s");
    let prefix = format!(
        "first defect: case {}, judged ",
        first["id"].as_str().unwrap()
    );
    let stdout = text(&out.stdout);
    let shown: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix)?.strip_suffix(" s into the run"))
        .unwrap_or_else(|| panic!("no line {prefix:?} in {stdout}"))
        .parse()
        .unwrap();
    assert!((shown - seconds).abs() < 0.011, "{shown} vs {seconds}");
}

#[test]
fn dropping_tool_messages_is_safe_but_not_the_turns_policy() {
    let dir = tempfile::tempdir().unwrap();
    let (out, r) = report(
        dir.path(),
        &["--policy", "turns", "--cases", "200", "--persistent"],
        &[
            python(),
            "-S",
            &example("drop_tool_messages.py"),
            "--persistent",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(r["levels"]["protocol"], true);
    assert_eq!(r["levels"]["safety"], true, "{}", text(&out.stdout));
    assert_eq!(r["levels"]["policy"], false);
    assert!(r["clauses"]["whole-turns"]["failed"].as_u64().unwrap() > 0);
}

#[test]
fn known_failures_do_not_fail_the_run_unless_strict() {
    let dir = tempfile::tempdir().unwrap();
    let naive = example("naive_last_n.py");
    let (_, r) = report(
        dir.path(),
        &[
            "--policy",
            "suffix",
            "--cases",
            "0",
            "--shrink-tries",
            "0",
            "--persistent",
        ],
        &[python(), "-S", &naive, "--persistent"],
    );
    let mut lines: Vec<String> = r["unexpectedFailures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["case"].as_str().unwrap(),
                e["clause"].as_str().unwrap()
            )
        })
        .collect();
    let known = dir.path().join("known.txt");
    std::fs::write(&known, lines.join("\n")).unwrap();
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--cases",
            "0",
            "--shrink-tries",
            "0",
            "--persistent",
            "--expect-fail",
            known.to_str().unwrap(),
        ],
        &[python(), "-S", &naive, "--persistent"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // A listed failure that does not happen is reported, and fails the run when strict.
    lines.push("seed/order-shipment-suffix-7 budget".into());
    std::fs::write(&known, lines.join("\n")).unwrap();
    let args = [
        "--policy",
        "suffix",
        "--cases",
        "0",
        "--shrink-tries",
        "0",
        "--persistent",
        "--expect-fail",
        known.to_str().unwrap(),
    ];
    let out = certify(&args, &[python(), "-S", &naive, "--persistent"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout)
        .contains("listed as known but passes now: seed/order-shipment-suffix-7 budget"));
    let mut strict = args.to_vec();
    strict.push("--strict-expectations");
    assert_eq!(
        certify(&strict, &[python(), "-S", &naive, "--persistent"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn shards_run_every_case_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let serve = [kit_path(), "serve", "--policy", "turns", "--persistent"];
    let ids = |shard: Option<&str>| -> Vec<String> {
        let mut args = vec!["--cases", "60", "--persistent"];
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        let (out, r) = report(dir.path(), &args, &serve);
        assert_eq!(out.status.code(), Some(0));
        r["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect()
    };
    let all = ids(None);
    let mut parts: Vec<String> = ["1/3", "2/3", "3/3"]
        .iter()
        .flat_map(|s| ids(Some(s)))
        .collect();
    parts.sort();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(parts, sorted);
    assert!(all.len() > 60);
}

#[test]
fn junit_report_has_a_suite_per_level() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("r.xml");
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--cases",
            "0",
            "--shrink-tries",
            "0",
            "--persistent",
            "--report-junit",
            junit.to_str().unwrap(),
        ],
        &[python(), "-S", &example("naive_last_n.py"), "--persistent"],
    );
    assert_eq!(out.status.code(), Some(1));
    let xml = std::fs::read_to_string(&junit).unwrap();
    for level in ["protocol", "safety", "policy", "exact"] {
        assert!(
            xml.contains(&format!("<testsuite name=\"{level}\"")),
            "{level}"
        );
    }
    assert!(
        xml.contains("<testcase name=\"seed/order-shipment-suffix-4\" classname=\"suffix.safety\"")
    );
    assert!(xml.contains("no-orphan-result: output message 0: result &quot;order-1&quot;"));
}

/// A failure on invalid input decides no level (spec §9.2): the JUnit
/// report writes it as skipped, with why, and a passing run reports no
/// failure.
#[test]
fn junit_counts_no_failure_on_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.json");
    std::fs::write(
        &cases,
        r#"[{"id": "fine", "spec": 1, "policy": "suffix", "maxMessages": 2, "messages": [
              {"role": "user", "contents": [{"$type": "text", "text": "q"}]},
              {"role": "assistant", "contents": [{"$type": "text", "text": "a"}]}],
            "expected": [
              {"role": "user", "contents": [{"$type": "text", "text": "q"}]},
              {"role": "assistant", "contents": [{"$type": "text", "text": "a"}]}]},
           {"id": "orphan-result", "spec": 1, "policy": "suffix", "maxMessages": 2, "messages": [
              {"role": "tool", "contents": [{"$type": "functionResult", "callId": "x", "result": "r"}]},
              {"role": "user", "contents": [{"$type": "text", "text": "q"}]}],
            "expected": [{"role": "user", "contents": [{"$type": "text", "text": "q"}]}]}]"#,
    )
    .unwrap();
    let junit = dir.path().join("r.xml");
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--replay",
            cases.to_str().unwrap(),
            "--report-junit",
            junit.to_str().unwrap(),
        ],
        &[python(), "-S", &example("naive_last_n.py")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"<testsuites name="reducer-kit certify (suffix policy, canonical format)" tests="8" failures="0" errors="0">"#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testsuite name="safety" tests="2" disabled="1" errors="0" failures="0">"#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<skipped message="invalid input (decides no level, spec §9.2): no-orphan-result: output message 0: result &quot;x&quot; has no call earlier in the output">"#),
        "{xml}"
    );
    assert!(!xml.contains("<failure"), "{xml}");
}

/// One hostile reducer on the empty-history case: the protocol clause that
/// fails (if any), and the report.
fn hostile(script: &str, extra_env: Option<(&str, &Path)>) -> (Output, Value) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    let mut cmd = Command::new(kit_path());
    cmd.args([
        "certify",
        "--timeout",
        "1500",
        "--max-output",
        "100000",
        "--shrink-tries",
        "0",
        "--replay",
    ])
    .arg(root().join("tests/data/empty-case.json"))
    .arg("--report-json")
    .arg(&path)
    .arg("--")
    .arg(root().join("tests/hostile").join(script))
    .stdin(Stdio::null());
    if let Some((k, v)) = extra_env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (out, r)
}

fn failed_clauses(r: &Value) -> Vec<String> {
    r["results"][0]["failures"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|x| x["clause"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn hostile_reducers_are_named_by_the_right_protocol_clause() {
    for (script, clause) in [
        ("hang.sh", "protocol-timeout"),
        ("endless_output.sh", "protocol-size"),
        ("segv.sh", "protocol-crash"),
        ("exit3.sh", "protocol-crash"),
        ("invalid_json.sh", "protocol-json"),
        ("invalid_utf8.sh", "protocol-json"),
        ("silent.sh", "protocol-json"),
    ] {
        let (out, r) = hostile(script, None);
        assert_eq!(out.status.code(), Some(1), "{script}");
        let failed = failed_clauses(&r);
        assert_eq!(
            failed.first().map(String::as_str),
            Some(clause),
            "{script}: {failed:?}"
        );
        assert!(
            failed.iter().all(|c| c.starts_with("protocol-")),
            "{script}: {failed:?}"
        );
        assert_eq!(r["levels"]["protocol"], false);
    }
    let (_, r) = hostile("segv.sh", None);
    assert!(r["results"][0]["stderrTail"]
        .as_str()
        .unwrap()
        .contains("about to crash"));
    assert!(r["results"][0]["failures"][0]["detail"]
        .as_str()
        .unwrap()
        .contains("SIGSEGV"));
}

#[test]
fn hostile_but_answering_reducers_pass_the_protocol() {
    for script in ["stderr_flood.py", "close_stdin.sh"] {
        let (out, r) = hostile(script, None);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{script}: {}",
            text(&out.stdout)
        );
        assert_eq!(failed_clauses(&r), Vec::<String>::new());
    }
}

#[test]
fn a_left_behind_child_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let (out, _) = hostile("grandchild.sh", Some(("HOSTILE_PID_FILE", &pids)));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let recorded = std::fs::read_to_string(&pids).unwrap();
    let grandchild: u32 = recorded.split_whitespace().nth(1).unwrap().parse().unwrap();
    // Gone, or at most a zombie awaiting its (re)parent. The kit sends
    // SIGKILL before it exits; on a loaded machine the kernel may not have
    // finished the process when `certify` returns, so the state is read
    // again for a while (a process that lives on fails after 10 s). A pid
    // taken over by another program than `sleep` counts as gone.
    let gone = |status: &str| {
        status.is_empty()
            || !status.contains("(sleep)")
            || status.split_whitespace().nth(2) == Some("Z")
    };
    let read = || std::fs::read_to_string(format!("/proc/{grandchild}/stat")).unwrap_or_default();
    let mut status = read();
    for _ in 0..200 {
        if gone(&status) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        status = read();
    }
    assert!(gone(&status), "grandchild {grandchild} alive: {status}");
}

/// The JSON report's `spec` is the spec version the certificate line names
/// (it was the runner protocol's alone: 1 beside "spec v2" for a spec v2
/// format or a provider profile).
#[test]
fn the_json_report_names_the_certificates_spec_version() {
    let dir = tempfile::tempdir().unwrap();
    let kit = kit_path();
    for (args, spec) in [
        (&["--format", "openai"][..], 1),
        (&["--format", "gemini"][..], 2),
        (&["--format", "openai", "--provider", "anthropic"][..], 2),
    ] {
        let mut all = vec!["--policy", "suffix", "--persistent", "--cases", "0"];
        all.extend(args);
        let mut serve = vec![kit, "serve", "--policy", "suffix", "--persistent"];
        serve.extend(args);
        let (out, r) = report(dir.path(), &all, &serve);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(r["spec"], spec, "{args:?}");
        let certificate = r["certificate"].as_str().unwrap();
        assert!(
            certificate.starts_with(&format!(
                "certificate: reducer-kit {} spec v{spec} policy suffix format {}",
                env!("CARGO_PKG_VERSION"),
                args[1]
            )),
            "{certificate}"
        );
    }
}

/// A hand-written case of a user message holding a result beside the
/// user's text (spec §1.6) is valid in Anthropic, Bedrock and Gemini and
/// runs under `--replay` in each of them, not skipped; the reference
/// passes it.
#[test]
fn a_replayed_case_of_results_beside_text_runs_in_anthropic_bedrock_and_gemini() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("results-beside-text.json");
    let case = serde_json::json!({
        "id": "local/results-beside-text",
        "spec": 1,
        "policy": "turns",
        "maxMessages": 3,
        "messages": [
            {"role": "user", "contents": [{"$type": "text", "text": "Check order 1."}]},
            {"role": "assistant", "contents": [
                {"$type": "functionCall", "callId": "a", "name": "GetOrder", "arguments": {"id": 1}}]},
            {"role": "tool", "contents": [
                {"$type": "functionResult", "callId": "a", "result": "Paid"},
                {"$type": "text", "text": "And order 2?"}]},
            {"role": "assistant", "contents": [{"$type": "text", "text": "Checking 2."}]}
        ],
        "expected": [
            {"role": "user", "contents": [{"$type": "text", "text": "Check order 1."}]},
            {"role": "tool", "contents": [{"$type": "text", "text": "And order 2?"}]},
            {"role": "assistant", "contents": [{"$type": "text", "text": "Checking 2."}]}
        ]
    });
    std::fs::write(&file, serde_json::to_string_pretty(&case).unwrap()).unwrap();
    for format in ["anthropic", "bedrock", "gemini"] {
        let (out, r) = report(
            dir.path(),
            &["--format", format, "--replay", file.to_str().unwrap()],
            &[kit_path(), "serve", "--format", format],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        assert_eq!(
            (r["casesRun"].as_u64(), r["casesSkipped"].as_u64()),
            (Some(1), Some(0)),
            "{format}"
        );
    }
}

/// Causes before what they cause: a persistent reducer that prints a debug
/// line before its first answer (protocol 1 reads it as that answer, and
/// every later answer as the one before it) fails `protocol-json`, and
/// that is the first counterexample shown, before the safety failures the
/// shifted answers cause (spec §9.1).
#[test]
fn protocol_counterexamples_come_first() {
    let chatty = "import sys; sys.path.insert(0, 'examples/reducers'); print('debug: starting', flush=True); import suffix_reducer as s; from reducer_protocol import main; main(s.select, ['--persistent'])";
    let out = certify(
        &["--policy", "suffix", "--persistent", "--cases", "100"],
        &[python(), "-S", "-c", chatty],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let clauses: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("minimal counterexample for "))
        .map(|l| l.split(" (").next().unwrap())
        .collect();
    let first_other = clauses
        .iter()
        .position(|c| !c.starts_with("protocol-"))
        .unwrap();
    assert!(first_other > 0, "{clauses:?}");
    assert!(
        clauses[first_other..]
            .iter()
            .all(|c| !c.starts_with("protocol-")),
        "{clauses:?}"
    );
    assert_eq!(clauses[0], "protocol-json");
}
