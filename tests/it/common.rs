//! Helpers shared by the `certify` integration tests: where the kit and its
//! example reducers are, the real Python executable, and running
//! `reducer-kit certify`.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn kit_path() -> &'static str {
    env!("CARGO_BIN_EXE_reducer-kit")
}

/// The real Python executable (not a version-manager shim, which costs a
/// tenth of a second per start), run with -S: the examples use only the
/// standard library.
pub fn python() -> &'static str {
    static PY: OnceLock<String> = OnceLock::new();
    PY.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    })
}

pub fn example(name: &str) -> String {
    root()
        .join("examples/reducers")
        .join(name)
        .display()
        .to_string()
}

pub fn certify(args: &[&str], reducer: &[&str]) -> Output {
    Command::new(kit_path())
        .arg("certify")
        .args(args)
        .arg("--")
        .args(reducer)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The kit's own hand-written and real-conversation corpora, without
/// `corpus/compat/` (which `compat/run` rewrites whenever the matrix is
/// regenerated): runs that count cases or name counterexamples use these,
/// so that they do not change with the matrix.
pub const KIT_CASES: [&str; 6] = [
    "--corpus",
    "corpus/seed",
    "--corpus",
    "corpus/spec",
    "--corpus",
    "corpus/tau-bench",
];

/// `args` followed by [`KIT_CASES`].
pub fn on_kit_cases<'a>(args: &[&'a str]) -> Vec<&'a str> {
    args.iter().copied().chain(KIT_CASES).collect()
}

/// A part of a test that cannot run here for want of `tool` (`chromium`,
/// `script`): says so past the test harness's capture, on a line of its own
/// (a write to the process's stderr, which `cargo test` always shows, where
/// `println!` and `eprintln!` output is captured), and lets the test pass.
/// When `REDUCER_KIT_REQUIRE_TOOLS` is `1` or a comma-separated list that
/// names `tool`, the test fails instead: `.ci/run` sets it for the tools it
/// has found or installed, so that a missing tool there is a failure, not a
/// silent skip.
pub fn skip_without(tool: &str, test: &str, why: &str) {
    use std::io::Write;
    let required = std::env::var("REDUCER_KIT_REQUIRE_TOOLS").unwrap_or_default();
    if required == "1" || required.split(',').any(|t| t.trim() == tool) {
        panic!("{test}: {tool} is required here (REDUCER_KIT_REQUIRE_TOOLS={required}) but {why}");
    }
    let _ = writeln!(std::io::stderr(), "{test}: skipped: {why}");
}
