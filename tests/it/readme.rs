//! The commands of the READMEs a newcomer follows (`README.md`,
//! `python/README.md`, `js/README.md`) run as written: every fenced `sh`
//! block runs in `bash -e` from the repository's folder (a block that needs
//! another folder says so with its own `cd`), and must exit 0. The first
//! code sample of the Python and the JS README fails as printed: the text
//! block after it is what the test runner shows.
//!
//! What a block needs decides when it runs (`Need`): `reducer-kit` is this
//! build's binary; a block that builds the release, the wheel or the npm
//! tarball runs when that build has been made (by `cargo build --release`,
//! `bash python/ci.sh`, `bash js/ci.sh`, so its run here is incremental),
//! and otherwise prints why it is skipped on stderr. `.ci/run` makes them
//! all first, then runs this test. A block that is the command of a stage
//! of `.ci/run` itself (`cargo test`, `bash python/ci.sh`, `bash
//! js/ci.sh`) is checked to be there, word for word, and not run twice.
//! The README's failing sample run is `tests/it/docs.rs`'s.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const DOCS: &[&str] = &["README.md", "python/README.md", "js/README.md"];

/// A fenced block: its document, first line, language and text.
struct Block {
    doc: &'static str,
    line: usize,
    lang: String,
    text: String,
}

fn blocks(doc: &'static str) -> Vec<Block> {
    let text = std::fs::read_to_string(root().join(doc)).unwrap();
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in text.lines().enumerate() {
        if let Some(fence) = line.strip_prefix("```") {
            match open.take() {
                Some(b) => out.push(b),
                None => {
                    open = Some(Block {
                        doc,
                        line: n + 1,
                        lang: fence.trim().to_string(),
                        text: String::new(),
                    })
                }
            }
        } else if let Some(b) = open.as_mut() {
            b.text.push_str(line);
            b.text.push('\n');
        }
    }
    assert!(open.is_none(), "{doc}: a fenced block is not closed");
    out
}

/// What a block needs before it can run here.
#[derive(Debug, PartialEq)]
enum Need {
    /// Nothing but this build.
    Nothing,
    /// The release build (`target/release/reducer-kit`): the block runs
    /// cargo on it, which then only checks it.
    Release,
    /// The wheel built (`target/python-ci/wheels/`): the block builds it
    /// again, from the compiled crates.
    Wheel,
    /// The npm tarball packed (`target/js-ci/pack/`).
    Tarball,
    /// cargo-fuzz on the nightly toolchain.
    CargoFuzz,
    /// A stage of `.ci/run` runs this very command.
    CiStage,
    /// `tests/it/docs.rs` runs it and checks its output.
    DocsTest,
}

fn need(block: &Block) -> Need {
    let t = block.text.trim();
    if ["cargo test", "bash python/ci.sh", "bash js/ci.sh"].contains(&t) {
        Need::CiStage
    } else if t.contains("examples/reducers/naive_last_n.py") {
        Need::DocsTest
    } else if t.contains("cargo +nightly fuzz") {
        Need::CargoFuzz
    } else if t.contains("maturin build") {
        Need::Wheel
    } else if t.contains("bash js/ci.sh") {
        Need::Tarball
    } else if t.contains("cargo run --release") || t.contains("cargo install") {
        Need::Release
    } else {
        Need::Nothing
    }
}

fn skipped(block: &Block, why: &str) {
    // Past the test harness's capture: the line shows in `cargo test`.
    let _ = writeln!(
        std::io::stderr(),
        "readme: skipped: {}:{} ({}): {why}",
        block.doc,
        block.line,
        block.text.lines().next().unwrap_or("")
    );
}

fn wheel_built() -> bool {
    std::fs::read_dir(root().join("target/python-ci/wheels"))
        .map(|d| {
            d.flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "whl"))
        })
        .unwrap_or(false)
}

fn tarball() -> PathBuf {
    root().join(format!(
        "target/js-ci/pack/reducer-kit-{}.tgz",
        env!("CARGO_PKG_VERSION")
    ))
}

/// The PATH with `dirs` first.
fn path_with(dirs: &[&Path]) -> std::ffi::OsString {
    let mut all: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    all.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(all).unwrap()
}

fn output_text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs a block in `bash -e` from the repository's folder, `reducer-kit`
/// being this build's binary, with a home folder of its own.
fn run(block: &Block, home: &Path, extra_path: &[&Path]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_reducer-kit"))
        .parent()
        .unwrap();
    let real_cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| home.join(".cache"));
    let mut dirs: Vec<&Path> = extra_path.to_vec();
    dirs.push(bin);
    Command::new("bash")
        .arg("-e")
        .arg("-c")
        .arg(&block.text)
        .current_dir(root())
        .env("PATH", path_with(&dirs))
        // `~` is the test's; the tools js/ci.sh keeps are the machine's;
        // cargo keeps its own home.
        .env(
            "CARGO_HOME",
            std::env::var_os("CARGO_HOME").unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").unwrap())
                    .join(".cargo")
                    .into()
            }),
        )
        .env(
            "RUSTUP_HOME",
            std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").unwrap())
                    .join(".rustup")
                    .into()
            }),
        )
        .env("HOME", home)
        .env("PIP_CACHE_DIR", real_cache.join("pip"))
        .env("XDG_CACHE_HOME", real_cache)
        .env("CARGO_INSTALL_ROOT", home.join("cargo-install"))
        .env("NO_COLOR", "1")
        .env_remove("PIP_REQUIRE_VIRTUALENV")
        .output()
        .unwrap()
}

fn assert_ran(block: &Block, out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}:{}: the block\n{}exited {:?}:\n{}",
        block.doc,
        block.line,
        block.text,
        out.status.code(),
        output_text(out)
    );
}

#[test]
fn every_sh_block_of_the_readmes_runs() {
    let ci_run = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let mut ran = 0;
    let mut seen = 0;
    // The blocks that need no build beyond this one run on every machine.
    let mut plain = 0;
    for doc in DOCS {
        for block in blocks(doc).iter().filter(|b| b.lang == "sh") {
            seen += 1;
            let home = tempfile::tempdir().unwrap();
            let need = need(block);
            if matches!(need, Need::Nothing) {
                plain += 1;
            }
            match need {
                Need::CiStage => {
                    let command = block.text.trim();
                    assert!(
                        ci_run.lines().any(|l| l.trim() == command),
                        "{}:{}: `{command}` is no stage of .ci/run",
                        block.doc,
                        block.line
                    );
                    continue;
                }
                Need::DocsTest => continue,
                Need::Release if !root().join("target/release/reducer-kit").exists() => {
                    skipped(block, "no release build (cargo build --release makes it)");
                    continue;
                }
                Need::Wheel if !wheel_built() => {
                    skipped(
                        block,
                        "no wheel in target/python-ci/wheels (bash python/ci.sh builds it)",
                    );
                    continue;
                }
                Need::Tarball if !tarball().exists() => {
                    skipped(
                        block,
                        "no npm tarball in target/js-ci/pack (bash js/ci.sh packs it)",
                    );
                    continue;
                }
                Need::CargoFuzz
                    if !Command::new("cargo")
                        .args(["+nightly", "fuzz", "--version"])
                        .output()
                        .is_ok_and(|o| o.status.success()) =>
                {
                    skipped(
                        block,
                        "no cargo-fuzz on the nightly toolchain (fuzz/README.md)",
                    );
                    continue;
                }
                _ => {}
            }
            match need {
                Need::Wheel => {
                    // The README's `pip` is the virtual environment's the
                    // reader tests in.
                    let venv = home.path().join("venv");
                    let made = Command::new("python3")
                        .args(["-m", "venv"])
                        .arg(&venv)
                        .output()
                        .unwrap();
                    assert!(made.status.success(), "{}", output_text(&made));
                    let out = run(block, home.path(), &[&venv.join("bin")]);
                    assert_ran(block, &out);
                    let version = Command::new(venv.join("bin/reducer-kit"))
                        .arg("--version")
                        .output()
                        .unwrap();
                    assert_eq!(
                        String::from_utf8_lossy(&version.stdout),
                        format!("reducer-kit {}\n", env!("CARGO_PKG_VERSION"))
                    );
                }
                Need::Tarball => {
                    let out = run(block, home.path(), &[]);
                    assert_ran(block, &out);
                    // Installed where the README says.
                    let installed = home
                        .path()
                        .join("my-project/node_modules/reducer-kit/package.json");
                    let manifest = std::fs::read_to_string(&installed)
                        .unwrap_or_else(|e| panic!("{}: {e}", installed.display()));
                    assert!(manifest
                        .contains(&format!("\"version\": \"{}\"", env!("CARGO_PKG_VERSION"))));
                }
                Need::Release => {
                    let out = run(block, home.path(), &[]);
                    assert_ran(block, &out);
                    if block.text.contains("cargo install") {
                        let installed = home.path().join("cargo-install/bin/reducer-kit");
                        assert!(installed.exists(), "{}", installed.display());
                    }
                }
                _ => {
                    let out = run(block, home.path(), &[]);
                    assert_ran(block, &out);
                    if block.text.contains("reducer-kit certify") {
                        let text = output_text(&out);
                        assert_eq!(
                            text.matches("certificate: reducer-kit ").count(),
                            block.text.matches("reducer-kit certify").count(),
                            "{text}"
                        );
                    }
                }
            }
            ran += 1;
        }
    }
    assert!(seen >= 10, "only {seen} sh blocks in {DOCS:?}");
    // Every block that needs nothing ran (a failure panics above), and the
    // READMEs have such blocks: a build that is missing skips only what
    // needs it.
    assert!(plain >= 2, "only {plain} blocks need no build");
    assert!(ran >= plain, "only {ran} of {plain} plain blocks ran");
}

/// The text block after a sample, as runs of consecutive lines (a `...`
/// line separates them), and the sample's code.
fn sample_and_output(doc: &'static str, lang: &str) -> (String, Vec<Vec<String>>) {
    let all = blocks(doc);
    let i = all
        .iter()
        .position(|b| b.lang == lang)
        .unwrap_or_else(|| panic!("{doc}: no {lang} block"));
    let text = all
        .get(i + 1)
        .filter(|b| b.lang == "text")
        .unwrap_or_else(|| panic!("{doc}: no text block after the first {lang} block"));
    let mut runs = vec![Vec::new()];
    for line in text.text.lines() {
        if line.trim() == "..." {
            runs.push(Vec::new());
        } else {
            runs.last_mut().unwrap().push(line.trim().to_string());
        }
    }
    runs.retain(|r| !r.is_empty());
    (all[i].text.clone(), runs)
}

/// Whether a printed line is the README's: equal, or, where the README's
/// line leaves text out with `...`, equal around it.
fn line_is(readme: &str, printed: &str) -> bool {
    match readme.split_once("...") {
        Some((head, tail)) => {
            printed.len() >= head.len() + tail.len()
                && printed.starts_with(head)
                && printed.ends_with(tail)
        }
        None => readme == printed,
    }
}

/// Each run of lines is printed together, in order, once each printed
/// line is trimmed of the runner's margin (pytest's `E   ` and
/// `AssertionError: `).
fn assert_printed(what: &str, printed: &str, runs: &[Vec<String>]) {
    let lines: Vec<&str> = printed
        .lines()
        .map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("E ").map(str::trim).unwrap_or(l);
            l.strip_prefix("AssertionError: ").unwrap_or(l)
        })
        .collect();
    let mut at = 0;
    for run in runs {
        let found = (at..lines.len().saturating_sub(run.len() - 1))
            .find(|&i| run.iter().zip(&lines[i..]).all(|(a, b)| line_is(a, b)));
        match found {
            Some(i) => at = i + run.len(),
            None => panic!(
                "{what}: these lines of the README are not printed together:\n{}\nIt printed:\n{printed}",
                run.join("\n")
            ),
        }
    }
}

#[test]
fn the_python_sample_fails_as_printed() {
    // The environment python/ci.sh made: the wheel, pytest, Hypothesis.
    let env = root().join("target/python-ci/test-env/bin");
    if !env.join("pytest").exists() || !wheel_built() {
        let _ = writeln!(
            std::io::stderr(),
            "readme: skipped: python/README.md's sample: no target/python-ci/test-env (bash python/ci.sh makes it)"
        );
        return;
    }
    let (code, runs) = sample_and_output("python/README.md", "python");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("test_reducer.py"), code).unwrap();
    let out = Command::new(env.join("python"))
        .args([
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "test_reducer.py",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    assert_printed("python/README.md", &output_text(&out), &runs);
}

#[test]
fn the_js_sample_fails_as_printed() {
    let project = root().join("target/js-ci/project");
    if !project.join("node_modules/reducer-kit").exists() {
        let _ = writeln!(
            std::io::stderr(),
            "readme: skipped: js/README.md's sample: no target/js-ci/project (bash js/ci.sh makes it)"
        );
        return;
    }
    let (code, runs) = sample_and_output("js/README.md", "js");
    // In the project js/ci.sh installed the tarball in, as a user's test.
    let dir = tempfile::Builder::new()
        .prefix("readme-sample")
        .tempdir_in(&project)
        .unwrap();
    let file = dir.path().join("last-n.test.mjs");
    std::fs::write(&file, code).unwrap();
    let out = Command::new("node")
        .arg("--test")
        .arg(&file)
        .current_dir(&project)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    assert_printed("js/README.md", &output_text(&out), &runs);
}
