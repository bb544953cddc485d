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

/// The named golden counts: `tests/data/counts.txt`, one `key value` line
/// each, sorted by key.
const COUNTS: &str = "tests/data/counts.txt";

fn read_counts() -> std::collections::BTreeMap<String, u64> {
    let text = std::fs::read_to_string(root().join(COUNTS)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (k, v) = l
                .rsplit_once(' ')
                .unwrap_or_else(|| panic!("{COUNTS}: not `key value`: {l:?}"));
            let v = v
                .parse()
                .unwrap_or_else(|_| panic!("{COUNTS}: not a count: {l:?}"));
            (k.to_string(), v)
        })
        .collect()
}

/// A count that a run over the kit's corpora and generated cases gives (how
/// many cases ran, were skipped, failed a clause, showed a shape), checked
/// against its value named `key` in `tests/data/counts.txt`: these move
/// whenever a corpus case or the generator does, so they are kept as a
/// golden file, and `GOLDEN_WRITE=1 cargo test --test it` (with a filter
/// such as `default_shapes:: certify_ux::`) writes the value given instead
/// of checking it, and the diff shows which counts moved. Returns `got`.
pub fn golden_count(key: &str, got: u64) -> u64 {
    static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    if std::env::var_os("GOLDEN_WRITE").is_some() {
        // The tests of this binary share the file: one writer at a time.
        let _lock = WRITING.lock().unwrap_or_else(|e| e.into_inner());
        let mut counts = read_counts();
        counts.insert(key.to_string(), got);
        let mut text = String::from(
            "# Counts over the kit's corpora and generated cases that tests of tests/it/\n\
             # read by name (common::golden_count); GOLDEN_WRITE=1 rewrites them.\n",
        );
        for (k, v) in counts {
            text.push_str(&format!("{k} {v}\n"));
        }
        std::fs::write(root().join(COUNTS), text).unwrap();
        return got;
    }
    let want = read_counts().get(key).copied();
    assert_eq!(
        want,
        Some(got),
        "golden count {key} in {COUNTS} (GOLDEN_WRITE=1 rewrites it)"
    );
    got
}

/// The numbers in the first place of `hay` that reads as `template` with
/// each `{}` a run of digits, each checked with [`golden_count`] under the
/// key of its place in `keys`; fails when no place of `hay` reads so.
/// Returns `template` with those numbers in place.
pub fn golden_numbers(hay: &str, template: &str, keys: &[&str]) -> String {
    let parts: Vec<&str> = template.split("{}").collect();
    assert_eq!(
        parts.len(),
        keys.len() + 1,
        "a key for each {{}} of {template:?}"
    );
    let read = |at: usize| -> Option<Vec<u64>> {
        let mut rest = &hay[at + parts[0].len()..];
        let mut numbers = Vec::new();
        for part in &parts[1..] {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            numbers.push(rest[..digits].parse().ok()?);
            rest = rest[digits..].strip_prefix(part)?;
        }
        Some(numbers)
    };
    let numbers = hay
        .match_indices(parts[0])
        .find_map(|(at, _)| read(at))
        .unwrap_or_else(|| panic!("no place reads as {template:?} in:\n{hay}"));
    let mut filled = parts[0].to_string();
    for ((key, n), part) in keys.iter().zip(numbers).zip(&parts[1..]) {
        filled.push_str(&golden_count(key, n).to_string());
        filled.push_str(part);
    }
    filled
}
