//! Bounded whatever it is given (spec §8.11): every reader of the kit
//! refuses the same bad input (not a regular file, over the size limit, a
//! string no value can hold, nested too deep) with the same exit code and
//! message, within seconds; what `reduce` writes is linear in what it read; a `corpus
//! regen` killed at any moment leaves the corpus as it was or as it is
//! after the run, and nothing of the kit's behind.

use reducer_kit::case::file::{load_files, render};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn kit() -> &'static str {
    env!("CARGO_BIN_EXE_reducer-kit")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs the kit with `args` (stdin from `stdin`, else empty).
fn run(args: &[&str], stdin: Option<&Path>) -> Output {
    let input = match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
        None => Stdio::null(),
    };
    Command::new(kit())
        .args(args)
        .stdin(input)
        .output()
        .unwrap()
}

/// Runs the kit with an endless stream of zeros on stdin: its output, and
/// how many bytes it took from the pipe before it closed it (what it read,
/// plus at most the pipe's buffer).
fn run_on_endless_stdin(args: &[&str]) -> (Output, u64) {
    use std::io::Write;
    let mut child = Command::new(kit())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = [0u8; 4096];
        let mut sent = 0u64;
        // Until the kit closes its end (a broken pipe), or far past any
        // limit (then the count fails the caller's assertion).
        while sent < 1 << 30 {
            match stdin.write(&chunk) {
                Ok(n) => sent += n as u64,
                Err(_) => break,
            }
        }
        sent
    });
    let out = child.wait_with_output().unwrap();
    (out, writer.join().unwrap())
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path in the test's temporary directory.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// `{"messages": [M]}` with M nested `depth` levels: message 0 as a
/// history and as a case file alike.
fn deep_file(depth: usize) -> String {
    format!(
        "{{\"messages\": [{}{}]}}",
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

/// One kind of bad input: its name, the file, and the end of the error
/// line every command gives for it (after `reducer-kit: error: PATH: `),
/// with its exit code.
struct Bad {
    name: &'static str,
    path: PathBuf,
    /// `--max-input`.
    limit: &'static str,
    error: String,
    code: i32,
}

/// The default size limit, given as `--max-input` for the rows that are
/// not about it.
const DEFAULT: &str = "67108864";

#[test]
fn every_reader_refuses_bad_input_alike() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("fifo.json");
    mkfifo(&fifo);
    std::fs::create_dir(d.join("folder.json")).unwrap();
    let big = d.join("big.json");
    std::fs::write(&big, format!("[{}]", " ".repeat(3000))).unwrap();
    let deep = d.join("deep.json");
    std::fs::write(&deep, deep_file(100_000)).unwrap();
    // A string the raw reader would skip and the value reader refuse.
    let surrogate = d.join("surrogate.json");
    std::fs::write(
        &surrogate,
        r#"{"messages": [{"role": "user", "contents": [{"$type": "text", "text": "\ud800"}]}]}"#,
    )
    .unwrap();
    let table = [
        Bad {
            name: "/dev/zero",
            path: PathBuf::from("/dev/zero"),
            limit: DEFAULT,
            error: "not a regular file (a character device)".into(),
            code: 2,
        },
        Bad {
            name: "a FIFO with no writer",
            path: fifo.clone(),
            limit: DEFAULT,
            error: "not a regular file (a FIFO)".into(),
            code: 2,
        },
        Bad {
            name: "a directory",
            path: d.join("folder.json"),
            limit: DEFAULT,
            error: "not a regular file (a directory)".into(),
            code: 2,
        },
        Bad {
            name: "a file over --max-input",
            path: big.clone(),
            limit: "1500",
            error: "larger than the limit of 1500 bytes (--max-input)".into(),
            code: 2,
        },
        Bad {
            name: "a lone surrogate escape",
            path: surrogate.clone(),
            limit: DEFAULT,
            error: r"not JSON: lone surrogate \ud800 at line 1 column 72".into(),
            code: 2,
        },
        Bad {
            name: "a message nested 100,000 deep",
            path: deep.clone(),
            limit: DEFAULT,
            error: "message 0: nested deeper than 100 levels".into(),
            code: 1,
        },
    ];
    let good = root().join("tests/data/order-shipment.json");
    let good = good.to_str().unwrap();
    for bad in &table {
        let (p, limit) = (bad.path.to_str().unwrap(), bad.limit);
        // corpus check reads a folder: one holding the bad input as a case
        // file (a symbolic link to it).
        let corpus = d.join(format!("corpus-{}", bad.name.replace(['/', ' ', ','], "_")));
        std::fs::create_dir(&corpus).unwrap();
        let case = corpus.join("case.json");
        std::os::unix::fs::symlink(&bad.path, &case).unwrap();
        let c = case.to_str().unwrap();
        let corpus = corpus.to_str().unwrap();
        let serve = [kit(), "serve"];
        let replay_p = format!("--replay {p}");
        let commands: Vec<(Vec<&str>, &str)> = vec![
            (vec!["validate", "--max-input", limit, p], p),
            (vec!["reduce", "--max", "3", "--max-input", limit, p], p),
            (
                vec![
                    "check",
                    "--policy",
                    "turns",
                    "--max",
                    "3",
                    "--max-input",
                    limit,
                    p,
                    good,
                ],
                p,
            ),
            (
                vec![
                    "check",
                    "--policy",
                    "turns",
                    "--max",
                    "3",
                    "--max-input",
                    limit,
                    good,
                    p,
                ],
                p,
            ),
            // certify names the option that named the file, too.
            (
                [
                    &["certify", "--max-input", limit, "--replay", p, "--"][..],
                    &serve,
                ]
                .concat(),
                &replay_p,
            ),
            (vec!["corpus", "check", "--max-input", limit, corpus], c),
        ];
        for (args, named) in commands {
            let out = run(&args, None);
            let what = format!("{} with {}", args[..2].join(" "), bad.name);
            assert_eq!(
                (out.status.code(), text(&out.stderr)),
                (
                    Some(bad.code),
                    format!("reducer-kit: error: {named}: {}\n", bad.error)
                ),
                "{what}"
            );
            assert_eq!(text(&out.stdout), "", "{what}");
        }
    }
    // Stdin: the same limit, the same message, with the source `<stdin>`.
    let limit = "1500";
    for args in [
        vec!["validate", "--max-input", limit, "-"],
        vec!["reduce", "--max", "3", "--max-input", limit, "-"],
        vec![
            "check",
            "--policy",
            "turns",
            "--max",
            "3",
            "--max-input",
            limit,
            "-",
            good,
        ],
    ] {
        let (out, taken) = run_on_endless_stdin(&args);
        assert_eq!(
            (out.status.code(), text(&out.stderr)),
            (
                Some(2),
                format!(
                    "reducer-kit: error: <stdin>: larger than the limit of {limit} bytes (--max-input)\n"
                )
            ),
            "{args:?} < endless zeros"
        );
        // Refused, not read on: it took the limit's bytes and at most a
        // pipe buffer (64 KiB here) and a chunk more.
        assert!(taken < 1500 + (1 << 20), "{args:?}: took {taken} bytes");
    }
    // Within the default limit, the deep file from stdin is refused for
    // its depth, naming stdin.
    let out = run(&["validate", "-"], Some(&deep));
    assert_eq!(
        (out.status.code(), text(&out.stderr)),
        (
            Some(1),
            "reducer-kit: error: <stdin>: message 0: nested deeper than 100 levels\n".into()
        )
    );
}

#[test]
fn json_lines_and_case_arrays_name_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let over = format!("{}{}", "[".repeat(101), "]".repeat(101));
    let jsonl = dir.path().join("h.jsonl");
    std::fs::write(&jsonl, format!("[]\n{{\"messages\": [{{}}, {over}]}}\n")).unwrap();
    let p = jsonl.to_str().unwrap();
    for args in [vec!["validate", p], vec!["reduce", "--max", "2", p]] {
        let out = run(&args, None);
        assert_eq!(
            (out.status.code(), text(&out.stderr)),
            (
                Some(1),
                format!("reducer-kit: error: {p}:2: message 1: nested deeper than 100 levels\n")
            ),
            "{args:?}"
        );
    }
    let cases = dir.path().join("cases.json");
    let case = |m: &str| {
        format!("{{\"id\": \"a\", \"spec\": 1, \"policy\": \"turns\", \"maxMessages\": 1, \"messages\": [{m}], \"expected\": []}}")
    };
    std::fs::write(&cases, format!("[{}, {}]", case("{}"), case(&over))).unwrap();
    let c = cases.to_str().unwrap();
    let out = run(&["certify", "--replay", c, "--", kit(), "serve"], None);
    assert_eq!(
        (out.status.code(), text(&out.stderr)),
        (
            Some(1),
            format!("reducer-kit: error: --replay {c}: case 1: message 0: nested deeper than 100 levels\n")
        )
    );
    // Exactly the limit is read.
    let ok = format!("{}{}", "[".repeat(99), "]".repeat(99));
    std::fs::write(
        &jsonl,
        format!("[{{\"role\": \"user\", \"contents\": [], \"x\": {ok}}}]"),
    )
    .unwrap();
    let out = run(&["reduce", "--max", "2", p], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn reduce_writes_a_constant_factor_of_its_input_whatever_the_nesting() {
    let dir = tempfile::tempdir().unwrap();
    // 2,000 messages, each with a member nested 97 levels (99 with the
    // message and its member): within the limit, so reduced and written.
    let inner = format!("{}1{}", "[".repeat(97), "]".repeat(97));
    let message = format!(
        "{{\"role\":\"user\",\"contents\":[{{\"$type\":\"text\",\"text\":\"q\",\"x\":{inner}}}]}}"
    );
    let history = format!("[{}]", vec![message; 2000].join(","));
    let file = dir.path().join("deep.json");
    std::fs::write(&file, &history).unwrap();
    let out = run(&["reduce", "--max", "2000", file.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Pretty for the top 16 levels only: about 3x here (an indent per
    // level would be ~80x).
    let ratio = out.stdout.len() as f64 / history.len() as f64;
    assert!(
        ratio < 4.0,
        "{} bytes from {}",
        out.stdout.len(),
        history.len()
    );
    let back: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want: serde_json::Value = serde_json::from_str(&history).unwrap();
    assert!(reducer_kit::json::json_eq(&back, &want));
    // 200 KB nested 100,000 deep: refused, at once.
    std::fs::write(&file, deep_file(100_000)).unwrap();
    let out = run(&["reduce", "--max", "3", file.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, b"");
}

/// Every file and folder below `dir`, by path relative to `dir`. A folder
/// that vanishes while it is listed (the kit's process is running and
/// removes its staging folder) is passed over.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let listing = match std::fs::read_dir(&d) {
            Ok(l) => l,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && d != dir => continue,
            Err(e) => panic!("{}: {e}", d.display()),
        };
        for e in listing {
            let Ok(e) = e else { continue };
            let p = e.path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap().to_path_buf());
        }
    }
    out.sort();
    out
}

/// Every file below `dir` with its bytes, by path relative to `dir`.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    entries(dir)
        .into_iter()
        .filter(|rel| dir.join(rel).is_file())
        .map(|rel| {
            let bytes = std::fs::read(dir.join(&rel)).unwrap();
            (rel, bytes)
        })
        .collect()
}

/// Writes every file of a tree below `to`.
fn write_tree(files: &BTreeMap<PathBuf, Vec<u8>>, to: &Path) {
    for (rel, bytes) in files {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
    }
}

/// The kit's `corpus/compat` with every non-empty `expected` missing its
/// first message: stale, as after a spec change, in the files' own layout.
fn stale_corpus(to: &Path) -> usize {
    let mut stale = 0;
    for f in load_files(&root().join("corpus/compat")).unwrap() {
        let mut cases = f.cases.clone();
        for c in &mut cases {
            if let Some(e) = c.expected.as_mut().filter(|e| !e.is_empty()) {
                e.remove(0);
                stale += 1;
            }
        }
        let rel = f.path.strip_prefix(root().join("corpus/compat")).unwrap();
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, render(&cases, f.layout, f.style)).unwrap();
    }
    stale
}

/// A small xorshift generator: the kill moments of a seed.
struct Moments(u64);

impl Moments {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// Whether `dir` holds a file or folder of the kit's own (`.reducer-kit-…`)
/// anywhere below it.
fn leftovers(dir: &Path) -> Vec<PathBuf> {
    entries(dir)
        .into_iter()
        .filter(|p| {
            p.components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with(".reducer-kit-"))
        })
        .collect()
}

/// What a run of kills found: how many left the old corpus and the new
/// one, and how many kills came while the change was staged or after its
/// commit point.
#[derive(Debug, Default)]
struct Kills {
    as_old: usize,
    as_new: usize,
    staging: usize,
    committed: usize,
}

/// Kills `corpus <command> DIR` `kills` times, at moments drawn from
/// `seed`, each on a fresh copy of `old` (a third anywhere in a run as long
/// as `span`, a third while the change is staged, a third after its commit
/// point); after each, the next run (`corpus check`) must find the corpus
/// as `old` (exit `old_code`) or as `new` (exit 0), and nothing of the
/// kit's left.
fn kill_loop(
    command: &str,
    work: &Path,
    (old, old_code): (&BTreeMap<PathBuf, Vec<u8>>, i32),
    new: &BTreeMap<PathBuf, Vec<u8>>,
    span: Duration,
    kills: usize,
    seed: u64,
) -> Kills {
    let span = u64::try_from(span.as_micros()).unwrap() + 20_000;
    let mut moments = Moments(seed);
    let mut seen = Kills::default();
    for i in 0..kills {
        let dir = work.join(format!("{command}{i}"));
        write_tree(old, &dir);
        let mut child = Command::new(kit())
            .args(["corpus", command])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Once `seen` holds, or the child is done.
        let mut wait_for = |seen: &dyn Fn() -> bool| {
            let deadline = Instant::now() + Duration::from_secs(10);
            while !seen() && Instant::now() < deadline {
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_micros(100));
            }
        };
        match i % 3 {
            // Anywhere in the run.
            0 => std::thread::sleep(Duration::from_micros(moments.below(span))),
            // While the change is staged.
            1 => {
                wait_for(&|| !leftovers(&dir).is_empty());
                std::thread::sleep(Duration::from_micros(moments.below(40_000)));
            }
            // While it is carried out, after the commit point.
            _ => {
                wait_for(&|| dir.join(".reducer-kit-commit").exists());
                std::thread::sleep(Duration::from_micros(moments.below(2_000)));
            }
        }
        let _ = child.kill();
        child.wait().unwrap();
        let pending = dir.join(".reducer-kit-commit").exists();
        seen.committed += usize::from(pending);
        seen.staging += usize::from(!pending && !leftovers(&dir).is_empty());
        // The next run finds the corpus whole: as it was, or as after.
        let out = run(&["corpus", "check", dir.to_str().unwrap()], None);
        assert_eq!(
            leftovers(&dir),
            Vec::<PathBuf>::new(),
            "{command}, kill {i}"
        );
        let now = tree(&dir);
        let code = out.status.code();
        if now == *new && code == Some(0) {
            seen.as_new += 1;
        } else if now == *old && code == Some(old_code) {
            seen.as_old += 1;
        } else {
            panic!(
                "{command}, kill {i}: neither the old corpus nor the new one (corpus check exits {code:?}: {})",
                text(&out.stderr)
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    eprintln!(
        "{kills} kills of corpus {command}: {} left the old corpus, {} the new one; {} while staging, {} after the commit point",
        seen.as_old, seen.as_new, seen.staging, seen.committed
    );
    seen
}

/// A whole run of `corpus <command>` on a copy of `old`: the corpus it
/// leaves and how long it took.
fn whole_run(
    command: &str,
    work: &Path,
    old: &BTreeMap<PathBuf, Vec<u8>>,
) -> (BTreeMap<PathBuf, Vec<u8>>, Duration) {
    let whole = work.join(format!("whole-{command}"));
    write_tree(old, &whole);
    let start = Instant::now();
    let out = run(&["corpus", command, whole.to_str().unwrap()], None);
    let took = start.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(leftovers(&whole), Vec::<PathBuf>::new());
    let new = tree(&whole);
    assert_ne!(*old, new);
    (new, took)
}

#[test]
fn a_killed_corpus_regen_leaves_the_old_corpus_or_the_new_one() {
    let work = tempfile::tempdir().unwrap();
    let stale_dir = work.path().join("stale");
    let stale = stale_corpus(&stale_dir);
    assert!(stale > 100, "{stale}");
    let old = tree(&stale_dir);
    let (new, took) = whole_run("regen", work.path(), &old);
    // The stale corpus fails corpus check (exit 1), the new one passes.
    let seen = kill_loop("regen", work.path(), (&old, 1), &new, took, 45, 0x5eed_0030);
    assert!(seen.as_old > 0 && seen.as_new > 0, "{seen:?}");
}

#[test]
fn a_killed_corpus_min_leaves_the_old_corpus_or_the_new_one() {
    let work = tempfile::tempdir().unwrap();
    let old = tree(&root().join("corpus/compat"));
    let (new, took) = whole_run("min", work.path(), &old);
    assert!(new.len() < old.len() / 2, "{} of {}", new.len(), old.len());
    let seen = kill_loop("min", work.path(), (&old, 0), &new, took, 6, 0x5eed_0031);
    assert_eq!(seen.as_old + seen.as_new, 6);
}
