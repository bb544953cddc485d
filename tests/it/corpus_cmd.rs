//! `reducer-kit corpus` end to end, in temporary directories: `check` and
//! `regen` (a changed expectation is named, then restored byte for byte),
//! `add` (a libFuzzer artifact and a certify counterexample become
//! regression cases that `certify --replay` runs), `min` (duplicated
//! signatures), `seed-fuzz` (deterministic seeds for every target).

use reducer_kit::case::{load_file, parse_cases, Case, SPEC_VERSION};
use reducer_kit::corpus::import::import;
use reducer_kit::corpus::{compare, regenerate, Comparison};
use reducer_kit::fuzzers::TARGETS;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const KIT: &str = env!("CARGO_BIN_EXE_reducer-kit");
const VERSIONS: &str = concat!("spec v1, reducer-kit ", env!("CARGO_PKG_VERSION"));

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn seed_file() -> PathBuf {
    root().join("corpus/seed/order-shipment.json")
}

/// Runs the kit in `dir` and returns (exit code, stdout, stderr).
fn kit(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out: Output = Command::new(KIT)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

fn seed_cases() -> Vec<Case> {
    load_file(&seed_file()).unwrap()
}

/// The seed file with the text of `seed/order-shipment-turns-3`'s expected
/// output changed.
fn broken_seed_text() -> String {
    let text = std::fs::read_to_string(seed_file()).unwrap();
    let at = text
        .find("\"id\": \"seed/order-shipment-turns-3\"")
        .unwrap();
    let expected = at + text[at..].find("\"expected\"").unwrap();
    let old = "\"text\": \"When should it arrive?\"";
    let k = expected + text[expected..].find(old).unwrap();
    format!(
        "{}\"text\": \"When will it arrive?\"{}",
        &text[..k],
        &text[k + old.len()..]
    )
}

#[test]
fn check_names_a_changed_expectation_and_regen_restores_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("corpus/fuzz/reduce_invariants")).unwrap();
    std::fs::write(dir.join("corpus/fuzz/reduce_invariants/seed-0"), [0xff, 0]).unwrap();
    std::fs::write(dir.join("corpus/cases.jsonl"), "not json\n").unwrap();
    let file = dir.join("corpus/order-shipment.json");
    let original = std::fs::read(seed_file()).unwrap();
    std::fs::write(&file, broken_seed_text()).unwrap();
    let diff = "seed/order-shipment-turns-3 (corpus/order-shipment.json): expected 1 message -> 1 message, first difference at $[0].contents[0].text";

    let (code, out, err) = kit(dir, &["corpus", "check", "corpus"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        lines(&out),
        vec![
            format!("differs: {diff}"),
            format!("corpus check: 16 cases in 1 file: 1 differs from the reference, 0 made under an older spec, 0 unusable ({VERSIONS})"),
            "regenerate with: reducer-kit corpus regen corpus".to_string(),
        ]
    );

    let (code, out, _) = kit(dir, &["corpus", "regen", "corpus", "--dry-run"]);
    assert_eq!(code, 0);
    assert_eq!(
        lines(&out),
        vec![
            format!("would update: {diff}"),
            format!("corpus regen: 16 cases in 1 file: 1 case would be updated in 1 file; nothing written ({VERSIONS})"),
        ]
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken_seed_text());

    let (code, out, _) = kit(dir, &["corpus", "regen", "corpus"]);
    assert_eq!(code, 0);
    assert_eq!(
        lines(&out),
        vec![
            format!("updated: {diff}"),
            format!("corpus regen: 16 cases in 1 file: 1 case updated in 1 file ({VERSIONS})"),
        ]
    );
    assert_eq!(std::fs::read(&file).unwrap(), original);
    let names: Vec<String> = std::fs::read_dir(dir.join("corpus"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3, "no temporary file left behind: {names:?}");

    let (code, out, _) = kit(dir, &["corpus", "check", "corpus"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        format!("corpus check: 16 cases in 1 file match the reference ({VERSIONS})\n")
    );
}

#[test]
fn regen_keeps_a_single_case_file_single_and_recomputes_violations() {
    let tmp = tempfile::tempdir().unwrap();
    let mut case = seed_cases().remove(9);
    let good = case.to_pretty_json();
    case.messages.remove(1);
    let good_without_call = regenerate(&case).unwrap();
    assert_eq!(good_without_call.violations.len(), 2);
    let stored = Case {
        violations: Vec::new(),
        ..good_without_call.clone()
    };
    let file = tmp.path().join("one.json");
    std::fs::write(&file, stored.to_pretty_json()).unwrap();
    let (code, out, _) = kit(tmp.path(), &["corpus", "check", "."]);
    assert_eq!(code, 1);
    assert_eq!(
        lines(&out)[0],
        format!(
            "differs: {} (./one.json): violations 0 -> 2, first difference at $[0]",
            case.id
        )
    );
    let (code, _, _) = kit(tmp.path(), &["corpus", "regen", "."]);
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        good_without_call.to_pretty_json(),
        "one pretty case object stays one pretty case object"
    );
    assert_ne!(good, good_without_call.to_pretty_json());
}

#[test]
fn a_newer_spec_is_a_usage_error_and_an_older_one_is_not_judged() {
    let tmp = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(seed_file())
            .unwrap()
            .replacen("\"spec\": 1,", "\"spec\": 3,", 1);
    std::fs::write(tmp.path().join("new.json"), text).unwrap();
    for sub in ["check", "regen"] {
        let (code, out, err) = kit(tmp.path(), &["corpus", sub, "."]);
        assert_eq!(code, 2, "{sub}: {out}");
        assert_eq!(
            err,
            "reducer-kit: error: ./new.json: case \"seed/order-shipment-suffix-1\": spec version 3 is not known to this kit (it implements 1 to 2)\n"
        );
    }
    // No file can hold spec 0 (case.rs rejects it), so the older-version
    // path is exercised on a constructed case. A version 1 case is judged
    // as it is under the kit's newest spec (version 2 only adds), and
    // regenerating it keeps it version 1.
    let mut old = seed_cases().remove(0);
    assert_eq!(SPEC_VERSION, 2);
    assert_eq!(compare(&old), Comparison::Matches);
    old.spec = 0;
    assert_eq!(compare(&old), Comparison::OlderSpec(0));
    let new = regenerate(&old).unwrap();
    assert_eq!(new.spec, 1);
    assert_eq!(new, seed_cases()[0]);
}

/// Fixed bytes standing in for a libFuzzer crash input.
fn artifact_bytes() -> Vec<u8> {
    (0..900u32).map(|i| ((i * 7919 + 8) % 251) as u8).collect()
}

#[test]
fn add_decodes_a_fuzz_artifact_into_a_case_certify_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let art_dir = dir.join("fuzz/artifacts/checker_convicts");
    std::fs::create_dir_all(&art_dir).unwrap();
    let art = art_dir.join("crash-0123");
    std::fs::write(&art, artifact_bytes()).unwrap();
    let want = import(&artifact_bytes(), &art, None, None)
        .unwrap()
        .remove(0)
        .case;
    let id = want.id.clone();
    assert!(id.starts_with("regress/"), "{id}");
    let name = format!("{}.json", id.replace('/', "-"));
    let shown = "fuzz/artifacts/checker_convicts/crash-0123";

    let (code, out, err) = kit(dir, &["corpus", "add", "--dir", "reg", shown]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        format!("{shown}: added {id} as reg/{name} (from checker_convicts input)\n")
    );
    let saved = dir.join("reg").join(&name);
    let cases = load_file(&saved).unwrap();
    assert_eq!(cases, vec![want.clone()]);
    assert!(
        cases[0]
            .description
            .contains("checker_convicts input crash-0123"),
        "{}",
        cases[0].description
    );

    let policy = want.policy.name();
    let (code, out, err) = kit(
        dir,
        &[
            "certify",
            "--policy",
            policy,
            "--jobs",
            "2",
            "--replay",
            saved.to_str().unwrap(),
            "--",
            KIT,
            "serve",
            "--policy",
            policy,
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");

    let (code, out, _) = kit(dir, &["corpus", "add", "--dir", "reg", shown]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        format!("{shown}: already present: {id} in reg/{name}\n")
    );

    // The same bytes elsewhere: decoded by the named target; without one
    // (not JSON, no target folder), and JSON that is no case, refused.
    std::fs::write(dir.join("raw"), artifact_bytes()).unwrap();
    std::fs::write(dir.join("other.json"), "{\"id\": 1}").unwrap();
    let (code, out, _) = kit(
        dir,
        &[
            "corpus",
            "add",
            "--dir",
            "reg",
            "--target",
            "checker_convicts",
            "raw",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(out, format!("raw: already present: {id} in reg/{name}\n"));
    let (code, out, _) = kit(dir, &["corpus", "add", "--dir", "reg", "other.json"]);
    assert_eq!(code, 2);
    assert_eq!(
        out,
        "other.json: not a case: case 0: invalid type: number, expected a string \
         (for a fuzz input, name its target with --target)\n"
    );
    let (code, out, _) = kit(dir, &["corpus", "add", "--dir", "reg", "raw"]);
    assert_eq!(code, 2);
    assert_eq!(
        out,
        "raw: not a case: binary bytes (not UTF-8): neither a case file nor the input of a named fuzz target (for a fuzz input, name its target with --target)\n"
    );
    // reduce_invariants draws a format and a profile first, so its case
    // is another; validator_agrees damages the history first.
    let (code, out, _) = kit(
        dir,
        &[
            "corpus",
            "add",
            "--dir",
            "reg",
            "--target",
            "reduce_invariants",
            "raw",
        ],
    );
    assert_eq!(code, 0);
    let drawn = import(
        &artifact_bytes(),
        Path::new("raw"),
        Some("reduce_invariants"),
        None,
    )
    .unwrap()
    .remove(0)
    .case;
    assert_ne!(drawn.id, id);
    assert_eq!(
        out,
        format!(
            "raw: added {} as reg/{} (from reduce_invariants input)\n",
            drawn.id,
            drawn.id.replace('/', "-") + ".json"
        )
    );
    let (code, out, _) = kit(
        dir,
        &[
            "corpus",
            "add",
            "--dir",
            "reg",
            "--target",
            "validator_agrees",
            "--policy",
            "suffix",
            "raw",
        ],
    );
    assert_eq!(code, 0);
    let damaged = import(
        &artifact_bytes(),
        Path::new("raw"),
        Some("validator_agrees"),
        Some(reducer_kit::terms::Policy::Suffix),
    )
    .unwrap()
    .remove(0)
    .case;
    assert_eq!(
        out,
        format!(
            "raw: added {} as reg/{} (from validator_agrees input)\n",
            damaged.id,
            damaged.id.replace('/', "-") + ".json"
        )
    );
    let (code, _, _) = kit(dir, &["corpus", "check", "reg"]);
    assert_eq!(code, 0);
}

#[test]
fn add_imports_a_certify_counterexample() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // One corpus case that the naive reducer (keep the last N messages)
    // gets wrong: budget 3 keeps two results without their calls.
    let turns3 = seed_cases()
        .into_iter()
        .find(|c| c.id == "seed/order-shipment-turns-3")
        .unwrap();
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::write(dir.join("in/one.json"), turns3.to_pretty_json()).unwrap();
    let naive = root().join("examples/reducers/naive_last_n.py");
    let (code, out, err) = kit(
        dir,
        &[
            "certify",
            "--corpus",
            "in",
            "--cases",
            "0",
            "--jobs",
            "1",
            "--shrink-tries",
            "5",
            "--save-failures",
            "fails",
            "--",
            "python3",
            naive.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    let mut saved: Vec<PathBuf> = std::fs::read_dir(dir.join("fails"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    saved.sort();
    assert!(!saved.is_empty());
    let args: Vec<String> = saved
        .iter()
        .map(|p| format!("fails/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    let mut cmd = vec!["corpus", "add", "--dir", "reg"];
    cmd.extend(args.iter().map(String::as_str));
    let (code, out, err) = kit(dir, &cmd);
    assert_eq!(code, 0, "{err}");
    let mut want = Vec::new();
    for (p, shown) in saved.iter().zip(&args) {
        let fail = load_file(p).unwrap().remove(0);
        let hash = fail.id.strip_prefix("fail/").unwrap();
        want.push(format!(
            "{shown}: added regress/{hash} as reg/regress-{hash}.json (from case {})",
            fail.id
        ));
        let added = load_file(&dir.join(format!("reg/regress-{hash}.json")))
            .unwrap()
            .remove(0);
        assert_eq!(added.id, format!("regress/{hash}"));
        assert_eq!(
            (&added.messages, &added.expected, &added.clauses),
            (&fail.messages, &fail.expected, &fail.clauses)
        );
        assert_eq!(added.description, fail.description);
    }
    assert_eq!(lines(&out), want);
    let (code, out, _) = kit(dir, &cmd);
    assert_eq!(code, 0);
    assert!(
        lines(&out)
            .iter()
            .all(|l| l.contains(": already present: ")),
        "{out}"
    );
}

#[test]
fn min_dry_run_lists_duplicates_and_keeps_one_of_each_signature() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("c")).unwrap();
    let cases = seed_cases();
    let by_id = |id: &str| cases.iter().find(|c| c.id == id).unwrap().clone();
    let renamed = |c: &Case, id: &str| Case {
        id: id.to_string(),
        ..c.clone()
    };
    let turns3 = by_id("seed/order-shipment-turns-3");
    let suffix5 = by_id("seed/order-shipment-suffix-5");
    let bad = by_id("seed/order-shipment-budget-0");
    let write = |name: &str, cs: &[Case]| {
        let text = if cs.len() == 1 {
            cs[0].to_pretty_json()
        } else {
            serde_json::to_string_pretty(cs).unwrap() + "\n"
        };
        std::fs::write(dir.join("c").join(name), text).unwrap();
    };
    write("a.json", std::slice::from_ref(&turns3));
    write("a-copy.json", &[renamed(&turns3, "x/a-copy")]);
    write("b.json", std::slice::from_ref(&suffix5));
    write("b-copy.json", &[renamed(&suffix5, "x/b-copy")]);
    write(
        "both.json",
        &[renamed(&suffix5, "x/b-in-both"), bad.clone()],
    );
    let (code, out, err) = kit(dir, &["corpus", "min", "c", "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    let out_lines = lines(&out);
    assert_eq!(
        out_lines[..4],
        [
            "would remove x/a-copy (c/a-copy.json): covered by seed/order-shipment-turns-3",
            "would remove x/b-copy (c/b-copy.json): covered by x/b-in-both",
            "would remove seed/order-shipment-suffix-5 (c/b.json): covered by x/b-in-both",
            "keep c/both.json: holds 2 cases, 1 of them removable on its own; a file of several cases is removed only whole",
        ]
    );
    assert!(
        out_lines[4].starts_with("corpus min: 6 cases in 5 files cover ")
            && out_lines[4].ends_with(
                " pairs; keeping 3 cases, would remove 3 cases in 3 files; nothing deleted"
            ),
        "{out}"
    );
    assert_eq!(out_lines.len(), 5);
    assert_eq!(std::fs::read_dir(dir.join("c")).unwrap().count(), 5);

    let (code, _, _) = kit(dir, &["corpus", "min", "c"]);
    assert_eq!(code, 0);
    let mut left: Vec<String> = std::fs::read_dir(dir.join("c"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["a.json", "both.json"]);
}

#[test]
fn seed_fuzz_writes_the_same_seeds_for_the_same_seed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let listing = |out: &str| -> Vec<(String, String, Vec<u8>)> {
        let mut v = Vec::new();
        for t in TARGETS {
            for e in std::fs::read_dir(dir.join(out).join(t)).unwrap() {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                v.push((t.to_string(), name, std::fs::read(&p).unwrap()));
            }
        }
        v.sort();
        v
    };
    let args = |out: &'static str| {
        [
            "corpus",
            "seed-fuzz",
            "--out",
            out,
            "--count",
            "3",
            "--seed",
            "5",
        ]
    };
    let (code, out, err) = kit(dir, &args("a"));
    assert_eq!(code, 0, "{err}");
    let mut want: Vec<String> = TARGETS
        .iter()
        .map(|t| format!("{t}: 3 seeds, 3 new, in a/{t}"))
        .collect();
    want.push(format!(
        "seed-fuzz: {} seeds for {} targets (seed 5); shrink with `cargo fuzz cmin <target>`",
        3 * TARGETS.len(),
        TARGETS.len()
    ));
    assert_eq!(lines(&out), want);
    let (code, _, _) = kit(dir, &args("b"));
    assert_eq!(code, 0);
    let (a, b) = (listing("a"), listing("b"));
    assert_eq!(a, b);
    assert_eq!(a.len(), 3 * TARGETS.len());
    for (t, name, bytes) in &a {
        assert!(!bytes.is_empty(), "{t}/{name}");
        assert_eq!(name.len(), 16, "{t}/{name}");
        reducer_kit::fuzzers::run_target(t, bytes);
    }
    let (code, out, _) = kit(dir, &args("a"));
    assert_eq!(code, 0);
    assert!(out.starts_with("parse_no_panic: 3 seeds, 0 new, in a/parse_no_panic\n"));
    let (code, _, _) = kit(
        dir,
        &[
            "corpus",
            "seed-fuzz",
            "--out",
            "c",
            "--count",
            "3",
            "--seed",
            "6",
        ],
    );
    assert_eq!(code, 0);
    assert_ne!(listing("a"), listing("c"));
    // Parse check: the parse_no_panic seeds are JSON, one of them a case file.
    let jsons = a.iter().filter(|(t, _, _)| t == "parse_no_panic");
    for (_, name, bytes) in jsons {
        let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        if v.get("id").is_some() {
            parse_cases(std::str::from_utf8(bytes).unwrap(), Path::new(name)).unwrap();
        }
    }
}

/// `corpus trim-fuzz`: a generator-read input loses the bytes its target
/// does not read (and makes the same case); a file named by `seed-fuzz`
/// (the hash of its bytes) is renamed to the hash of the cut bytes; JSON
/// inputs, other folders and symbolic links are left alone and said so; a
/// second run cuts nothing, `--dry-run` writes nothing; a folder that
/// holds no target's folder, or is missing, is exit 2.
#[test]
fn trim_fuzz_cuts_unread_bytes_and_nothing_else() {
    use rand::{RngCore, SeedableRng};
    use reducer_kit::corpus::seeds::seed_name;
    use reducer_kit::fuzzers::describe_target;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut buf = vec![0u8; 2048];
    rand_chacha::ChaCha8Rng::seed_from_u64(14).fill_bytes(&mut buf);
    let hashed = seed_name(&buf);
    for (folder, name, bytes) in [
        ("f/reduce_invariants", "big", &buf[..]),
        ("f/validator_agrees", hashed.as_str(), &buf[..]),
        ("f/parse_no_panic", "h.json", &b"[]   "[..]),
        ("f/notes", "n", &b"hello"[..]),
    ] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        std::fs::write(dir.join(folder).join(name), bytes).unwrap();
    }
    std::os::unix::fs::symlink("big", dir.join("f/reduce_invariants/link")).unwrap();
    let big = dir.join("f/reduce_invariants/big");
    let (code, out, err) = kit(dir, &["corpus", "trim-fuzz", "f", "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        lines(&out),
        [
            "skip f/notes: not a fuzz target",
            "skip f/parse_no_panic: parse_no_panic reads JSON text, whose prefixes are other inputs",
            "skip f/reduce_invariants/link: a symbolic link",
            "reduce_invariants: 1 input, would cut 1, 2048 -> 316 bytes, in f/reduce_invariants",
            "validator_agrees: 1 input, would cut 1, 2048 -> 251 bytes, in f/validator_agrees",
            "trim-fuzz: 2 inputs, would cut 2, 4096 -> 567 bytes",
        ]
    );
    assert_eq!(std::fs::read(&big).unwrap(), buf);
    let (code, out, _) = kit(dir, &["corpus", "trim-fuzz", "f"]);
    assert_eq!(code, 0);
    let renamed = seed_name(&buf[..251]);
    assert!(
        out.contains(&format!(
            "rename f/validator_agrees/{hashed} to f/validator_agrees/{renamed}\n"
        )),
        "{out}"
    );
    assert!(
        out.ends_with("trim-fuzz: 2 inputs, cut 2, 4096 -> 567 bytes\n"),
        "{out}"
    );
    assert_eq!(std::fs::read(&big).unwrap(), &buf[..316]);
    assert_eq!(
        describe_target("reduce_invariants", &buf[..316]),
        describe_target("reduce_invariants", &buf)
    );
    assert!(!dir.join("f/validator_agrees").join(&hashed).exists());
    assert_eq!(
        std::fs::read(dir.join("f/validator_agrees").join(&renamed)).unwrap(),
        &buf[..251]
    );
    assert_eq!(
        std::fs::read(dir.join("f/parse_no_panic/h.json")).unwrap(),
        b"[]   "
    );
    // One target's folder, named after it.
    let (code, out, _) = kit(dir, &["corpus", "trim-fuzz", "f/reduce_invariants/"]);
    assert_eq!(code, 0);
    assert_eq!(
        lines(&out),
        [
            "skip f/reduce_invariants/link: a symbolic link",
            "reduce_invariants: 1 input, cut 0, 316 -> 316 bytes, in f/reduce_invariants/",
            "trim-fuzz: 1 input, cut 0, 316 -> 316 bytes",
        ]
    );
    let (code, _, err) = kit(dir, &["corpus", "trim-fuzz", "f/notes"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("f/notes: neither a fuzz target's folder nor a folder of them"),
        "{err}"
    );
    let (code, _, err) = kit(dir, &["corpus", "trim-fuzz", "missing"]);
    assert_eq!(code, 2);
    assert!(err.contains("missing"), "{err}");
}

/// `regen`, `min` and `seed-fuzz` name their directory, and
/// refuse the kit's hand-written `corpus/spec` unless `--force`.
#[test]
fn corpus_commands_need_a_directory_and_spare_the_spec() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (args, missing) in [
        (
            &["corpus", "regen"][..],
            "  <DIR>\n\nUsage: reducer-kit corpus regen <DIR>",
        ),
        (
            &["corpus", "min"],
            "  <DIR>\n\nUsage: reducer-kit corpus min <DIR>",
        ),
        (
            &["corpus", "seed-fuzz"],
            "  --out <DIR>\n\nUsage: reducer-kit corpus seed-fuzz --out <DIR>",
        ),
    ] {
        let (code, out, err) = kit(dir, args);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(out, "");
        assert!(
            err.starts_with(&format!(
                "error: the following required arguments were not provided:\n{missing}"
            )),
            "{err}"
        );
    }
    // The kit's own corpus/spec, named or held by the directory given.
    let spec = root().join("corpus/spec").canonicalize().unwrap();
    let before: Vec<Vec<u8>> = case_file_bytes(&spec);
    let corpus = root().join("corpus");
    let (corpus, spec_arg) = (corpus.to_str().unwrap(), spec.to_str().unwrap());
    let seeds = format!("{spec_arg}/seeds");
    for (args, shown, command) in [
        (vec!["corpus", "regen", spec_arg], spec_arg, "corpus regen"),
        (vec!["corpus", "regen", corpus], corpus, "corpus regen"),
        (vec!["corpus", "min", corpus], corpus, "corpus min"),
        (
            vec!["corpus", "seed-fuzz", "--out", &seeds],
            &seeds,
            "corpus seed-fuzz",
        ),
    ] {
        let (code, out, err) = kit(dir, &args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert_eq!(out, "");
        assert_eq!(
            err,
            format!(
                "reducer-kit: error: {shown}: {command} would change the kit's hand-written spec cases in {spec_arg} (the authority the reference is checked against); pass --force to do it anyway\n"
            )
        );
    }
    assert!(!Path::new(&seeds).exists());
    assert_eq!(case_file_bytes(&spec), before);
    // A dry run writes nothing and is allowed.
    let (code, out, _) = kit(dir, &["corpus", "min", spec_arg, "--dry-run"]);
    assert_eq!(code, 0);
    assert!(out.contains("nothing deleted"), "{out}");
    // ./corpus/spec is spared as well; --force lets regen rewrite it.
    std::fs::create_dir_all(dir.join("corpus/spec")).unwrap();
    std::fs::write(
        dir.join("corpus/spec/order-shipment.json"),
        broken_seed_text(),
    )
    .unwrap();
    let (code, _, err) = kit(dir, &["corpus", "regen", "corpus"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("corpus: corpus regen would change the kit's hand-written spec cases in "),
        "{err}"
    );
    let (code, out, err) = kit(dir, &["corpus", "regen", "corpus", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 case updated in 1 file"), "{out}");
    assert_eq!(
        std::fs::read(dir.join("corpus/spec/order-shipment.json")).unwrap(),
        std::fs::read(seed_file()).unwrap()
    );
}

/// The bytes of every file of `dir`, in name order.
fn case_file_bytes(dir: &Path) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
        .iter()
        .filter(|p| p.is_file())
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

/// `corpus add` refuses, with exit 2 and a line saying
/// what it is, a file that is neither a case file nor the input of a named
/// fuzz target.
#[test]
fn corpus_add_refuses_what_is_no_case_and_no_named_fuzz_input() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("empty"), "").unwrap();
    std::fs::write(dir.join("notes.txt"), "some notes\n").unwrap();
    std::fs::write(dir.join("cut.json"), "{\"id\": \"x\", \"messages\": [").unwrap();
    let tail = "neither a case file nor the input of a named fuzz target (for a fuzz input, name its target with --target)";
    for (file, what) in [
        ("empty", "an empty file".to_string()),
        (
            "notes.txt",
            "text that is not JSON (expected value at line 1 column 1)".to_string(),
        ),
        (
            "cut.json",
            "truncated JSON (EOF while parsing a list at line 1 column 25)".to_string(),
        ),
    ] {
        let (code, out, err) = kit(dir, &["corpus", "add", "--dir", "reg", file]);
        assert_eq!(code, 2, "{file}: {err}");
        assert_eq!(out, format!("{file}: not a case: {what}: {tail}\n"));
        assert!(
            !dir.join("reg").exists()
                || std::fs::read_dir(dir.join("reg")).unwrap().next().is_none()
        );
    }
    // Named, the empty file is that target's input.
    let (code, out, err) = kit(
        dir,
        &[
            "corpus",
            "add",
            "--dir",
            "reg",
            "--target",
            "reduce_invariants",
            "empty",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("empty: added regress/"), "{out}");
}
