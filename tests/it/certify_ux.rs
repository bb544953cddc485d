//! `certify` on failing reducers: shrinking through the live
//! session, bounded by tries and time; counterexamples that show the bug;
//! rerun lines; usage errors before the run; counts that add up.

use std::path::Path;
use std::process::Command;

use crate::common::{
    certify, example, golden_count, golden_numbers, kit_path, on_kit_cases, python, root, text,
};

/// The reused-id reducer in persistent mode, each start logged to `log`.
fn logged_id_filter(log: &Path) -> Vec<String> {
    vec![
        "sh".into(),
        "-c".into(),
        format!(
            "echo $$ >> '{}'; exec '{}' -S '{}' --persistent",
            log.display(),
            python(),
            example("last_n_id_filter.py")
        ),
    ]
}

#[test]
fn persistent_shrinking_reuses_the_live_reducer() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("starts");
    let reducer = logged_id_filter(&log);
    let reducer: Vec<&str> = reducer.iter().map(String::as_str).collect();
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--persistent",
            "--jobs",
            "1",
            "--case",
            "gen/1/402",
        ],
        &reducer,
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "minimal counterexample for no-orphan-result, valid-output, matches-reference (4 messages, maxMessages 3; shrunk from gen/1/402 in 52 tries)\n  clause:   no-orphan-result: every result in the output has its call in an earlier output message (1 case like this)\n"
        ),
        "{stdout}"
    );
    // One reducer for the run, one for the shrinking worker: never one per
    // candidate.
    let starts = std::fs::read_to_string(&log).unwrap();
    assert_eq!(starts.lines().count(), 2, "{starts}");
    let stderr = text(&out.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("shrunk 3 failures in ")),
        "{stderr}"
    );
}

#[test]
fn shrink_time_bounds_the_shrinking() {
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--persistent",
            "--jobs",
            "1",
            "--case",
            "gen/1/402",
            "--shrink-time",
            "0",
        ],
        &[
            python(),
            "-S",
            &example("last_n_id_filter.py"),
            "--persistent",
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("counterexample for no-orphan-result, valid-output, matches-reference, not shrunk (22 messages, 3364 bytes, maxMessages 14; case gen/1/402; --shrink-time ran out after 0 tries)\n"),
        "{stdout}"
    );
    assert!(
        text(&out.stderr).contains("shrunk 3 failures in ")
            && text(&out.stderr).contains(" (0 tries), 3 stopped by --shrink-time"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn counterexamples_show_one_example_per_kind_of_failure() {
    let out = certify(
        &on_kit_cases(&["--policy", "suffix", "--persistent", "--cases", "400"]),
        &[python(), "-S", &example("naive_last_n.py"), "--persistent"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let headers: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("minimal counterexample for "))
        .collect();
    // Generated cases with a valid input are the examples (not the
    // hand-written spec/rule-* cases whose input is already invalid); one
    // per kind of failure, with how many cases fail that way: the safety
    // level first, then the most cases first (spec §9.1); an input that
    // fails several clauses with the same answers is shown once, each
    // clause with its count.
    assert_eq!(
        headers,
        vec![
            "minimal counterexample for no-orphan-result, valid-output, matches-reference (2 messages, maxMessages 1; shrunk from gen/1/7 in 16 tries)",
            "minimal counterexample for no-orphan-approval, valid-output (2 messages, maxMessages 1; shrunk from gen/1/108 in 17 tries)",
            "minimal counterexample for matches-reference (2 messages, maxMessages 1; shrunk from gen/1/324 in 22 tries; 2 cases like this)",
            "minimal counterexample for contiguous-suffix (2 messages, maxMessages 1; shrunk from spec/suffix-tool-without-result in 24 tries; 1 case like this)",
        ],
        "{stdout}"
    );
    let first = stdout
        .split("minimal counterexample for no-orphan-result")
        .nth(1)
        .unwrap();
    let lines: Vec<&str> = first.lines().skip(1).take(10).collect();
    // How many cases fail each clause so: golden counts.
    let like = |i: usize, clause: &str, template: &str| {
        let key = format!("certify_ux.naive_last_n.suffix-400.{clause}.cases-like-this");
        golden_numbers(lines[i], template, &[&key])
    };
    let orphan = like(
        0,
        "no-orphan-result",
        "  clause:   no-orphan-result: every result in the output has its call in an earlier output message ({} cases like this)",
    );
    let valid = like(
        2,
        "valid-output",
        "  clause:   valid-output: the output of a valid input is valid (validator rules) ({} cases like this)",
    );
    let reference = like(
        4,
        "matches-reference",
        "  clause:   matches-reference: the output equals the reference reducer's output for the same policy ({} cases like this)",
    );
    assert_eq!(
        lines,
        vec![
            orphan.as_str(),
            "  failure:  output message 0: result \"c1\" has no call earlier in the output",
            valid.as_str(),
            "  failure:  the output breaks result-follows-call: message 0, id \"c1\"",
            reference.as_str(),
            "  failure:  differs from the reference: expected 0, got 1 messages, first difference at $[0]",
            r#"  input:    {"messages":[{"role":"assistant","contents":[{"$type":"functionCall","callId":"c1","name":"f"}]},{"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":""}]}]}"#,
            "  sizes:    reference: 0 messages, reducer: 1 message",
            r#"  expected (reference): {"messages":[]}"#,
            r#"  actual (reducer):     {"messages":[{"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":""}]}]}"#,
        ]
    );
}

/// `--without`: generated cases from a config without the knobs, every
/// case that still shows one skipped and counted, the certificate records
/// the list; an unknown knob is a usage error naming the known ones.
#[test]
fn without_skips_the_shapes_turned_off() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    let out = certify(
        &on_kit_cases(&[
            "--policy",
            "suffix",
            "--persistent",
            "--cases",
            "300",
            "--without",
            "pending,approvals,legacy-approvals",
            "--report-json",
            report.to_str().unwrap(),
        ]),
        &[python(), "-S", &example("naive_last_n.py"), "--persistent"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(
        r["without"],
        serde_json::json!(["approvals", "legacy-approvals", "pending"])
    );
    // How many cases each source gave: golden counts; the 300 generated
    // cases asked for are those kept and the duplicates dropped.
    let planned = r["casesPlanned"].as_object().unwrap();
    let mut keys: Vec<&str> = planned.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "corpus",
            "corpusDuplicates",
            "generated",
            "generatedDuplicates",
            "without"
        ]
    );
    let n = |k: &str| {
        golden_count(
            &format!("certify_ux.without.casesPlanned.{k}"),
            planned[k].as_u64().unwrap(),
        )
    };
    let (corpus, generated) = (n("corpus"), n("generated"));
    let (corpus_dups, generated_dups, without) = (
        n("corpusDuplicates"),
        n("generatedDuplicates"),
        n("without"),
    );
    assert_eq!(generated + generated_dups, 300);
    // Corpus cases that need protocol 2 (a token budget), broken histories
    // of policy repair (spec §17.6) that --without left in, and
    // spec/exact-numbers's numbers no double holds and budgets written
    // other than as an integer, outside every default run (spec §9.5), are
    // skipped by the protocol, the policy and the run's shapes, not by
    // --without: every planned case either ran or was skipped.
    let run = golden_count(
        "certify_ux.without.casesRun",
        r["casesRun"].as_u64().unwrap(),
    );
    let skipped = golden_count(
        "certify_ux.without.casesSkipped",
        r["casesSkipped"].as_u64().unwrap(),
    );
    assert_eq!(run + skipped, corpus + generated);
    assert_eq!(
        r["outside"],
        serde_json::json!(["non-double-numbers", "budget-spellings"])
    );
    assert!(stdout.contains(
        &format!("{} cases: {corpus} corpus + {generated} generated, {corpus_dups} corpus duplicates dropped, {generated_dups} generated duplicates dropped\nskipped: {without} cases with shapes turned off by --without\n", corpus + generated)
    ), "{stdout}");
    // Nothing with an approval ran: the approval clause was never failed.
    assert_eq!(r["clauses"]["no-orphan-approval"]["failed"], 0);
    assert!(r["certificate"]
        .as_str()
        .unwrap()
        .ends_with("; seed 1; without approvals,legacy-approvals,pending"));

    let bad = certify(&["--without", "approvals,late-system"], &["true"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains(
        "--without: unknown knob \"late-system\"; the knobs are: leading-segment, pinned-system, pinned-not-first, later-system,"
    ), "{}", text(&bad.stderr));
}

/// The lines that rerun a case or replay a saved counterexample keep the
/// run's options (shell-quoted) and do not shrink a minimal case again;
/// pasted into a shell, they reproduce the failure.
#[test]
fn rerun_lines_rerun_the_same_thing() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let saved = dir.path().join("saved here");
    let py = python();
    let naive = example("naive_last_n.py");
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--persistent",
            "--cases",
            "100",
            "--corpus",
            empty.to_str().unwrap(),
            "--timeout",
            "5000",
            "--max-output",
            "100000",
            "--without",
            "pending",
            "--save-failures",
            saved.to_str().unwrap(),
        ],
        &[py, "-S", &naive, "--persistent"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    // The counterexample of the orphan approval response.
    let block = stdout
        .split("minimal counterexample for no-orphan-approval")
        .nth(1)
        .unwrap();
    let from = block.split("shrunk from ").nth(1).unwrap();
    let from = &from[..from.find(' ').unwrap()];
    let reproduce = stdout
        .lines()
        .find(|l| l.starts_with("  reproduce: ") && l.contains(&format!("--case {from} ")))
        .unwrap();
    assert_eq!(
        reproduce,
        format!(
            "  reproduce: reducer-kit certify --policy suffix --format canonical --persistent --timeout 5000 --max-output 100000 --without pending --corpus {} --case gen/1/85 -- {py} -S {naive} --persistent",
            empty.display()
        )
    );
    let replay = block
        .lines()
        .find_map(|l| l.strip_prefix("  replay:   "))
        .unwrap();
    let file = saved.join("fail-aa8b6bf5d67867f1.json");
    assert_eq!(
        replay,
        format!(
            "reducer-kit certify --policy suffix --format canonical --persistent --timeout 5000 --max-output 100000 --without pending --shrink-tries 0 --replay '{}' -- {py} -S {naive} --persistent",
            file.display()
        )
    );
    for line in [
        reproduce.trim_start().strip_prefix("reproduce: ").unwrap(),
        replay,
    ] {
        let again = Command::new("sh")
            .arg("-c")
            .arg(line.replacen("reducer-kit", kit_path(), 1))
            .current_dir(root())
            .output()
            .unwrap();
        assert_eq!(again.status.code(), Some(1), "{line}");
        assert!(text(&again.stdout).contains("no-orphan-approval"), "{line}");
    }
    let again = Command::new("sh")
        .arg("-c")
        .arg(replay.replacen("reducer-kit", kit_path(), 1))
        .output()
        .unwrap();
    assert!(text(&again.stdout).contains(
        "minimal counterexample for no-orphan-approval, valid-output, matches-reference (2 messages, maxMessages 1; shrunk from fail/aa8b6bf5d67867f1 in 0 tries)\n  clause:   no-orphan-approval: every approval response in the output has its request earlier in the output (1 case like this)\n"
    ), "{}", text(&again.stdout));
}

/// Output paths, limits and known-failure lists are checked before the
/// first case: a usage error (exit 2) that names the option, with no
/// temporary file name, and no run started.
#[test]
fn mistakes_fail_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let f = file.display().to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec!["--report-json".into(), format!("{d}/missing/r.json")],
            format!("reducer-kit: error: --report-json {d}/missing/r.json: no folder {d}/missing\n"),
        ),
        (
            vec!["--report-junit".into(), d.clone()],
            format!("reducer-kit: error: --report-junit {d}: is a folder, not a file\n"),
        ),
        (
            vec!["--save-failures".into(), f.clone()],
            format!("reducer-kit: error: --save-failures {f}: exists and is not a folder\n"),
        ),
        (
            vec!["--save-failures".into(), format!("{f}/x/y")],
            format!("reducer-kit: error: --save-failures {f}/x/y: {f} is not a folder\n"),
        ),
        (
            vec!["--timeout".into(), "0".into()],
            "error: invalid value '0' for '--timeout <MS>': must be at least 1\n\nFor more information, try '--help'.\n".into(),
        ),
        (
            vec!["--max-output".into(), "0".into()],
            "error: invalid value '0' for '--max-output <BYTES>': must be at least 1\n\nFor more information, try '--help'.\n".into(),
        ),
        (
            vec!["--jobs".into(), "0".into()],
            "error: invalid value '0' for '--jobs <N>': must be at least 1\n\nFor more information, try '--help'.\n".into(),
        ),
    ];
    for (args, stderr) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = certify(&args, &[kit_path(), "serve"]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stderr), stderr, "{args:?}");
        assert!(out.stdout.is_empty());
    }
}

/// An `--expect-fail` line with an unknown clause, or a case id in no
/// source of the run: a warning, or a usage error under
/// `--strict-expectations`.
#[test]
fn expectations_name_real_cases_and_clauses() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("known.txt");
    std::fs::write(
        &list,
        "gen/1/5000 budget\ngen/1/3 nope\nspec/nothing budget\ngen/1/3 budget\n",
    )
    .unwrap();
    let l = list.display().to_string();
    let problems = format!(
        "{l}:1: case id \"gen/1/5000\" is in no source of this run\n\
         reducer-kit: {{}}: {l}:2: unknown clause id \"nope\"\n\
         reducer-kit: {{}}: {l}:3: case id \"spec/nothing\" is in no source of this run\n"
    );
    let args = ["--cases", "10", "--expect-fail", &l];
    let out = certify(&args, &[kit_path(), "serve"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = text(&out.stderr);
    let warnings = format!(
        "reducer-kit: warning: {}",
        problems.replace("{}", "warning")
    );
    assert!(stderr.starts_with(&warnings), "{stderr}");
    let strict = certify(
        &[
            "--cases",
            "10",
            "--expect-fail",
            &l,
            "--strict-expectations",
        ],
        &[kit_path(), "serve"],
    );
    assert_eq!(strict.status.code(), Some(2));
    assert_eq!(
        text(&strict.stderr),
        format!("reducer-kit: error: {}", problems.replace("{}", "error"))
    );
}

/// `generate` without options makes the cases `certify` runs: one
/// `gen/<seed>/<n>` id names one case everywhere.
#[test]
fn generate_and_certify_name_the_same_cases() {
    let out = Command::new(kit_path())
        .args(["generate", "--count", "40"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 40);
    for (n, line) in lines.iter().enumerate() {
        let c = reducer_kit::certify::generated_case(
            1,
            n as u64,
            reducer_kit::formats::Format::Canonical,
            reducer_kit::protocol::Protocol::V1,
        );
        assert_eq!(line["id"], c.id.as_str());
        assert_eq!(Some(line["maxMessages"].clone()), c.budget.max_messages);
        assert_eq!(
            line["messages"],
            serde_json::Value::Array(c.messages.to_vec())
        );
    }
    // Pending tails are generated too (certify's config), and say so.
    assert!(lines.iter().any(|l| l["allowPending"] == true));
}

/// "and N more failing cases" names the JSON report only when one is
/// written.
#[test]
fn more_failing_cases_name_the_report_only_when_written() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    let naive = example("naive_last_n.py");
    let reducer = [python(), "-S", naive.as_str(), "--persistent"];
    let args = on_kit_cases(&[
        "--policy",
        "suffix",
        "--persistent",
        "--cases",
        "400",
        "--shrink-tries",
        "0",
    ]);
    let without = text(&certify(&args, &reducer).stdout);
    assert!(
        without.contains("\n... and 8 more failing cases\n"),
        "{without}"
    );
    let mut with: Vec<&str> = args.clone();
    let r = report.to_str().unwrap();
    with.extend(["--report-json", r]);
    let with = text(&certify(&with, &reducer).stdout);
    assert!(
        with.contains(&format!("\n... and 8 more failing cases (all in {r})\n")),
        "{with}"
    );
}

/// A `protocol-json` failure shows what the reducer wrote (cut after 300
/// characters, escaped), in the case failure and the counterexample.
#[test]
fn protocol_json_failures_show_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let script = dir.path().join("bad.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nwhile read l; do printf 'not json \\033[31m'; head -c 400 /dev/zero | tr '\\0' x; echo; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = certify(
        &[
            "--persistent",
            "--cases",
            "1",
            "--corpus",
            empty.to_str().unwrap(),
        ],
        &[script.to_str().unwrap()],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let shown = format!(
        "the response is not JSON: expected ident at line 1 column 2; it wrote \"not json \\u001b[31m{}\"... (414 bytes)",
        "x".repeat(286)
    );
    assert!(
        stdout.contains(&format!("  protocol-json: {shown}\n")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("  failure:  {shown}\n")),
        "{stdout}"
    );
}

/// Counterexamples are printed in the run's wire format: input, expected
/// and actual alike.
#[test]
fn counterexamples_are_printed_in_the_runs_format() {
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--format",
            "openai",
            "--persistent",
            "--cases",
            "200",
        ],
        &[
            python(),
            "-S",
            &example("naive_last_n.py"),
            "--format",
            "openai",
            "--persistent",
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let cx: Vec<&str> = stdout
        .split("minimal counterexample for no-orphan-result")
        .nth(1)
        .unwrap()
        .lines()
        .filter(|l| {
            l.starts_with("  input") || l.starts_with("  expected") || l.starts_with("  actual")
        })
        .take(3)
        .collect();
    assert_eq!(
        cx,
        vec![
            r#"  input:    {"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":""}]}"#,
            r#"  expected (reference): {"messages":[]}"#,
            r#"  actual (reducer):     {"messages":[{"role":"tool","tool_call_id":"c1","content":""}]}"#,
        ]
    );
}

/// In a format with a top-level system prompt (Anthropic), a counterexample
/// shows it where the reducer reads and writes it, as `system` beside
/// `messages`, not as a `system` message inside `messages` (which the
/// Anthropic API refuses).
#[test]
fn counterexamples_show_the_anthropic_system_at_the_top_level() {
    // Keeps the last maxMessages messages and drops the top-level system.
    let script = "import json,sys\n\
        for line in sys.stdin:\n\
        \x20   r = json.loads(line)\n\
        \x20   n = r.get('maxMessages')\n\
        \x20   ok = isinstance(n, int) and not isinstance(n, bool) and n >= 1\n\
        \x20   print(json.dumps({'messages': r['messages'][-n:]} if ok else {'error': 'bad'}), flush=True)\n";
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--format",
            "anthropic",
            "--persistent",
            "--cases",
            "200",
        ],
        &[python(), "-S", "-c", script],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let cx: Vec<&str> = stdout
        .split("minimal counterexample for system-pinned")
        .nth(1)
        .unwrap()
        .lines()
        .filter(|l| {
            l.starts_with("  failure")
                || l.starts_with("  input")
                || l.starts_with("  expected")
                || l.starts_with("  actual")
        })
        .take(6)
        .collect();
    assert_eq!(
        cx,
        vec![
            "  failure:  the pinned system message (input message 0) is missing",
            "  failure:  differs from the reference: expected 1, got 0 messages, first difference at $[0]",
            "  failure:  the input fits but the output differs at $[0]",
            r#"  input:    {"system":"","messages":[]}"#,
            r#"  expected (reference): {"system":"","messages":[]}"#,
            r#"  actual (reducer):     {"messages":[]}"#,
        ]
    );
}

/// A reducer program that cannot be started is named in the error (exit 2),
/// in per-case and persistent mode; the error said only "No such file or
/// directory".
#[test]
fn a_reducer_that_cannot_start_is_named() {
    for mode in [&[][..], &["--persistent"][..]] {
        let mut args = vec!["--policy", "suffix", "--cases", "3"];
        args.extend(mode);
        let out = certify(&args, &["/nonexistent/no-such-reducer", "--flag"]);
        assert_eq!(out.status.code(), Some(2), "{mode:?}");
        let stderr = text(&out.stderr);
        assert_eq!(
            stderr.lines().last(),
            Some("reducer-kit: error: cannot run the reducer: /nonexistent/no-such-reducer: No such file or directory (os error 2)"),
            "{stderr}"
        );
    }
}

/// A run's declarations travel with it (spec §16): its reproduce and
/// replay lines carry `--declare`, and rerun as printed; a replayed case
/// the declaration leaves out runs nothing and says why (exit 2).
#[test]
fn rerun_lines_keep_the_declarations() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let saved = dir.path().join("saved");
    let py = python();
    let naive = example("naive_last_n.py");
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--persistent",
            "--cases",
            "100",
            "--corpus",
            empty.to_str().unwrap(),
            "--declare",
            "system-first-only",
            "--save-failures",
            saved.to_str().unwrap(),
        ],
        &[py, "-S", &naive, "--persistent"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let reproduce = stdout
        .lines()
        .find_map(|l| l.strip_prefix("  reproduce: "))
        .unwrap();
    assert_eq!(
        reproduce,
        format!(
            "reducer-kit certify --policy suffix --format canonical --declare system-first-only --persistent --corpus {} --case gen/1/44 -- {py} -S {naive} --persistent",
            empty.display()
        )
    );
    let replay = stdout
        .lines()
        .find_map(|l| l.strip_prefix("  replay:   "))
        .unwrap();
    assert_eq!(
        replay,
        format!(
            "reducer-kit certify --policy suffix --format canonical --declare system-first-only --persistent --shrink-tries 0 --replay {} -- {py} -S {naive} --persistent",
            saved.join("fail-89d444a63b8425c4.json").display()
        )
    );
    for line in [reproduce, replay] {
        let again = Command::new("sh")
            .arg("-c")
            .arg(line.replacen("reducer-kit", kit_path(), 1))
            .current_dir(root())
            .output()
            .unwrap();
        assert_eq!(again.status.code(), Some(1), "{line}");
        assert!(
            text(&again.stdout).contains("declares system-first-only"),
            "{line}: {}",
            text(&again.stdout)
        );
    }
    // A case whose system message comes after a user message: outside a
    // system-first-only contract.
    let late = dir.path().join("late.json");
    std::fs::write(
        &late,
        r#"{"id": "late-system", "spec": 1, "policy": "suffix", "maxMessages": 1, "messages": [
            {"role": "user", "contents": [{"$type": "text", "text": "q"}]},
            {"role": "system", "contents": [{"$type": "text", "text": "s"}]}
        ], "expected": [{"role": "system", "contents": [{"$type": "text", "text": "s"}]}]}"#,
    )
    .unwrap();
    let none = certify(
        &[
            "--policy",
            "suffix",
            "--declare",
            "system-first-only",
            "--replay",
            late.to_str().unwrap(),
        ],
        &[py, "-S", &naive],
    );
    assert_eq!(none.status.code(), Some(2));
    assert_eq!(
        text(&none.stderr),
        "reducer-kit: error: no cases to run: 1 case outside the run's contract; \"late-system\" shows pinned-not-first, which --declare system-first-only leaves out (spec §16.6)\n"
    );
}

/// The first difference is said once: an input failing `no-orphan-result`
/// and `matches-reference` is drawn once, and the difference is said by
/// `matches-reference`'s failure, which ends with it, and nowhere else; in
/// the text report and the HTML page alike.
#[test]
fn the_first_difference_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("orphan.json");
    std::fs::write(
        &cases,
        r#"{"id": "orphan-result", "spec": 1, "policy": "suffix", "maxMessages": 2, "messages": [
              {"role": "tool", "contents": [{"$type": "functionResult", "callId": "x", "result": "r"}]},
              {"role": "user", "contents": [{"$type": "text", "text": "q"}]}],
            "expected": [{"role": "user", "contents": [{"$type": "text", "text": "q"}]}]}"#,
    )
    .unwrap();
    let page = dir.path().join("r.html");
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--replay",
            cases.to_str().unwrap(),
            "--report-html",
            page.to_str().unwrap(),
        ],
        &[python(), "-S", &example("naive_last_n.py")],
    );
    let stdout = text(&out.stdout);
    // One input fails both clauses: drawn once, the difference said by
    // matches-reference's failure and by no line of its own.
    let block: Vec<&str> = stdout
        .split("minimal counterexample for no-orphan-result, matches-reference ")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter(|l| l.contains("first difference"))
        .collect();
    assert_eq!(
        block,
        ["  failure:  differs from the reference: expected 1, got 2 messages, first difference at $[0].role"],
        "{stdout}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(
        "<b>failure:</b> differs from the reference: expected 1, got 2 messages, first difference at $[0].role</p>"
    ));
    assert!(html.contains(
        "<b>failure:</b> output message 0: result &quot;x&quot; has no call earlier in the output</p>"
    ));
    assert_eq!(html.matches("first difference at").count(), 1);
}

/// An OpenAI trimmer as an application might write one: it pins only a
/// `system` message at index 0 (not a `developer` one, not a later one),
/// and pairs results by `tool_call_id`.
const FIRST_SYSTEM_ONLY: &str = r#"import json, sys
def trim(request):
    budget = request["maxMessages"]
    messages = request["messages"]
    pinned = 0 if messages and messages[0].get("role") == "system" else None
    rest = [i for i in range(len(messages)) if i != pinned]
    start = max(0, len(rest) - int(budget))
    while start < len(rest) and messages[rest[start]].get("role") == "tool":
        start += 1
    kept = sorted(rest[start:] + ([pinned] if pinned is not None else []))
    unanswered, out = {}, []
    for i in kept:
        m = messages[i]
        if m.get("role") == "tool":
            call = m.get("tool_call_id")
            if not unanswered.get(call):
                continue
            unanswered[call] -= 1
        for c in m.get("tool_calls") or []:
            unanswered[c.get("id")] = unanswered.get(c.get("id"), 0) + 1
        out.append(m)
    return {"messages": out}
for line in sys.stdin:
    try:
        print(json.dumps(trim(json.loads(line))), flush=True)
    except Exception as e:
        print(json.dumps({"error": str(e)}), flush=True)
"#;

/// Hints judged from the answers, given when they fit and only then: a
/// reducer that pins only a first `system` message is told that a
/// `developer` message is the system prompt (spec §1.2) and that
/// `--declare system-first-only` declares its contract (§16.6); run
/// without its `--format`, it is told it reads no result in the format it
/// gets; a reducer right on all three hears none of it.
#[test]
fn hints_fit_the_answers() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("first_only.py");
    std::fs::write(&script, FIRST_SYSTEM_ONLY).unwrap();
    let script = script.to_str().unwrap();
    let hints = |format: &str, declare: &str, reducer: &[&str]| -> Vec<String> {
        let mut args = vec![
            "--policy",
            "suffix",
            "--format",
            format,
            "--persistent",
            "--cases",
            "300",
        ];
        if !declare.is_empty() {
            args.extend(["--declare", declare]);
        }
        let out = certify(&on_kit_cases(&args), reducer);
        text(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("hint: "))
            .map(str::to_string)
            .collect()
    };
    let py = python();
    let shown = hints("openai", "", &[py, "-S", script]);
    assert_eq!(shown.len(), 2, "{shown:#?}");
    // How many cases of each kind: golden counts.
    let developer = golden_numbers(
        &shown[0],
        "hint: system-pinned failed in {} of the {} cases whose first message is a `developer` message, and in none of the {} whose first message is a `system` one: in OpenAI a `developer` message is the system prompt (OpenAI's newer name for `system`, spec section 1.2), pinned as a `system` message is",
        &[
            "certify_ux.first_only.openai-300.developer-first.failed",
            "certify_ux.first_only.openai-300.developer-first.cases",
            "certify_ux.first_only.openai-300.system-first.cases",
        ],
    );
    let first_only = golden_numbers(
        &shown[1],
        "hint: system-pinned failed in {} of the {} cases whose system message comes after message 0, and in none of the {} where it is message 0: the reducer keeps a system message only at the start. The pinned message is the earliest system message wherever it stands (spec section 2); if keeping only a first one is the reducer's documented contract, declare it: --declare system-first-only (spec section 16.6)",
        &[
            "certify_ux.first_only.openai-300.system-later.failed",
            "certify_ux.first_only.openai-300.system-later.cases",
            "certify_ux.first_only.openai-300.system-at-0.cases",
        ],
    );
    assert_eq!(shown, [developer.as_str(), first_only.as_str()]);
    // The same hints in the JSON report, the HTML page and the JUnit
    // report.
    let (json, html, junit) = (
        dir.path().join("r.json"),
        dir.path().join("r.html"),
        dir.path().join("r.xml"),
    );
    certify(
        &on_kit_cases(&[
            "--policy",
            "suffix",
            "--format",
            "openai",
            "--persistent",
            "--cases",
            "300",
            "--report-json",
            json.to_str().unwrap(),
            "--report-html",
            html.to_str().unwrap(),
            "--report-junit",
            junit.to_str().unwrap(),
        ]),
        &[py, "-S", script],
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let bare = |h: &str| h.strip_prefix("hint: ").unwrap().to_string();
    assert_eq!(
        report["hints"],
        serde_json::json!([bare(&developer), bare(&first_only)])
    );
    let page = std::fs::read_to_string(&html).unwrap();
    let upto = |h: &str, end: &str| h[..h.find(end).unwrap() + end.len()].to_string();
    assert!(page.contains(&format!(
        "<b>hint:</b> {}",
        upto(&bare(&first_only), "after message 0,")
    )));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains(&format!("<system-out>{}", upto(&developer, " cases"))));
    // Declared, the contract is the reducer's: no hint to declare it.
    let declared = hints("openai", "system-first-only", &[py, "-S", script]);
    assert!(
        !declared.iter().any(|h| h.contains("--declare")),
        "{declared:#?}"
    );
    // Without its --format: the canonical messages it gets hold results
    // it never sees.
    let canonical = hints("canonical", "", &[py, "-S", script]);
    assert_eq!(canonical.len(), 1, "{canonical:#?}");
    let kept = golden_numbers(
        &canonical[0],
        "hint: {} of the {} answers to inputs holding a tool result kept one: the reducer recognises no result in the canonical messages it gets (--format canonical). If it was written for another format, certify it with that one: --format openai|anthropic|responses|gemini|bedrock",
        &[
            "certify_ux.first_only.canonical-300.kept-a-result",
            "certify_ux.first_only.canonical-300.holding-a-result",
        ],
    );
    assert_eq!(canonical, [kept]);
    // A trimmer right about all three: no hint.
    let trimmer = example("openai_trimmer.py");
    assert_eq!(
        hints("openai", "", &[py, "-S", &trimmer, "--persistent"]),
        Vec::<String>::new()
    );
}

/// A per-case run of a reducer that spends its time starting (0.3 s of
/// `sleep` before the kit's own reference) is told how much faster
/// `--persistent` would be: its start-up, probed between requests, is
/// nearly all of a request's time. The speed-up itself depends on the
/// machine; the line and its parts do not.
#[test]
fn a_per_case_run_says_what_persistent_saves() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let reducer = format!("sleep 0.3; exec {} serve --policy suffix", kit_path());
    let out = certify(
        &[
            "--policy",
            "suffix",
            "--corpus",
            dir.path().to_str().unwrap(),
            "--cases",
            "12",
            "--jobs",
            "1",
            "--report-json",
            json.to_str().unwrap(),
        ],
        &["sh", "-c", &reducer],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let hint = stdout
        .lines()
        .find(|l| l.starts_with("hint: every request started the reducer anew"))
        .unwrap_or_else(|| panic!("no speed-up hint: {stdout}"));
    assert!(
        hint.contains("(per-case mode, spec section 8.2): a request took "),
        "{hint}"
    );
    assert!(
        hint.contains(" of it starting the reducer (its time to start and exit on no request). If it can answer one request per line (spec section 8.3), --persistent would run the cases "),
        "{hint}"
    );
    assert!(
        hint.ends_with(" times faster or more") || hint.ends_with("more than 20 times faster"),
        "{hint}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        report["hints"],
        serde_json::json!([hint.strip_prefix("hint: ").unwrap()])
    );
}

/// A corpus in `dir/corpus` of one case, `long/N`: `n` messages, user and
/// assistant in turn (`message 0`, ...), maxMessages 3, expecting the last
/// turn (over 1 MiB at 25,000 messages); and its messages.
fn long_case(dir: &Path, n: usize) -> (std::path::PathBuf, Vec<serde_json::Value>) {
    let corpus = dir.join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    let messages: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            serde_json::json!({"role": role, "contents": [{"$type": "text", "text": format!("message {i}")}]})
        })
        .collect();
    let case = serde_json::json!({
        "id": format!("long/{n}"), "spec": 1, "policy": "turns", "maxMessages": 3,
        "expected": [messages[n - 2], messages[n - 1]], "messages": messages,
    });
    std::fs::write(corpus.join("long.json"), case.to_string()).unwrap();
    (corpus, messages)
}

/// A counterexample over 1 MiB is reported by reference in the JSON
/// report (spec §9.1): no copy of its messages or answers, its sizes, and
/// its case file saved beside the report, the same bytes a whole case
/// file has.
#[test]
fn a_counterexample_over_a_mebibyte_is_reported_by_reference() {
    let dir = tempfile::tempdir().unwrap();
    let n = 25_000;
    let (corpus, messages) = long_case(dir.path(), n);
    let report = dir.path().join("run.json");
    let html = dir.path().join("run.html");
    let out = certify(
        &[
            "--corpus",
            corpus.to_str().unwrap(),
            "--cases",
            "0",
            "--persistent",
            "--shrink-time",
            "0",
            "--report-json",
            report.to_str().unwrap(),
            "--report-html",
            html.to_str().unwrap(),
        ],
        &[python(), "-S", &example("naive_last_n.py"), "--persistent"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let bytes = serde_json::to_string(&messages).unwrap().len();
    let cxs = doc["counterexamples"].as_array().unwrap();
    let clauses: Vec<&str> = cxs.iter().map(|c| c["clause"].as_str().unwrap()).collect();
    assert_eq!(clauses, ["whole-turns", "matches-reference"]);
    let saved = cxs[0]["savedTo"].as_str().unwrap().to_string();
    let failures = dir.path().join("run-failures");
    assert!(Path::new(&saved).starts_with(&failures), "{saved}");
    for c in cxs {
        assert_eq!(c["messages"], serde_json::Value::Null);
        assert_eq!(c["expected"], serde_json::Value::Null);
        assert_eq!(c["actual"], serde_json::Value::Null);
        assert_eq!(
            c["omitted"],
            serde_json::json!({"messages": n, "bytes": bytes, "expectedMessages": 2, "actualMessages": 3})
        );
        assert_eq!(c["savedTo"].as_str(), Some(saved.as_str()));
    }
    assert!(
        stdout.contains(&format!("  saved:    {saved}\n")),
        "{stdout}"
    );
    let head: String = serde_json::json!({"messages": messages[..100]})
        .to_string()
        .chars()
        .take(2000)
        .collect();
    assert!(
        stdout.contains(&format!("\n  input:    {head}... (its first 100 of 25000 messages, in the run's format; {bytes} bytes as canonical JSON)\n")),
        "{stdout}"
    );
    // One file for both clauses, the whole case, laid out as a case file is.
    let files: Vec<_> = std::fs::read_dir(&failures).unwrap().collect();
    assert_eq!(files.len(), 1);
    let written = std::fs::read_to_string(&saved).unwrap();
    let cases = reducer_kit::case::parse_cases(&written, Path::new(&saved)).unwrap();
    assert_eq!(cases[0].messages, messages);
    assert_eq!(cases[0].clauses, ["whole-turns", "matches-reference"]);
    assert_eq!(written, cases[0].to_pretty_json());
    assert!(std::fs::metadata(&report).unwrap().len() < 20_000);
    // The HTML report draws it not, and says why.
    let page = std::fs::read_to_string(&html).unwrap();
    let said = format!(
        "Not drawn: its input is 25,000 messages, {} bytes (over 1,048,576 bytes); the reference answered 2 messages, the reducer 3 messages.",
        reducer_kit::certify::report::thousands(bytes)
    );
    assert!(page.contains(&said), "{said}");
    assert!(!page.contains("message 24997"));
}

/// In a run of another wire format, a counterexample over 1 MiB is shown
/// from its first messages in that format, never converted whole (spec
/// §9.1): the text report's input line gives the first 100 and the size.
#[test]
fn a_large_counterexample_in_another_format_is_shown_from_its_first_messages() {
    let dir = tempfile::tempdir().unwrap();
    let n = 25_000;
    let (corpus, messages) = long_case(dir.path(), n);
    let out = certify(
        &[
            "--format",
            "openai",
            "--corpus",
            corpus.to_str().unwrap(),
            "--cases",
            "0",
            "--persistent",
            "--shrink-time",
            "0",
        ],
        &[
            python(),
            "-S",
            &example("naive_last_n.py"),
            "--format",
            "openai",
            "--persistent",
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let bytes = serde_json::to_string(&messages).unwrap().len();
    let line = stdout
        .lines()
        .find(|l| l.starts_with("  input:    "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let first =
        reducer_kit::formats::to_wire(reducer_kit::formats::Format::OpenAi, &messages[..100])
            .unwrap();
    let whole = serde_json::json!({"messages": first}).to_string();
    let cut: String = whole.chars().take(2000).collect();
    assert_eq!(
        line,
        format!("  input:    {cut}... (its first 100 of 25000 messages, in the run's format; {bytes} bytes as canonical JSON)")
    );
    assert!(stdout.contains("  expected (reference): {\"messages\":[{\"role\":\"user\",\"content\":\"message 24998\"}"), "{stdout}");
}
