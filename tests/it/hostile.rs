//! Hostile reducers against `reducer-kit certify` end to end:
//! each test names the exact protocol clause, the exit code, what bounds
//! the run by counting (cases, restarts, answers) or, where the bound is
//! "does not wait for a reducer that sleeps 1,000 s", by a wall time of
//! 60 s that load cannot reach (never a tighter one), and
//! checks that no process of the run is left alive, by the
//! `REDUCER_KIT_RUN` marker the kit passes to every reducer (spec §8.6),
//! not by name. The scripts in `tests/hostile/` say what each reducer does.

mod ids;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn kit() -> &'static str {
    env!("CARGO_BIN_EXE_reducer-kit")
}

fn script(name: &str) -> String {
    root()
        .join("tests/hostile")
        .join(name)
        .display()
        .to_string()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The run id the kit printed in its start line (`REDUCER_KIT_RUN=<id>`).
fn run_id(stderr: &str) -> String {
    let at = stderr
        .find("REDUCER_KIT_RUN=")
        .unwrap_or_else(|| panic!("no run id in: {stderr}"));
    stderr[at + "REDUCER_KIT_RUN=".len()..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect()
}

/// The live processes (pid, command line) whose environment carries
/// `REDUCER_KIT_RUN=<id>`. A zombie's environment reads empty.
fn marked(id: &str) -> Vec<(u32, String)> {
    let marker = format!("REDUCER_KIT_RUN={id}");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ.split(|&b| b == 0).any(|v| v == marker.as_bytes()) {
            let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push((pid, text(&cmd).replace('\0', " ")));
        }
    }
    found
}

/// No process of run `id` is alive (SIGKILL takes a moment to land).
fn assert_none_left(id: &str) {
    assert_eq!(id.len(), 16, "run id {id:?}");
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let left = marked(id);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < until,
            "processes of run {id} left alive: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One `certify` run: its output and its JSON report (when it wrote
/// one). That the run did not wait for a hung reducer is counted, not
/// timed: no process of the run is left when it ends
/// ([`assert_none_left`]), and the clauses say which request timed out.
struct Run {
    out: Output,
    report: Option<Value>,
}

impl Run {
    fn stdout(&self) -> String {
        text(&self.out.stdout)
    }

    fn code(&self) -> Option<i32> {
        self.out.status.code()
    }

    fn report(&self) -> &Value {
        self.report
            .as_ref()
            .unwrap_or_else(|| panic!("no report; stderr: {}", text(&self.out.stderr)))
    }

    /// The failed clauses of result `i`.
    fn failed(&self, i: usize) -> Vec<String> {
        self.report()["results"][i]["failures"]
            .as_array()
            .map(|f| {
                f.iter()
                    .map(|x| x["clause"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The detail of clause `clause` in result `i`.
    fn detail(&self, i: usize, clause: &str) -> String {
        self.report()["results"][i]["failures"]
            .as_array()
            .and_then(|f| f.iter().find(|x| x["clause"] == clause))
            .and_then(|x| x["detail"].as_str())
            .unwrap_or_else(|| panic!("no {clause} failure in result {i}: {}", self.report()))
            .to_string()
    }
}

/// Runs `certify ARGS --report-json F -- REDUCER` (in `dir`), then checks
/// that no process of the run is left.
fn certify_in(dir: &Path, args: &[&str], reducer: &[&str]) -> Run {
    let report = dir.join("report.json");
    let out = Command::new(kit())
        .arg("certify")
        .args(args)
        .arg("--report-json")
        .arg(&report)
        .arg("--")
        .args(reducer)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_none_left(&run_id(&text(&out.stderr)));
    let report = std::fs::read_to_string(&report)
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap());
    Run { out, report }
}

fn certify(args: &[&str], reducer: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    certify_in(dir.path(), args, reducer)
}

fn empty_case() -> String {
    root()
        .join("tests/data/empty-case.json")
        .display()
        .to_string()
}

/// A case file in `dir` holding `cases`.
fn case_file(dir: &Path, name: &str, cases: &Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(cases).unwrap()).unwrap();
    p.display().to_string()
}

fn empty_history(id: &str, budget: u64) -> Value {
    json!({"id": id, "spec": 1, "policy": "turns", "maxMessages": budget,
           "messages": [], "expected": []})
}

// ---------------------------------------------------------------------------
// 1. A reducer that tries to leave its process group.

#[test]
fn a_reducer_cannot_join_the_kits_group_and_its_escaped_child_costs_no_time() {
    for persistent in [false, true] {
        let mut args = vec!["--timeout", "1000", "--shrink-tries", "0", "--replay"];
        let case = empty_case();
        args.push(&case);
        let mut reducer = vec!["python3", "-S"];
        let s = script("leave_group.py");
        reducer.push(&s);
        if persistent {
            args.extend(["--persistent", "--startup-timeout", "500"]);
            reducer.push("--persistent");
        }
        let run = certify(&args, &reducer);
        assert_eq!(run.code(), Some(1), "{}", run.stdout());
        assert_eq!(
            run.failed(0),
            ["protocol-timeout"],
            "persistent {persistent}"
        );
        // It could not leave its session for the kit's group.
        assert_eq!(
            run.report()["results"][0]["stderrTail"],
            "setpgid: EPERM\n",
            "persistent {persistent}"
        );
        // 1 s (+ 0.5 s of start-up), not the 1,000 s it sleeps.
    }
}

// ---------------------------------------------------------------------------
// 2, 3. SIGINT and SIGTERM: every reducer killed, a summary, no report.

/// Starts `certify` with stderr piped; returns the child and a receiver of
/// its stderr lines.
fn spawn_certify(
    args: &[&str],
    reducer: &[&str],
    env: (&str, &Path),
) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(kit())
        .arg("certify")
        .args(args)
        .arg("--")
        .args(reducer)
        .env(env.0, env.1)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

#[test]
fn sigint_and_sigterm_kill_every_reducer_and_write_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let cases = case_file(
        dir.path(),
        "three.json",
        &json!([
            empty_history("h/one", 1),
            empty_history("h/two", 2),
            empty_history("h/three", 3)
        ]),
    );
    for (signal, name, code, persistent) in [
        (libc::SIGINT, "SIGINT", 130, false),
        (libc::SIGTERM, "SIGTERM", 143, true),
    ] {
        let pid_file = dir.path().join(format!("hung-{name}"));
        let report = dir.path().join(format!("report-{name}.json"));
        let report_arg = report.display().to_string();
        let mut args = vec![
            "--timeout",
            "600000",
            "--jobs",
            "1",
            "--replay",
            &cases,
            "--report-json",
            &report_arg,
        ];
        let s = script("hang_on_budget.py");
        let mut reducer = vec!["python3", "-S", s.as_str()];
        if persistent {
            args.push("--persistent");
            reducer.push("--persistent");
        }
        let (child, stderr) = spawn_certify(&args, &reducer, ("HOSTILE_PID_FILE", &pid_file));
        let start_line = stderr.recv_timeout(Duration::from_secs(60)).unwrap();
        let id = run_id(&start_line);
        // Wait until the reducer hangs on the third case (and its `sleep`
        // runs), then stop the kit.
        let until = Instant::now() + Duration::from_secs(60);
        while !pid_file.exists() {
            assert!(Instant::now() < until, "the reducer never hung");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(marked(&id).len() >= 2, "{:?}", marked(&id));
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{name}");
        // At once, not after the 600 s limit: nothing of the run is left.
        assert_none_left(&id);
        assert!(!report.exists(), "{name}: a report was written");
        let stdout = text(&out.stdout);
        for line in [
            format!("INTERRUPTED by {name}: 2 of 3 cases finished; partial results below, no report written"),
            "level protocol  pass".to_string(),
            "level exact     pass".to_string(),
            format!("certificate: none (interrupted by {name} after 2 of 3 cases)"),
            "2 passed, 0 failed".to_string(),
        ] {
            assert!(stdout.lines().any(|l| l == line), "{name}: no line {line:?} in:\n{stdout}");
        }
        assert!(!stdout.contains("certificate: reducer-kit"), "{stdout}");
    }
}

// ---------------------------------------------------------------------------
// 4. A daemon that escapes with setsid and holds the pipes.

#[test]
fn escaped_daemons_holding_the_pipes_cost_no_descriptor_and_no_time() {
    // 64 descriptors: the old kit leaked two per request and died.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let out = Command::new("sh")
        .args(["-c", "ulimit -n 64 && exec \"$0\" \"$@\""])
        .arg(kit())
        .args([
            "certify",
            "--policy",
            "turns",
            "--corpus",
            "corpus/seed",
            "--cases",
            "20",
            "--jobs",
            "2",
            "--timeout",
            "5000",
            "--report-json",
        ])
        .arg(&report)
        .arg("--")
        .args(["sh", &script("daemon.sh"), kit(), "--policy", "turns"])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let id = run_id(&text(&out.stderr));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let cases = r["casesRun"].as_u64().unwrap();
    assert!(cases >= 25, "{cases}");
    // About 4 requests per case, over 100: the old kit waited 1 s on each.
    // The daemons (still sleeping) are swept at the end of the run.
    assert_none_left(&id);
}

// ---------------------------------------------------------------------------
// 5. Unrequested output: a protocol-json failure of the case it followed.

#[test]
fn an_answer_written_twice_fails_protocol_json_of_its_own_case_only() {
    let s = script("proxy.py");
    let args = [
        "--persistent",
        "--corpus",
        "corpus/seed",
        "--cases",
        "5",
        "--jobs",
        "2",
        "--shrink-tries",
        "0",
    ];
    let reducer = ["python3", "-S", &s, kit(), "--twice"];
    let first = certify(&args, &reducer);
    assert_eq!(first.code(), Some(1));
    let results = first.report()["results"].as_array().unwrap().clone();
    assert!(results.len() >= 10);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(first.failed(i), ["protocol-json"], "{}", r["id"]);
        let detail = first.detail(i, "protocol-json");
        // Every request's answer came twice: the first request's extra and
        // each extra request's.
        let parts: Vec<&str> = detail.split("; ").collect();
        // The extra bytes are the answer again: {"messages": ...} or
        // {"error": ...} (a bad budget).
        let bytes = r#" unrequested bytes after its answer: "{\""#;
        assert!(
            parts[0].starts_with("wrote ") && parts[0].contains(bytes),
            "{detail}"
        );
        assert!(
            parts[1].starts_with("the repeated request: wrote "),
            "{detail}"
        );
    }
    // Every other clause passed: the answers themselves were right.
    for (clause, t) in first.report()["clauses"].as_object().unwrap() {
        if clause != "protocol-json" {
            assert_eq!(t["failed"], 0, "{clause}");
        }
    }
    // The same run again gives the same results.
    let second = certify(&args, &reducer);
    assert_eq!(second.report()["results"], first.report()["results"]);
}

#[test]
fn a_line_written_at_the_end_fails_the_last_case_of_its_worker() {
    let s = script("proxy.py");
    let run = certify(
        &[
            "--persistent",
            "--timeout",
            "600000",
            "--replay",
            &empty_case(),
            "--shrink-tries",
            "0",
        ],
        &["python3", "-S", &s, kit(), "--goodbye"],
    );
    assert_eq!(run.code(), Some(1));
    assert_eq!(run.failed(0), ["protocol-json"]);
    // The empty case's last request was the output sent back (its budget,
    // 1, has no smaller one).
    assert_eq!(
        run.detail(0, "protocol-json"),
        r#"the output sent back: wrote 4 unrequested bytes after its answer: "bye\n""#
    );
}

// ---------------------------------------------------------------------------
// 6. Start-up has its own limit.

#[test]
fn a_slow_start_is_not_counted_against_the_first_request() {
    let s = script("proxy.py");
    let slow = [
        "python3",
        "-S",
        &s,
        kit(),
        "--start",
        "0.7",
        "--delay",
        "0.4",
    ];
    let run = certify(
        &[
            "--persistent",
            "--timeout",
            "1000",
            "--replay",
            &empty_case(),
        ],
        &slow,
    );
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert_eq!(run.failed(0), Vec::<String>::new());

    // A start-up longer than its own limit times the first request out.
    let slower = ["python3", "-S", &s, kit(), "--start", "1000"];
    let run = certify(
        &[
            "--persistent",
            "--timeout",
            "1000",
            "--startup-timeout",
            "200",
            "--replay",
            &empty_case(),
            "--shrink-tries",
            "0",
        ],
        &slower,
    );
    assert_eq!(run.code(), Some(1));
    assert_eq!(run.failed(0), ["protocol-timeout"]);
}

// ---------------------------------------------------------------------------
// 7. A reducer that exits after answering.

#[test]
fn exiting_cleanly_after_each_answer_is_a_restart_the_same_in_every_run() {
    let s = script("proxy.py");
    let args = [
        "--persistent",
        "--corpus",
        "corpus/seed",
        "--cases",
        "5",
        "--jobs",
        "2",
    ];
    let reducer = ["python3", "-S", &s, kit(), "--once", "0"];
    let runs: Vec<Run> = (0..4).map(|_| certify(&args, &reducer)).collect();
    for run in &runs {
        assert_eq!(run.code(), Some(0), "{}", run.stdout());
        assert_eq!(run.report()["levels"]["exact"], true);
        assert_eq!(run.report(), runs[0].report());
        assert!(run
            .stdout()
            .contains(" after a clean exit between requests)"));
    }
    let restarts = runs[0].report()["restarts"].as_u64().unwrap();
    assert!(restarts >= 30, "{restarts}");
}

#[test]
fn exiting_with_an_error_after_each_answer_fails_the_next_request_the_same_in_every_run() {
    let s = script("proxy.py");
    let args = [
        "--persistent",
        "--corpus",
        "corpus/seed",
        "--cases",
        "0",
        "--jobs",
        "1",
        "--shrink-tries",
        "0",
    ];
    let reducer = ["python3", "-S", &s, kit(), "--once", "3"];
    let runs: Vec<Run> = (0..4).map(|_| certify(&args, &reducer)).collect();
    let first = &runs[0];
    assert_eq!(first.code(), Some(1));
    // The first case (budget 1): its first request answered, its second
    // (the repeat) sent to the process that had exited with status 3; its
    // third (the output sent back) answered by a new process, which exits
    // too, so the next case's first request fails the same way.
    assert_eq!(first.report()["results"][0]["maxMessages"], 1);
    assert_eq!(first.failed(0), ["protocol-crash"]);
    assert_eq!(
        first.detail(0, "protocol-crash"),
        "the repeated request: the reducer crashed: exit status 3"
    );
    assert_eq!(first.failed(1), ["protocol-crash"]);
    assert_eq!(
        first.detail(1, "protocol-crash"),
        "the reducer crashed: exit status 3"
    );
    for run in &runs {
        assert_eq!(run.report()["results"], first.report()["results"]);
    }
}

// ---------------------------------------------------------------------------
// 8. Numbers compared exactly.

#[test]
fn a_number_with_a_huge_exponent_is_not_the_number_one() {
    let dir = tempfile::tempdir().unwrap();
    let message = json!({"role": "user", "contents": [{"$type": "text", "text": "refund", "amountCents": 1}]});
    let mut huge: Value = serde_json::from_str(
        r#"{"id": "n/huge-budget", "spec": 1, "policy": "turns", "maxMessages": 2e99999999999999999999, "messages": [], "expected": []}"#,
    )
    .unwrap();
    huge["messages"] = json!([message]);
    huge["expected"] = json!([message]);
    let tiny: Value = serde_json::from_str(
        r#"{"id": "n/tiny-budget", "spec": 1, "policy": "turns", "maxMessages": 1e-99999999999999999999, "messages": [], "expectedError": "bad-budget"}"#,
    )
    .unwrap();
    let cases = case_file(dir.path(), "numbers.json", &json!([huge, tiny]));
    // The reference: a huge budget keeps everything, a tiny one is refused.
    // Both budgets are spelled with an exponent, which only
    // `--with budget-spellings` sends (spec §9.5).
    let run = certify(
        &["--replay", &cases, "--with", "budget-spellings"],
        &[kit(), "serve"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    // A reducer that turns 1 into 1e99999999999999999999 fabricates.
    let s = script("proxy.py");
    let run = certify(
        &[
            "--persistent",
            "--replay",
            &cases,
            "--with",
            "budget-spellings",
            "--shrink-tries",
            "0",
        ],
        &["python3", "-S", &s, kit(), "--inflate"],
    );
    assert_eq!(run.code(), Some(1));
    assert_eq!(
        run.failed(0),
        // The policy clauses and matches-reference judge which input
        // messages were kept: not judged beside a message that is none
        // (spec §9.1).
        ["no-fabrication"]
    );
    assert_eq!(run.failed(1), Vec::<String>::new());
}

// ---------------------------------------------------------------------------
// 9. The terminal.

#[test]
fn case_ids_and_stderr_cannot_drive_the_terminal_or_forge_report_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut case = empty_history("x", 1);
    case["id"] =
        json!("evil\nlevel safety    pass\ncertificate: forged\u{1b}]0;pwned\u{7}\u{202e}");
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    case_file(&corpus, "evil.json", &json!([case]));
    let corpus = corpus.display().to_string();
    let run = certify(
        &["--corpus", &corpus, "--cases", "0", "--shrink-tries", "0"],
        &["sh", &script("terminal.sh")],
    );
    assert_eq!(run.code(), Some(1));
    let stdout = run.stdout();
    let controls: Vec<char> = stdout
        .chars()
        .filter(|&c| reducer_kit::terminal::is_unsafe(c) && c != '\n')
        .collect();
    assert_eq!(controls, Vec::<char>::new(), "{stdout}");
    assert!(!stdout.lines().any(|l| l.starts_with("certificate: forged")));
    assert!(!stdout
        .lines()
        .any(|l| l.starts_with("level safety    pass")));
    assert!(stdout.contains(
        r"FAIL evil\nlevel safety    pass\ncertificate: forged\x1b]0;pwned\x07\u{202e} (maxMessages 1, 0 messages)"
    ), "{stdout}");
    assert!(
        stdout.contains(r"      \x1b[2J\x1b]0;pwned\x07"),
        "{stdout}"
    );
    assert!(stdout.contains(r"      \u{202e}reversed"), "{stdout}");
    // The rerun command quotes the id so that a shell gets it back.
    assert!(
        stdout.contains(r"--case $'evil\nlevel safety    pass\ncertificate: forged\x1b]0;pwned\x07\xe2\x80\xae' -- sh "),
        "{stdout}"
    );
}

#[test]
fn a_reducer_leads_its_own_session_without_a_terminal() {
    let run = certify(
        &["--replay", &empty_case()],
        &["python3", "-S", &script("session_probe.py")],
    );
    assert_eq!(run.code(), Some(0));
    // A passing case keeps no stderr: run it where it fails to see it.
    let run = certify(
        &[
            "--replay",
            &empty_case(),
            "--policy",
            "suffix",
            "--max-output",
            "2",
            "--shrink-tries",
            "0",
        ],
        &["python3", "-S", &script("session_probe.py")],
    );
    assert_eq!(run.failed(0), ["protocol-size"]);
    assert_eq!(
        run.report()["results"][0]["stderrTail"],
        "own session: True\nown group: True\n/dev/tty: ENXIO\n"
    );
}

#[test]
fn corpus_check_quotes_the_directory_it_asks_to_regenerate() {
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join("st ale");
    std::fs::create_dir(&stale).unwrap();
    let mut case = empty_history("s/wrong", 1);
    case["messages"] = json!([{"role": "user", "contents": []}]);
    case_file(&stale, "a.json", &json!([case]));
    let out = Command::new(kit())
        .args(["corpus", "check"])
        .arg(&stale)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let expected = format!(
        "regenerate with: reducer-kit corpus regen '{}'",
        stale.display()
    );
    assert!(stdout.lines().any(|l| l == expected), "{stdout}");
}

// ---------------------------------------------------------------------------
// 10. Housekeeping.

#[test]
fn stale_temporary_files_are_removed_and_only_those() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.json"),
        serde_json::to_string(&json!([empty_history("t/a", 1)])).unwrap(),
    )
    .unwrap();
    // Left by a writer that was killed: its pid is not running.
    let dead = format!(".reducer-kit-tmp-{}-Ab12Cd", i32::MAX);
    std::fs::write(dir.path().join(&dead), b"").unwrap();
    std::fs::write(dir.path().join(".tmp-not-ours"), b"").unwrap();
    for sub in ["regen", "add"] {
        if sub == "add" {
            std::fs::write(dir.path().join(&dead), b"").unwrap();
        }
        let mut cmd = Command::new(kit());
        cmd.args(["corpus", sub]);
        if sub == "add" {
            cmd.arg("--dir")
                .arg(dir.path())
                .arg(dir.path().join("a.json"));
        } else {
            cmd.arg(dir.path());
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{sub}: {}", text(&out.stderr));
        let line = format!(
            "removed stale temporary file: {}",
            dir.path().join(&dead).display()
        );
        assert!(
            text(&out.stdout).lines().any(|l| l == line),
            "{sub}: {}",
            text(&out.stdout)
        );
        assert!(!dir.path().join(&dead).exists());
        assert!(dir.path().join(".tmp-not-ours").exists());
    }
}

#[test]
fn the_same_case_spelled_differently_is_added_once() {
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("regressions");
    let spellings = [
        r#"{"id": "d/one", "spec": 1, "policy": "turns", "maxMessages": 12, "messages": [{"role": "user", "contents": [{"$type": "text", "text": "hi", "n": 12}]}], "expected": []}"#,
        r#"{"id": "d/two", "spec": 1, "policy": "turns", "maxMessages": 12.0, "messages": [{"contents": [{"n": 1.2e1, "text": "hi", "$type": "text"}], "role": "user"}], "expected": []}"#,
        r#"{"policy": "turns", "id": "d/three", "spec": 1, "messages": [{"role": "user", "contents": [{"text": "hi", "$type": "text", "n": 120e-1}]}], "maxMessages": 1200e-2, "expected": []}"#,
    ];
    let files: Vec<PathBuf> = spellings
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let p = dir.path().join(format!("in{i}.json"));
            std::fs::write(&p, s).unwrap();
            p
        })
        .collect();
    let out = Command::new(kit())
        .args(["corpus", "add", "--dir"])
        .arg(&into)
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].contains(": added regress/"), "{stdout}");
    assert!(lines[1].contains(": already present: regress/"), "{stdout}");
    assert!(lines[2].contains(": already present: regress/"), "{stdout}");
    assert_eq!(std::fs::read_dir(&into).unwrap().count(), 1);
}

#[test]
fn a_huge_bad_expect_fail_line_is_echoed_in_part() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("known.txt");
    std::fs::write(
        &list,
        format!("hostile/empty protocol-json\n{}\n", "z ".repeat(500_000)),
    )
    .unwrap();
    let out = Command::new(kit())
        .args(["certify", "--replay", &empty_case(), "--expect-fail"])
        .arg(&list)
        .args(["--", kit(), "serve"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr,
        format!(
            "reducer-kit: error: {}:2: expected `CASE-ID CLAUSE-ID`, got \"{}... (999999 bytes)\"\n",
            list.display(),
            "z ".repeat(100)
        )
    );
}

#[test]
fn a_fifo_or_a_device_named_json_is_an_error_naming_it_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("a.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path in our temporary directory.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let out = Command::new(kit())
        .args(["corpus", "check"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "reducer-kit: error: {}: not a regular file (a FIFO)\n",
            fifo.display()
        )
    );
    std::fs::remove_file(&fifo).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("z.json")).unwrap();
    let run = Command::new(kit())
        .args(["certify", "--cases", "0", "--corpus"])
        .arg(dir.path())
        .args(["--", kit(), "serve"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        text(&run.stderr),
        format!(
            "reducer-kit: error: --corpus {}: not a regular file (a character device)\n",
            dir.path().join("z.json").display()
        )
    );
    // A folder named `*.json` is no folder of cases to walk: the case file
    // its name says, which is not one (spec §8.11).
    std::fs::remove_file(dir.path().join("z.json")).unwrap();
    std::fs::create_dir_all(dir.path().join("x.json/inner")).unwrap();
    std::fs::copy(empty_case(), dir.path().join("x.json/inner/c.json")).unwrap();
    let run = Command::new(kit())
        .args(["certify", "--cases", "0", "--corpus"])
        .arg(dir.path())
        .args(["--", kit(), "serve"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        text(&run.stderr),
        format!(
            "reducer-kit: error: --corpus {}: not a regular file (a directory)\n",
            dir.path().join("x.json").display()
        )
    );
}

/// The clauses that failed in some case of the run, in report order, with
/// their failing-case counts.
fn failing_clauses(run: &Run) -> Vec<(String, u64)> {
    run.report()["clauses"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, t)| t["failed"].as_u64().unwrap() > 0)
        .map(|(c, t)| (c.clone(), t["failed"].as_u64().unwrap()))
        .collect()
}

/// Under protocol 2 a line that echoes no request's id is never read as an
/// answer, and a copy of an answer that reaches the kit while the next
/// request is in flight is read as that request's answer, failed, and the
/// reducer restarted (spec §13.7): a reducer that writes a copy of each
/// answer, or a debug line, 0, 1, 5 or 100 ms after it fails protocol-json
/// and no other clause, whatever the timing.
#[test]
fn stray_lines_fail_protocol_json_only_under_request_ids() {
    let s = script("proxy.py");
    for ms in ["0", "1", "5", "100"] {
        for stray in ["--stray", "--debug"] {
            let run = certify(
                &[
                    "--protocol",
                    "2",
                    "--persistent",
                    "--jobs",
                    "1",
                    "--replay",
                    "corpus/seed/order-shipment.json",
                    "--shrink-tries",
                    "3",
                ],
                &["python3", "-S", &s, kit(), "--protocol", "2", stray, ms],
            );
            assert_eq!(run.code(), Some(1), "{stray} {ms}: {}", run.stdout());
            let failing = failing_clauses(&run);
            assert_eq!(
                failing.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>(),
                ["protocol-json"],
                "{stray} {ms} ms: {}",
                run.stdout()
            );
            // Every stray line is one the reducer wrote.
            let details: Vec<String> = (0..16)
                .filter(|&i| !run.failed(i).is_empty())
                .map(|i| run.detail(i, "protocol-json"))
                .collect();
            assert!(!details.is_empty(), "{stray} {ms}");
            let want = if stray == "--debug" {
                "debug: answered"
            } else {
                "{\\\"id\\\":"
            };
            for d in &details {
                let read_as_answer =
                    stray == "--stray" && d.contains("the answer's `id` is not the request's (");
                assert!(
                    (d.contains("that answer no request in flight") || read_as_answer)
                        && d.contains(want),
                    "{stray} {ms}: {d}"
                );
            }
        }
    }
}

/// Under protocol 1 a debug line on stdout is read as an answer: the run
/// fails protocol-json and the report says where debug output goes and
/// that protocol 2 sets such lines apart.
#[test]
fn a_debug_line_under_protocol_1_gets_a_hint() {
    let s = script("proxy.py");
    let run = certify(
        &[
            "--persistent",
            "--jobs",
            "1",
            "--replay",
            "corpus/seed/order-shipment.json",
            "--shrink-tries",
            "0",
        ],
        &["python3", "-S", &s, kit(), "--debug", "0"],
    );
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    assert!(
        run.stdout().contains("hint: under protocol 1 every line the reducer writes on stdout is read as an answer, so a debug print is taken for the next request's answer; write debug output to stderr, or certify with --protocol 2, whose request ids set such lines apart (spec section 13.7)\n"),
        "{}",
        run.stdout()
    );
    // Under protocol 2 the same reducer gets no such hint.
    let run = certify(
        &[
            "--protocol",
            "2",
            "--persistent",
            "--jobs",
            "1",
            "--replay",
            "corpus/seed/order-shipment.json",
            "--shrink-tries",
            "0",
        ],
        &[
            "python3",
            "-S",
            &s,
            kit(),
            "--protocol",
            "2",
            "--debug",
            "0",
        ],
    );
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    assert!(
        !run.stdout().contains("hint: under protocol 1"),
        "{}",
        run.stdout()
    );
}

/// A reducer that reads numbers as doubles and writes them back with
/// Python's json writes `Infinity` for 1e400, which is not JSON: the
/// report says why and what to do.
#[test]
fn infinity_in_an_answer_gets_a_hint() {
    let echo = "import json,sys\nr=json.loads(sys.stdin.read())\nprint(json.dumps({'messages': r['messages']}))";
    let run = certify(
        &[
            "--corpus",
            "corpus/spec",
            "--case",
            "spec/exact-numbers",
            "--with",
            "non-double-numbers",
            "--shrink-tries",
            "0",
        ],
        &["python3", "-S", "-c", echo],
    );
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    assert!(
        run.detail(0, "protocol-json").starts_with("the response is not JSON: expected value at line 1 column 344 (`Infinity` is not JSON: a number read as a double and written back); it wrote "),
        "{}",
        run.stdout()
    );
    assert!(
        run.stdout().contains("hint: JSON has no Infinity or NaN; the reducer read a number like 1e400 as a double and wrote it back so (spec/exact-numbers): keep numbers as their text, or, under --declare json-numbers, write such a number as null (spec section 16.7)\n"),
        "{}",
        run.stdout()
    );
}

/// A reducer whose JSON library reads numbers as doubles (JSON.parse)
/// gives a big integer back as the nearest double and 1e400 as null:
/// without a declaration that is no-fabrication alone, and the failure
/// says so; with `--declare json-numbers` the case passes (spec §16.7).
/// Integers beyond 2^53 are in every run (`spec/big-integers`); numbers
/// no double holds (`spec/exact-numbers`) only with `--with
/// non-double-numbers` (spec §9.5).
#[test]
fn numbers_read_as_doubles_are_a_declared_difference() {
    let s = script("proxy.py");
    let reducer = ["python3", "-S", s.as_str(), kit(), "--doubles"];
    let by_default = certify(
        &[
            "--persistent",
            "--corpus",
            "corpus/spec",
            "--case",
            "spec/big-integers",
            "--shrink-tries",
            "0",
        ],
        &reducer,
    );
    assert_eq!(by_default.code(), Some(1), "{}", by_default.stdout());
    // matches-reference is not judged beside a fabrication (spec §9.1).
    assert_eq!(by_default.failed(0), ["no-fabrication"]);
    assert!(
        by_default
            .detail(0, "no-fabrication")
            .starts_with("output message 1 is no input message: it is input message 1 changed at $.contents[0].arguments.orderId: 9007199254740993 became 9007199254740992"),
        "{}",
        by_default.stdout()
    );
    let args = [
        "--persistent",
        "--corpus",
        "corpus/spec",
        "--case",
        "spec/exact-numbers",
        "--with",
        "non-double-numbers",
        "--shrink-tries",
        "0",
    ];
    let run = certify(&args, &reducer);
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    assert_eq!(run.failed(0), ["no-fabrication"]);
    let d = run.detail(0, "no-fabrication");
    assert!(
        d.starts_with("output message 1 is no input message: it is input message 1 changed at $.additionalProperties.big: 123456789012345678901234567890 became 1.2345678901234568e+29 (the number as the nearest double"),
        "{d}"
    );
    assert!(d.contains("--declare json-numbers"), "{d}");
    let mut declared = args.to_vec();
    declared.extend(["--declare", "json-numbers"]);
    let run = certify(&declared, &reducer);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert_eq!(run.report()["declared"], json!(["json-numbers"]));
    assert!(
        run.stdout()
            .contains(" declares json-numbers: levels passed [protocol, safety, policy, exact]"),
        "{}",
        run.stdout()
    );
}

/// A persistent reducer that reads its requests and never answers is fed
/// at most MAX_UNANSWERED cases (spec §8.5): the start-up allowance ends
/// when it reads its first request, and the run stops after 20 cases in a
/// row without an answer, saying so, with exit code 1.
#[test]
fn a_reducer_that_never_answers_is_stopped() {
    let s = script("persistent_silent_reader.sh");
    let run = certify(
        &[
            "--persistent",
            "--timeout",
            "500",
            "--jobs",
            "2",
            "--cases",
            "20",
        ],
        &[&s],
    );
    assert_eq!(run.code(), Some(1));
    // 20 cases in a row, one request each (no answer, no extra request),
    // and at most one more in flight on the other worker: every case a
    // time-out and a new process, no more.
    let r = run.report();
    let ran = r["casesRun"].as_u64().unwrap();
    assert!((20..=21).contains(&ran), "{ran} cases run");
    assert!(r["restarts"].as_u64().unwrap() <= ran, "{}", r["restarts"]);
    let out = run.stdout();
    assert!(
        out.contains(
            "STOPPED: the reducer gave no usable answer to 20 cases in a row (spec section 8.5); "
        ),
        "{out}"
    );
    assert!(
        out.contains("certificate: none (the reducer gave no usable answer to 20 cases in a row)")
    );
    let r = run.report();
    assert_eq!(r["passed"], json!(false));
    assert_eq!(r["stopped"]["unansweredInARow"], json!(20));
    assert!(
        r["stopped"]["notRun"].as_u64().unwrap() > 150,
        "{}",
        r["stopped"]
    );
}

/// A reducer that cannot start is stopped too, and its decisive stderr
/// line is shown, not only the last bytes.
#[test]
fn a_reducer_that_cannot_start_is_stopped_with_its_error() {
    let run = certify(
        &["--persistent", "--jobs", "2"],
        &["python3", "/nonexistent/reducer.py"],
    );
    assert_eq!(run.code(), Some(1));
    // Stopped after 20 cases in a row without an answer (and at most one
    // more in flight on the other worker): one request and one process
    // each, however slow the machine.
    let r = run.report();
    assert_eq!(r["stopped"]["unansweredInARow"], json!(20));
    let ran = r["casesRun"].as_u64().unwrap();
    assert!((20..=21).contains(&ran), "{ran} cases run");
    assert!(r["restarts"].as_u64().unwrap() <= ran, "{}", r["restarts"]);
    let out = run.stdout();
    let said = "can't open file '/nonexistent/reducer.py': [Errno 2] No such file or directory";
    let stopped = out.lines().skip_while(|l| !l.starts_with("STOPPED")).nth(1);
    assert!(
        stopped.is_some_and(|l| l.starts_with("  reducer stderr says: ") && l.ends_with(said)),
        "{out}"
    );
    let line = run.report()["stopped"]["stderrLine"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(line.ends_with(said), "{line}");
}

/// A level whose every clause goes unjudged passes only vacuously: under
/// `--declare soft-budget` `matches-reference` is judged on no case, so the
/// report says exact was not judged, the certificate leaves it out of the
/// levels passed, and the JSON report lists it in `levelsNotJudged`.
#[test]
fn a_level_no_case_judged_is_said_not_judged() {
    let run = certify(
        &["--persistent", "--declare", "soft-budget", "--cases", "20"],
        &[kit(), "serve", "--persistent"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    let out = run.stdout();
    assert!(
        out.contains("level exact     not judged (no clause of it applies to this run)\n"),
        "{out}"
    );
    assert!(
        out.contains(
            " declares soft-budget: levels passed [protocol, safety, policy] (not judged: exact); "
        ),
        "{out}"
    );
    assert_eq!(run.report()["levelsNotJudged"], json!(["exact"]));
    assert_eq!(
        run.report()["clauses"]["matches-reference"]["passed"],
        json!(0)
    );
    // Without the declaration every level is judged.
    let run = certify(
        &["--persistent", "--cases", "20"],
        &[kit(), "serve", "--persistent"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert_eq!(run.report()["levelsNotJudged"], json!([]));
    assert!(
        run.stdout().contains("level exact     pass\n"),
        "{}",
        run.stdout()
    );
}
