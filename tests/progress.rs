//! `certify`'s progress line: on stderr when it is a terminal (cases run
//! of planned, failing so far, elapsed), nothing when it is not. The
//! terminal is a pseudo-terminal made by util-linux's `script`; where there
//! is none, that half says so on a line of its own and is skipped.

mod common;

use common::{kit_path, root, text};
use std::process::{Command, Stdio};

const RUN: &str =
    "certify --persistent --cases 300 -- python3 examples/reducers/naive_last_n.py --persistent";

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
    assert!(
        !err.contains("elapsed"),
        "no progress line into a pipe: {err}"
    );
    assert!(!err.contains('\u{1b}'), "{err}");
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file());
    let Some(script) = script else {
        println!("skipped: no `script` (util-linux) to make a terminal; the pipe half ran");
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
