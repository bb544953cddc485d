//! Tests of `reducer_kit::process` against the misbehaving reducers in
//! `tests/hostile/` (each script's header says what it does).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use reducer_kit::certify::process::{run_once, Failure, Limits, Persistent, Reducer, Reply};

fn hostile(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/hostile")
        .join(name)
}

/// The command running a hostile script through its interpreter.
fn script(name: &str) -> Reducer {
    let interpreter = if name.ends_with(".py") {
        "python3"
    } else {
        "sh"
    };
    Reducer::new(vec![interpreter.into(), hostile(name).into()])
}

fn command(argv: &[&str]) -> Reducer {
    Reducer::new(argv.iter().map(OsString::from).collect())
}

/// The same, with `HOSTILE_PID_FILE=<pid_file>` in the script's environment
/// only (through `env`, which execs the interpreter in the same process).
fn script_with_pid_file(name: &str, pid_file: &Path) -> Reducer {
    let mut assignment = OsString::from("HOSTILE_PID_FILE=");
    assignment.push(pid_file);
    let mut argv = vec![OsString::from("env"), assignment];
    argv.extend(script(name).argv);
    Reducer::new(argv)
}

fn limits(timeout_ms: u64) -> Limits {
    Limits {
        timeout: Duration::from_millis(timeout_ms),
        ..Limits::default()
    }
}

const REQUEST: &[u8] = br#"{"maxMessages": 4, "messages": []}"#;
const EMPTY_ANSWER: &[u8] = br#"{"messages": []}"#;

fn assert_ok(reply: &Reply) {
    assert_eq!(
        reply.failure, None,
        "unexpected failure; stderr: {:?}",
        reply.stderr_tail
    );
}

/// `(pid, state, ppid, pgid)` of every process, from `/proc/<pid>/stat`.
fn processes() -> Vec<(i32, char, i32, i32)> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid pgrp ..."; comm may contain anything.
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let mut fields = stat[close + 1..].split_whitespace();
        let state = fields.next().and_then(|s| s.chars().next());
        let ppid = fields.next().and_then(|s| s.parse::<i32>().ok());
        let pgrp = fields.next().and_then(|s| s.parse::<i32>().ok());
        if let (Some(state), Some(ppid), Some(pgrp)) = (state, ppid, pgrp) {
            found.push((pid, state, ppid, pgrp));
        }
    }
    found
}

/// Pids of processes in group `pgid` that are still alive (not zombies).
fn live_members(pgid: i32) -> Vec<i32> {
    processes()
        .into_iter()
        .filter(|&(_, state, _, pgrp)| pgrp == pgid && state != 'Z' && state != 'X')
        .map(|(pid, _, _, _)| pid)
        .collect()
}

/// Whether `pid` is alive (exists and is not a zombie).
fn alive(pid: i32) -> bool {
    processes()
        .into_iter()
        .any(|(p, state, _, _)| p == pid && state != 'Z' && state != 'X')
}

/// Whether `pid` is still a child of this test process (alive or a zombie
/// not reaped).
fn our_child(pid: i32) -> bool {
    let me = std::process::id() as i32;
    processes()
        .into_iter()
        .any(|(p, _, ppid, _)| p == pid && ppid == me)
}

/// `SIGKILL` is asynchronous: give a killed process a moment to finish dying.
fn live_members_after_settling(pgid: i32) -> Vec<i32> {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let live = live_members(pgid);
        if live.is_empty() || Instant::now() > until {
            return live;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_pids(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path)
        .expect("pid file written by the script")
        .split_whitespace()
        .map(|s| s.parse().expect("a pid"))
        .collect()
}

// ---------------------------------------------------------------------------
// Per-case mode.

#[test]
fn good_reducer_echoes_a_large_input() {
    // `cat` reads and writes concurrently: 3 MiB through both pipes at once
    // must not deadlock.
    let input: Vec<u8> = (0..3 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
    let reply = run_once(&command(&["cat"]), &input, &limits(10_000));
    assert_ok(&reply);
    assert_eq!(reply.stdout.len(), input.len());
    assert!(reply.stdout == input);
    assert_eq!(reply.stderr_tail, "");
}

#[test]
fn an_empty_input_closes_stdin_at_once() {
    // Nothing to write: the reducer reads end-of-file at once (`cat`
    // exits), rather than at the time-out.
    let reply = run_once(&command(&["cat"]), b"", &limits(10_000));
    assert_ok(&reply);
    assert_eq!(reply.stdout, b"");
    assert_eq!(reply.stderr_tail, "");
}

#[test]
fn hang_times_out_within_the_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pid_file = dir.path().join("pids");
    let start = Instant::now();
    let reply = run_once(
        &script_with_pid_file("hang.sh", &pid_file),
        REQUEST,
        &limits(500),
    );
    let took = start.elapsed();
    assert_eq!(reply.failure, Some(Failure::Timeout));
    assert_eq!(reply.stdout, b"");
    assert!(took >= Duration::from_millis(500), "took {took:?}");
    // The group is killed, not waited for: its `sleep 1000` is gone (a
    // count of live processes, not a time).
    let pids = read_pids(&pid_file);
    assert_eq!(pids.len(), 1);
    assert_eq!(live_members_after_settling(pids[0]), Vec::<i32>::new());
}

#[test]
fn endless_output_is_too_large() {
    let limits = Limits {
        max_output: 100_000,
        ..limits(10_000)
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let pid_file = dir.path().join("pids");
    let reply = run_once(
        &script_with_pid_file("endless_output.sh", &pid_file),
        REQUEST,
        &limits,
    );
    assert_eq!(reply.failure, Some(Failure::TooLarge));
    // Stopped at the limit: the bytes kept are the limit's, and the writer
    // is killed rather than read on (no process of its group is left).
    assert_eq!(reply.stdout.len(), 100_000);
    assert!(reply.stdout.starts_with(b"{\"messages\": [], \"padding\""));
    let pids = read_pids(&pid_file);
    assert_eq!(pids.len(), 1);
    assert_eq!(live_members_after_settling(pids[0]), Vec::<i32>::new());
}

#[test]
fn output_of_exactly_the_limit_is_accepted() {
    let input = vec![b'a'; 4096];
    let exact = Limits {
        max_output: 4096,
        ..limits(10_000)
    };
    let reply = run_once(&command(&["cat"]), &input, &exact);
    assert_ok(&reply);
    assert_eq!(reply.stdout, input);

    let one_short = Limits {
        max_output: 4095,
        ..exact
    };
    let reply = run_once(&command(&["cat"]), &input, &one_short);
    assert_eq!(reply.failure, Some(Failure::TooLarge));
    assert_eq!(reply.stdout, vec![b'a'; 4095]);
}

#[test]
fn stderr_flood_keeps_only_the_tail() {
    let limits = Limits {
        stderr_tail: 100,
        ..limits(20_000)
    };
    let reply = run_once(&script("stderr_flood.py"), REQUEST, &limits);
    assert_ok(&reply);
    assert_eq!(reply.stdout, EMPTY_ANSWER);
    let expected = format!("{}END-OF-STDERR", "x".repeat(100 - 13));
    assert_eq!(reply.stderr_tail, expected);
}

#[test]
fn death_by_signal_is_a_crash_naming_the_signal() {
    let reply = run_once(&script("segv.sh"), REQUEST, &limits(10_000));
    assert_eq!(
        reply.failure,
        Some(Failure::Crash {
            status: "killed by signal 11 (SIGSEGV)".into()
        })
    );
    assert_eq!(reply.stderr_tail, "about to crash\n");
}

#[test]
fn nonzero_exit_is_a_crash_with_the_output_kept() {
    let reply = run_once(&script("exit3.sh"), REQUEST, &limits(10_000));
    assert_eq!(
        reply.failure,
        Some(Failure::Crash {
            status: "exit status 3".into()
        })
    );
    assert_eq!(reply.stdout, EMPTY_ANSWER);
    assert_eq!(reply.stderr_tail, "bad things happened\n");
}

#[test]
fn invalid_json_is_returned_as_is() {
    let reply = run_once(&script("invalid_json.sh"), REQUEST, &limits(10_000));
    assert_ok(&reply);
    assert_eq!(reply.stdout, br#"{"messages": [ {"role": "#);
}

#[test]
fn invalid_utf8_is_returned_as_is() {
    let reply = run_once(&script("invalid_utf8.sh"), REQUEST, &limits(10_000));
    assert_ok(&reply);
    assert_eq!(reply.stdout, b"\xff\xfe{\"messages\": [\"\xc0\x80\"]}\n");
}

#[test]
fn exit_zero_with_nothing_is_an_empty_success() {
    // 1 MiB of input that is never read: the writer gets EPIPE, not an error.
    let input = vec![b' '; 1024 * 1024];
    let reply = run_once(&script("silent.sh"), &input, &limits(10_000));
    assert_ok(&reply);
    assert_eq!(reply.stdout, b"");
    assert_eq!(reply.stderr_tail, "");
}

#[test]
fn closing_stdin_early_then_answering_is_a_success() {
    let input = vec![b' '; 1024 * 1024];
    let reply = run_once(&script("close_stdin.sh"), &input, &limits(10_000));
    assert_ok(&reply);
    assert_eq!(reply.stdout, EMPTY_ANSWER);
}

#[test]
fn left_behind_grandchild_is_killed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pid_file = dir.path().join("pids");
    let reply = run_once(
        &script_with_pid_file("grandchild.sh", &pid_file),
        REQUEST,
        &limits(10_000),
    );
    // Done when the reducer exits, although `sleep` still holds its stdout:
    // the answer is read, and the `sleep 1000` is killed below, not waited
    // for.
    assert_ok(&reply);
    assert_eq!(reply.stdout, EMPTY_ANSWER);

    let pids = read_pids(&pid_file);
    assert_eq!(pids.len(), 2);
    let (reducer, grandchild) = (pids[0], pids[1]);
    assert_ne!(reducer, grandchild);
    assert_eq!(live_members_after_settling(reducer), Vec::<i32>::new());
    assert!(!alive(grandchild), "grandchild {grandchild} survived");
    assert!(!our_child(reducer), "reducer {reducer} not reaped");
}

#[test]
fn missing_command_is_a_spawn_failure() {
    let reply = run_once(
        &command(&["/nonexistent/reducer-kit-no-such-reducer"]),
        REQUEST,
        &limits(1_000),
    );
    assert!(
        matches!(&reply.failure, Some(Failure::Spawn(e)) if e.contains("No such file")),
        "{:?}",
        reply.failure
    );
    assert_eq!(reply.stdout, b"");
}

#[test]
fn empty_command_is_a_spawn_failure() {
    let reply = run_once(&command(&[]), REQUEST, &limits(1_000));
    assert_eq!(
        reply.failure,
        Some(Failure::Spawn("empty reducer command".into()))
    );
}

#[test]
fn arguments_are_passed_verbatim_without_a_shell() {
    let reply = run_once(
        &command(&["printf", "%s|", "$HOME", "a b;c"]),
        b"",
        &limits(10_000),
    );
    assert_ok(&reply);
    assert_eq!(reply.stdout, b"$HOME|a b;c|");
}

// ---------------------------------------------------------------------------
// Persistent mode.

#[test]
fn persistent_good_reducer_answers_several_lines() {
    let mut p = Persistent::start(&script("persistent_echo.py"), limits(10_000)).expect("start");
    for i in 0..5 {
        let request = format!(r#"{{"maxMessages": {i}, "messages": []}}"#);
        let reply = p.request(request.as_bytes());
        assert_ok(&reply);
        let expected = serde_json::json!({ "echo": request }).to_string();
        assert_eq!(String::from_utf8(reply.stdout).unwrap(), expected);
    }
    assert_eq!(p.restarts(), 0);
}

#[test]
fn persistent_crash_is_reported_then_restarted() {
    let mut p =
        Persistent::start(&script("persistent_crash_second.py"), limits(10_000)).expect("start");
    let first = p.request(REQUEST);
    assert_ok(&first);
    assert_eq!(first.stdout, br#"{"n": 1}"#);

    let second = p.request(REQUEST);
    assert_eq!(
        second.failure,
        Some(Failure::Crash {
            status: "exit status 3".into()
        })
    );
    assert_eq!(second.stderr_tail, "crashing on request 2\n");
    assert_eq!(p.restarts(), 0);

    // A fresh process: its first request again.
    let third = p.request(REQUEST);
    assert_ok(&third);
    assert_eq!(third.stdout, br#"{"n": 1}"#);
    assert_eq!(p.restarts(), 1);
}

#[test]
fn persistent_hang_times_out_then_restart_works() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pid_file = dir.path().join("pid");
    let argv = script_with_pid_file("persistent_hang.sh", &pid_file);
    let mut p = Persistent::start(&argv, limits(1_000)).expect("start");

    let reply = p.request(b"one");
    assert_ok(&reply);
    assert_eq!(reply.stdout, b"one");
    let first_pid = read_pids(&pid_file)[0];

    let start = Instant::now();
    let reply = p.request(b"please hang");
    let took = start.elapsed();
    assert_eq!(reply.failure, Some(Failure::Timeout));
    assert!(took >= Duration::from_millis(1_000), "took {took:?}");
    // Not waiting for its `sleep 1000`: the hung process and its `sleep`
    // are gone.
    assert_eq!(live_members_after_settling(first_pid), Vec::<i32>::new());

    let reply = p.request(b"three");
    assert_ok(&reply);
    assert_eq!(reply.stdout, b"three");
    assert_eq!(p.restarts(), 1);
    let second_pid = read_pids(&pid_file)[0];
    assert_ne!(first_pid, second_pid);
    assert!(alive(second_pid));

    assert!(our_child(second_pid));
    drop(p);
    assert_eq!(live_members_after_settling(second_pid), Vec::<i32>::new());
    assert!(!our_child(second_pid), "not reaped on drop");
    assert!(!our_child(first_pid), "not reaped after the timeout");
}

#[test]
fn persistent_endless_line_is_too_large() {
    let limits = Limits {
        max_output: 50_000,
        ..limits(10_000)
    };
    let mut p = Persistent::start(&script("persistent_long_line.sh"), limits).expect("start");
    let reply = p.request(REQUEST);
    assert_eq!(reply.failure, Some(Failure::TooLarge));
    assert_eq!(reply.stdout, vec![0u8; 50_000]);
    // Restarted for the next request, which hits the same wall.
    let reply = p.request(REQUEST);
    assert_eq!(reply.failure, Some(Failure::TooLarge));
    assert_eq!(p.restarts(), 1);
}

#[test]
fn persistent_unrequested_lines_are_reported_and_the_process_replaced() {
    let mut p = Persistent::start(&script("persistent_chatty.py"), limits(10_000)).expect("start");
    for (n, request) in [&b"a"[..], b"b", b"c"].into_iter().enumerate() {
        assert_eq!(p.settle(), None);
        let reply = p.request(request);
        assert_ok(&reply);
        assert_eq!(reply.stdout, request);
        // The extra line came in the same write as the answer.
        let extra = p.settle().expect("unrequested output");
        assert_eq!(
            extra.to_string(),
            r#"wrote 6 unrequested bytes after its answer: "extra\n""#
        );
        // The chatty process was replaced before the next request.
        assert_eq!(p.restarts(), n);
    }
    assert_eq!(p.close(), None);
    assert_eq!(p.restarts(), 2);
}

#[test]
fn persistent_exit_zero_between_requests_is_a_restart_not_a_failure() {
    let mut p = Persistent::start(&script("persistent_exit0.sh"), limits(10_000)).expect("start");
    for (n, request) in [&b"first"[..], b"second", b"third"].into_iter().enumerate() {
        let reply = p.request(request);
        assert_ok(&reply);
        assert_eq!(reply.stdout, request);
        assert_eq!((p.restarts(), p.clean_exits()), (n, n));
    }
}

#[test]
fn persistent_start_of_missing_command_fails() {
    let err = Persistent::start(
        &command(&["/nonexistent/reducer-kit-no-such-reducer"]),
        limits(1_000),
    )
    .expect_err("cannot start");
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    let err = Persistent::start(&command(&[]), limits(1_000)).expect_err("empty command");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
}

/// `PersistentSession::exchange_unless_same`: an answer with the previous
/// answer's bytes is not read again (`None`); a different one, or any
/// answer after a failure, is.
#[test]
fn persistent_session_leaves_an_answer_like_the_one_before_unread() {
    use reducer_kit::certify::session::{PersistentSession, Session};
    use reducer_kit::formats::Format;
    use reducer_kit::protocol::{OutgoingRequest, Response};
    use reducer_kit::terms::{BudgetFields, Clause};
    use serde_json::json;

    let a = r#"{"messages":[{"role":"user","content":"a"}]}"#;
    let b = r#"{"messages":[{"role":"user","content":"b"}]}"#;
    let answers = [a, a, b, a, "not json", a, a];
    let program = format!(
        "import sys\nanswers = {answers:?}\nfor i, _ in enumerate(sys.stdin):\n    print(answers[i], flush=True)\n"
    );
    let reducer = command(&["python3", "-c", &program]);
    let mut session = PersistentSession::new(&reducer, Format::Canonical, limits(10_000));
    let budget = BudgetFields::messages(json!(1));
    let messages = vec![json!({"role": "user", "content": "a"})];
    let request = OutgoingRequest::new(Format::Canonical, &budget, None, &messages);
    let said = |c: &str| Response::Messages(vec![json!({"role": "user", "content": c})]);

    // The first answer is always read.
    assert_eq!(session.exchange(&request).unwrap(), Ok(said("a")));
    // The same bytes again: left unread.
    assert_eq!(session.exchange_unless_same(&request).unwrap(), None);
    // Different bytes, then the first ones after them: read.
    assert_eq!(
        session.exchange_unless_same(&request).unwrap(),
        Some(Ok(said("b")))
    );
    assert_eq!(
        session.exchange_unless_same(&request).unwrap(),
        Some(Ok(said("a")))
    );
    // A failure forgets the answer before it.
    let failed = session.exchange_unless_same(&request).unwrap().unwrap();
    assert_eq!(failed.unwrap_err().clause, Clause::ProtocolJson);
    assert_eq!(
        session.exchange_unless_same(&request).unwrap(),
        Some(Ok(said("a")))
    );
    assert_eq!(session.exchange_unless_same(&request).unwrap(), None);
    assert_eq!(session.close(), None);
}
