//! Runs every fuzz target (`reducer_kit::fuzzers`) under plain `cargo test`:
//! over its committed seed corpus in `corpus/fuzz/<target>/` and over
//! seeded random byte buffers, so CI without nightly still exercises them.
//!
//! `reducer-kit corpus seed-fuzz --out DIR` writes seed corpora
//! (deterministically) from the generator; `reducer-kit corpus trim-fuzz
//! corpus/fuzz` cuts the bytes the generator leaves unread from every
//! seed (`committed_seeds_carry_no_unread_bytes`).

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reducer_kit::fuzzers::{describe_target, run_target, TARGETS};
use std::path::PathBuf;

/// Random buffers per target, and their largest size.
const RANDOM_INPUTS: u64 = 300;
const MAX_LEN: u32 = 4096;

fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/fuzz")
        .join(target)
}

fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir(target))
        .unwrap_or_else(|e| panic!("corpus/fuzz/{target}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

fn random_inputs(target: &str) -> impl Iterator<Item = Vec<u8>> {
    let seed = target
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    (0..RANDOM_INPUTS).map(move |n| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(n);
        let mut buf = vec![0u8; (rng.next_u32() % MAX_LEN) as usize];
        rng.fill_bytes(&mut buf);
        buf
    })
}

/// Runs `target` on `bytes`; on a panic, fails with what the target made of
/// the bytes.
fn run_one(target: &str, what: &str, bytes: &[u8]) {
    let result = std::panic::catch_unwind(|| run_target(target, bytes));
    if let Err(e) = result {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!(
            "fuzz target {target} failed on {what}: {msg}\ninput: {}",
            describe_target(target, bytes)
        );
    }
}

fn exercise(target: &str) {
    let seeds = seeds(target);
    assert!(
        seeds.len() >= 3,
        "corpus/fuzz/{target} has {} seeds",
        seeds.len()
    );
    for (path, bytes) in &seeds {
        run_one(target, &path.display().to_string(), bytes);
    }
    for (n, bytes) in random_inputs(target).enumerate() {
        run_one(target, &format!("random input {n}"), &bytes);
    }
}

#[test]
fn parse_no_panic() {
    exercise("parse_no_panic");
}

#[test]
fn format_roundtrip() {
    exercise("format_roundtrip");
}

#[test]
fn validator_agrees() {
    exercise("validator_agrees");
}

#[test]
fn reduce_invariants() {
    exercise("reduce_invariants");
}

/// The fuzz target picks one invalid budget and the OpenAI judgement on
/// half the inputs; on the seeds, every one of them as well.
#[test]
fn reduce_invariants_with_every_variant_on_the_seeds() {
    for (path, bytes) in seeds("reduce_invariants") {
        let r = std::panic::catch_unwind(|| {
            reducer_kit::fuzzers::reduce_invariants::run_all(&mut arbitrary::Unstructured::new(
                &bytes,
            ))
        });
        assert!(
            matches!(r, Ok(Ok(()))),
            "{}: {}",
            path.display(),
            describe_target("reduce_invariants", &bytes)
        );
    }
}

#[test]
fn checker_convicts() {
    exercise("checker_convicts");
}

#[test]
fn terms_agree() {
    exercise("terms_agree");
}

#[test]
fn repair_invariants() {
    exercise("repair_invariants");
}

/// `reducer_kit::fuzzers::TABLE` is the one list of targets: `fuzz/Cargo.toml`
/// has a `[[bin]]` for each (and no other), each with its shim in
/// `fuzz/fuzz_targets/`, and `.ci/fuzz` names none itself (it runs what
/// `cargo fuzz list` reads from `fuzz/Cargo.toml`).
#[test]
fn fuzz_manifest_and_ci_list_exactly_the_table() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("fuzz/Cargo.toml")).unwrap();
    let mut bins: Vec<(String, String)> = Vec::new();
    for block in manifest.split("[[bin]]").skip(1) {
        let field = |key: &str| -> String {
            block
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once('=')?;
                    (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
                })
                .unwrap_or_else(|| panic!("a [[bin]] without {key}: {block}"))
        };
        bins.push((field("name"), field("path")));
    }
    let names: Vec<&str> = bins.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, TARGETS, "fuzz/Cargo.toml [[bin]]s vs fuzzers::TABLE");
    for (name, path) in &bins {
        assert_eq!(path, &format!("fuzz_targets/{name}.rs"));
        let shim = std::fs::read_to_string(root.join("fuzz").join(path)).unwrap();
        assert!(
            shim.contains(&format!("reducer_kit::fuzzers::{name}::Input")),
            "{path} is not the shim of {name}"
        );
    }
    let mut shims: Vec<String> = std::fs::read_dir(root.join("fuzz/fuzz_targets"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    shims.sort();
    let mut want: Vec<String> = TARGETS.iter().map(|t| format!("{t}.rs")).collect();
    want.sort();
    assert_eq!(shims, want, "fuzz/fuzz_targets/ vs fuzzers::TABLE");
    let ci = std::fs::read_to_string(root.join(".ci/fuzz")).unwrap();
    assert!(
        ci.contains("fuzz list)"),
        ".ci/fuzz no longer asks `cargo fuzz list`"
    );
    for t in TARGETS {
        assert!(!ci.contains(t), ".ci/fuzz names the target {t} itself");
    }
    // The targets built without comparison tracing are targets.
    let no_tc = std::fs::read_to_string(root.join("fuzz/no-trace-compares")).unwrap();
    let listed: Vec<&str> = no_tc
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    assert_eq!(listed, ["reduce_invariants", "checker_convicts"]);
    assert!(listed.iter().all(|t| TARGETS.contains(t)), "{listed:?}");
}

#[test]
fn every_target_has_a_corpus_and_a_description() {
    for t in TARGETS {
        assert!(corpus_dir(t).is_dir(), "corpus/fuzz/{t} is missing");
        let d = describe_target(t, &[7; 300]);
        assert!(!d.is_empty() && !d.contains("undecodable"), "{t}: {d}");
    }
    assert!(describe_target("validator_agrees", &[7; 300]).contains("damages:"));
    assert!(describe_target("checker_convicts", &[7; 300]).contains("mutation"));
    assert!(describe_target("reduce_invariants", &[7; 300]).contains("\"id\":\"fuzz/input\""));
}

#[test]
fn damage_and_mutations_reach_both_outcomes() {
    use reducer_kit::fuzzers::{checker_convicts, validator_agrees};
    use reducer_kit::protocol::Response;
    let (mut valid, mut invalid) = (0, 0);
    for bytes in random_inputs("validator_agrees") {
        let s = validator_agrees::decode(&mut arbitrary::Unstructured::new(&bytes)).unwrap();
        if validator_agrees::naive_valid(&s.messages, s.case.allow_pending) {
            valid += 1;
        } else {
            invalid += 1;
        }
    }
    assert!(
        valid >= 50 && invalid >= 50,
        "valid {valid}, invalid {invalid}"
    );
    let mut changed = 0;
    for bytes in random_inputs("checker_convicts") {
        let s = checker_convicts::decode(&mut arbitrary::Unstructured::new(&bytes)).unwrap();
        if !s.response.same_as(&Response::Messages(s.reference.clone())) {
            changed += 1;
        }
    }
    assert!(
        changed >= 150,
        "only {changed} of {RANDOM_INPUTS} mutations changed the output"
    );
}

/// Regression inputs kept in the seed corpus, each with its root cause.
#[test]
fn regressions() {
    // checker_convicts, mutation DropPinned: the input's pinned system
    // message and a later system message are equal ("please"). Dropping the
    // pinned one leaves an output whose first system message equals it, so
    // by spec §6 the output kept the pinned message and dropped the
    // later one: system-pinned holds (matches-reference fails). The target
    // wrongly required system-pinned to fail; fixed in the target.
    run_one(
        "checker_convicts",
        "regression-pinned-equal-later-system",
        &std::fs::read(corpus_dir("checker_convicts").join("regression-pinned-equal-later-system"))
            .unwrap(),
    );
}

/// The committed seeds of the targets that read the generator's bytes end
/// where the generator stops reading (`corpus trim-fuzz corpus/fuzz`
/// leaves them as they are): libFuzzer's length limit starts at the
/// longest seed.
#[test]
fn committed_seeds_carry_no_unread_bytes() {
    let mut longest = 0;
    for t in reducer_kit::fuzzers::TABLE {
        if t.carried.is_none() {
            continue;
        }
        for (path, bytes) in seeds(t.name) {
            let k = reducer_kit::fuzzers::trimmed_len(t.name, &bytes);
            assert_eq!(
                k,
                bytes.len(),
                "{}: {} bytes the target does not read; run `reducer-kit corpus trim-fuzz corpus/fuzz`",
                path.display(),
                bytes.len() - k
            );
            longest = longest.max(bytes.len());
        }
    }
    assert!(longest <= 1024, "the longest seed has {longest} bytes");
}

/// A 2,048-byte input is the case of its first bytes: cut where the
/// target's decode stops reading, it makes the same case, carries the same
/// history and budget, and cutting again cuts nothing.
#[test]
fn trimming_keeps_the_case() {
    use reducer_kit::fuzzers::{target, trimmed_len};
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut buf = vec![0u8; 2048];
    rng.fill_bytes(&mut buf);
    // checker_convicts draws its mutation after the case, validator_agrees
    // its damage.
    for (t, want) in [
        ("reduce_invariants", 316),
        ("checker_convicts", 256),
        ("validator_agrees", 251),
    ] {
        let k = trimmed_len(t, &buf);
        assert_eq!(k, want, "{t}");
        assert_eq!(
            describe_target(t, &buf[..k]),
            describe_target(t, &buf),
            "{t}"
        );
        let carried = target(t).unwrap().carried.unwrap();
        let carries = |b: &[u8]| carried(&mut arbitrary::Unstructured::new(b)).unwrap();
        assert_eq!(carries(&buf[..k]), carries(&buf), "{t}");
        assert_eq!(trimmed_len(t, &buf[..k]), k, "{t}");
    }
    // JSON text: a prefix is another input.
    let json = br#"[{"role":"user","content":[{"type":"text","text":"hi"}]}]   "#;
    assert_eq!(trimmed_len("parse_no_panic", json), json.len());
}

#[test]
fn naive_oracle_rejects_what_the_seed_document_rejects() {
    use reducer_kit::fuzzers::validator_agrees::naive_valid;
    let h: Vec<serde_json::Value> = serde_json::from_str(
        r#"[
        {"role":"user","contents":[{"$type":"text","text":"Check order 42 and its shipment."}]},
        {"role":"assistant","contents":[{"$type":"functionCall","callId":"order-1","name":"GetOrder"},
                                        {"$type":"functionCall","callId":"shipment-1","name":"GetShipment"}]},
        {"role":"tool","contents":[{"$type":"functionResult","callId":"order-1","result":"Paid"}]},
        {"role":"tool","contents":[{"$type":"functionResult","callId":"shipment-1","result":"Shipped"}]},
        {"role":"assistant","contents":[{"$type":"text","text":"Your order has shipped."}]},
        {"role":"user","contents":[{"$type":"text","text":"When should it arrive?"}]}]"#,
    )
    .unwrap();
    assert!(naive_valid(&h, false));
    assert!(
        !naive_valid(&h[2..], false),
        "TakeLast(4) keeps results without calls"
    );
    assert!(!naive_valid(&h[..2], false), "unanswered calls");
    assert!(
        naive_valid(&h[..2], true),
        "pending calls in the newest turn"
    );
    assert!(!naive_valid(
        &[h[0].clone(), h[1].clone(), h[4].clone()],
        true
    ));
}
