//! `certify`'s progress: on stderr when it is a terminal a redrawn line
//! (cases run of planned, failing so far, elapsed); when it is not, plain
//! lines (`--progress-interval`, every 30 s by default), counted here with
//! an interval of 0 (a line per finished case), never timed. The terminal
//! is a pseudo-terminal made by util-linux's `script`; where there is
//! none, that half says so on a line of its own, past the capture, and is
//! skipped (`common::skip_without`: a failure where
//! `REDUCER_KIT_REQUIRE_TOOLS` names `script`).

use crate::common::{kit_path, root, skip_without, text};
use std::process::{Command, Stdio};

const RUN: &str =
    "certify --persistent --cases 300 -- python3 examples/reducers/naive_last_n.py --persistent";

/// With `--progress-interval 0` a plain line per finished case, a line
/// when the cases are done and one per failure shrunk; a per-case run
/// (no `--persistent`) says once that `--persistent` is faster, a
/// persistent one never.
#[test]
fn plain_progress_lines_count_the_cases() {
    let lines = |persistent: bool| -> Vec<String> {
        let mut args = vec![
            "certify",
            "--policy",
            "suffix",
            "--jobs",
            "1",
            "--cases",
            "0",
            "--case",
            "seed/order-shipment-suffix-4",
            "--case",
            "seed/order-shipment-suffix-1",
            "--progress-interval",
            "0",
        ];
        if persistent {
            args.push("--persistent");
        }
        args.extend(["--", "python3", "examples/reducers/naive_last_n.py"]);
        if persistent {
            args.push("--persistent");
        }
        let out = Command::new(kit_path())
            .args(&args)
            .current_dir(root())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        text(&out.stderr)
            .lines()
            .skip(1)
            .map(str::to_string)
            .collect()
    };
    for persistent in [false, true] {
        let err = lines(persistent);
        let starting = |p: &str| err.iter().filter(|l| l.starts_with(p)).count();
        assert_eq!(starting("progress: "), 2, "{err:#?}");
        assert!(err[0].starts_with("progress: 1/2 cases, "), "{err:#?}");
        assert_eq!(starting("cases done: 2/2, "), 1, "{err:#?}");
        assert_eq!(
            starting("hint: a per-case run starts the reducer for every request"),
            usize::from(!persistent),
            "{err:#?}"
        );
    }
}

#[test]
fn a_terminal_gets_a_progress_line_and_a_pipe_none() {
    let args: Vec<&str> = RUN.split(' ').collect();
    let out = Command::new(kit_path())
        .args(&args)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    // Into a pipe: no redrawn bar, plain lines (the run is shorter than
    // the default 30 s interval: the line of the cases done, those of the
    // shrinking).
    assert!(!err.contains(" eta "), "no progress bar into a pipe: {err}");
    let done = err
        .lines()
        .find_map(|l| l.strip_prefix("cases done: "))
        .unwrap_or_else(|| panic!("no line of the cases done: {err}"));
    let (counts, _) = done.split_once(',').unwrap();
    let (done, planned) = counts.split_once('/').unwrap();
    assert_eq!(done, planned, "{err}");
    assert!(!err.contains('\u{1b}'), "{err}");
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file());
    let Some(script) = script else {
        skip_without(
            "script",
            "progress",
            "no `script` (util-linux) to make a terminal; the pipe half ran",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tty.log");
    // stdout to /dev/null: stderr alone is the terminal's.
    let inner = format!("{} {RUN} > /dev/null", kit_path());
    let status = Command::new(script)
        .args(["-qfec", &inner])
        .arg(&log)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    let seen = strip_ansi(&std::fs::read_to_string(&log).unwrap());
    // Each redraw of the line: "<bar> 12/303 cases, 5 failing, 0s elapsed, eta 1s".
    let line = seen
        .split(['\r', '\n'])
        .find(|l| l.contains(" cases, ") && l.contains(" failing, ") && l.contains(" elapsed"))
        .unwrap_or_else(|| panic!("no progress line with failures in {seen:?}"));
    let counts = line
        .split_whitespace()
        .find(|w| w.contains('/') && w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .unwrap();
    let (done, planned) = counts.split_once('/').unwrap();
    let (done, planned): (usize, usize) = (done.parse().unwrap(), planned.parse().unwrap());
    assert!(done >= 1 && done <= planned && planned > 300, "{line}");
}

/// `s` without its ANSI escape sequences (`ESC [ ... letter`).
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.next() == Some('[') {
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
