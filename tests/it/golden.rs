//! The golden record: outputs of the kit, byte for byte, held to the digests
//! in `tests/data/golden.txt` so that a refactor cannot change behaviour
//! unnoticed.
//!
//! One line per case, `ID DIGEST...` (the columns are named in the file's
//! `#` header); each digest is the first 16 hex digits of the SHA-256 of a
//! text that spells out what the kit makes of the case (see [`Record`]):
//!
//! - `gen/1/<n>`, n < 2,000, in six columns: the case `n` of seed 1 under
//!   certify's generator config (`certify::generator_config` of each
//!   format: every shape the format carries but those a default run
//!   leaves out, spec §9.5) and under `generate`'s
//!   (the same config), each in canonical,
//!   openai and anthropic: the generator's bytes (messages, budget,
//!   allowPending, shapes; for `generate`, the exact lines
//!   `generate --seed 1 --format F --policy P` prints), the protocol request
//!   of the wire form (or why the format cannot carry it), and under both
//!   policies the reference reducer's output bytes; for certify's cases
//!   also the checker's verdicts on the reference output and on two wrong
//!   ones.
//! - every case of the kit's own corpus (`corpus/spec`, `corpus/seed`; not
//!   `corpus/compat`, which `compat/run` rewrites), in each format: the same, plus
//!   the case's regenerated expectation, its import as a regression case,
//!   its certify counterexample case file and its (clause, shape)
//!   signature.
//! - every tau-bench conversation, at budgets 1, 3, 8 and 1000, in each
//!   format.
//! - the fuzz seeds `corpus seed-fuzz --seed 1 --count 8` writes and what
//!   each fuzz target makes of a fixed input.
//! - `repair/1/<n>`, n < 500, in each format: the broken case `n` of seed
//!   1 under `Config::for_repair` (what `certify --policy repair` runs,
//!   spec §17.6): its messages and breaks, the reference repair's output
//!   bytes, and the checker's verdicts (policy `repair`) on it and on two
//!   wrong ones.
//!
//! A deliberate change of behaviour (a new spec version) rewrites the file:
//! `GOLDEN_WRITE=1 cargo test --test it golden::`, and the diff shows which cases
//! moved.

use reducer_kit::case::{load_dir, Case};
use reducer_kit::certify::counterexample::Counterexample;
use reducer_kit::certify::from_case;
use reducer_kit::check::{check, check_reducer, Extras, Outcome, Request};
use reducer_kit::corpus::import::import;
use reducer_kit::corpus::min::signature;
use reducer_kit::corpus::regenerate;
use reducer_kit::corpus::seeds::fuzz_seeds;
use reducer_kit::formats::Format;
use reducer_kit::fuzzers::describe_target;
use reducer_kit::generate::{seeded_case, Config};
use reducer_kit::protocol::{request, Response};
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{BudgetFields, Clause, Policy};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const GENERATED: u64 = 2000;
/// Broken cases of the record (policy `repair`, spec §17).
const BROKEN: u64 = 500;
const SEED: u64 = 1;
const FORMATS: [Format; 3] = [Format::Canonical, Format::OpenAi, Format::Anthropic];
/// The fuzz targets of the record (those that existed when it was made).
const FUZZ_TARGETS: [&str; 5] = [
    "parse_no_panic",
    "format_roundtrip",
    "validator_agrees",
    "reduce_invariants",
    "checker_convicts",
];

fn golden_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden.txt")
}

/// The text one column's digest is taken of.
#[derive(Default)]
struct Record(String);

impl Record {
    fn put(&mut self, label: &str, value: impl std::fmt::Display) {
        let _ = writeln!(self.0, "{label}: {value}");
    }

    fn digest(&self) -> String {
        Sha256::digest(self.0.as_bytes())
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

fn json(v: &[Value]) -> String {
    Value::Array(v.to_vec()).to_string()
}

fn wire(format: Format, messages: &[Value]) -> Result<Vec<Value>, String> {
    match format {
        Format::Canonical => Ok(messages.to_vec()),
        Format::OpenAi => {
            reducer_kit::formats::openai::to_openai(messages).map_err(|e| e.to_string())
        }
        Format::Anthropic => {
            reducer_kit::formats::anthropic::to_anthropic(messages).map_err(|e| e.to_string())
        }
        other => reducer_kit::formats::to_wire(other, messages).map_err(|e| e.to_string()),
    }
}

fn response_text(r: &Response) -> String {
    r.to_json().to_string()
}

fn verdicts_text(verdicts: &[reducer_kit::check::Verdict]) -> String {
    verdicts
        .iter()
        .map(|v| match &v.outcome {
            Outcome::Pass => format!("{} pass", v.clause),
            Outcome::Fail(d) => format!("{} FAIL {d}", v.clause),
            Outcome::NotJudged(d) => format!("{} not judged {d}", v.clause),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The protocol request, the reference's answer under both policies and,
/// with `judge`, the checker's verdicts on it (with the reference's extra
/// responses) and on two wrong outputs: the whole input, and the reference
/// output without its first message.
fn reduce_and_judge(
    rec: &mut Record,
    format: Format,
    budget: &BudgetFields,
    messages: &[Value],
    judge: bool,
) {
    rec.put("request", request(format, budget, None, messages));
    for policy in Policy::ALL {
        if judge {
            judge_policy(rec, policy, format, budget, messages);
        } else {
            let out = Response::from(
                Reference::new(policy, format).reduce(Input::new(messages).budget_fields(budget)),
            );
            rec.put(policy.name(), response_text(&out));
        }
    }
}

/// The reference's answer under `policy` and the checker's verdicts on it
/// (with the reference's extra responses) and on two wrong outputs: the
/// whole input, and the reference output without its first message.
fn judge_policy(
    rec: &mut Record,
    policy: Policy,
    format: Format,
    budget: &BudgetFields,
    messages: &[Value],
) {
    let reference = Reference::new(policy, format);
    let out = Response::from(reference.reduce(Input::new(messages).budget_fields(budget)));
    rec.put(policy.name(), response_text(&out));
    let req = Request {
        format,
        policy,
        budget,
        messages,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    match check_reducer(
        &req,
        |b, m| Response::from(reference.reduce(Input::new(m).budget_fields(b))),
        Some(Response::from(
            reference.reduce(Input::new(req.messages).budget_fields(req.budget)),
        )),
    ) {
        Ok(v) => rec.put("judged reference", verdicts_text(&v)),
        Err(e) => {
            rec.put("unreadable", e);
            return;
        }
    }
    let mut wrong = vec![Response::Messages(messages.to_vec())];
    if let Response::Messages(m) = &out {
        if !m.is_empty() {
            wrong.push(Response::Messages(m[1..].to_vec()));
        }
    }
    let extras = Extras {
        reference: Some(out.clone()),
        ..Extras::default()
    };
    for w in &wrong {
        let v = check(&req, w, &extras).expect("the input was read above");
        rec.put("judged wrong", verdicts_text(&v));
    }
}

/// The digest of one format's column for a canonical history: `prefix`,
/// then the wire form (or why there is none), reduced and judged.
fn column(
    format: Format,
    budget: &BudgetFields,
    messages: &[Value],
    prefix: &Record,
    judge: bool,
) -> String {
    let mut rec = Record(prefix.0.clone());
    match wire(format, messages) {
        Ok(w) => reduce_and_judge(&mut rec, format, budget, &w, judge),
        Err(e) => rec.put("skip", e),
    }
    rec.digest()
}

fn generated_line(n: u64) -> String {
    let mut line = format!("gen/{SEED}/{n}");
    for which in ["certify", "generate"] {
        for format in FORMATS {
            // `generate`'s default config is certify's: every shape the
            // format carries but those a default run leaves out (spec
            // §9.5).
            let config =
                reducer_kit::certify::generator_config(format, reducer_kit::protocol::Protocol::V1);
            let g = seeded_case(SEED, n, &config);
            let mut rec = Record::default();
            rec.put("messages", json(&g.messages));
            rec.put("budget", g.budget);
            rec.put("allowPending", g.allow_pending);
            let shapes: Vec<&str> = g.shapes.iter().map(|s| s.name()).collect();
            rec.put("shapes", shapes.join(","));
            if which == "generate" {
                for policy in Policy::ALL {
                    let case = g.to_case(format!("gen/{SEED}/{n}"), policy);
                    rec.put("line", serde_json::to_string(&case).unwrap());
                }
            }
            let judge = which == "certify";
            let budget = BudgetFields::messages(Value::from(g.budget));
            let d = column(format, &budget, &g.messages, &rec, judge);
            line.push(' ');
            line.push_str(&d);
        }
    }
    line
}

/// The broken case `n` (spec §17.6) in each format: the case, the
/// reference repair and the checker's verdicts on it and on two wrong
/// outputs.
fn repair_line(n: u64) -> String {
    let mut line = format!("repair/{SEED}/{n}");
    for format in FORMATS {
        let g = seeded_case(SEED, n, &Config::for_repair(format));
        let mut rec = Record::default();
        rec.put("messages", json(&g.messages));
        rec.put("budget", g.budget);
        let breaks: Vec<&str> = g.breaks.iter().map(|b| b.name()).collect();
        rec.put("breaks", breaks.join(","));
        let budget = BudgetFields::messages(Value::from(g.budget));
        match wire(format, &g.messages) {
            Ok(w) => judge_policy(&mut rec, Policy::Repair, format, &budget, &w),
            Err(e) => rec.put("skip", e),
        }
        line.push(' ');
        line.push_str(&rec.digest());
    }
    line
}

fn corpus_line(file: &Path, case: &Case) -> String {
    let mut rec = Record::default();
    match regenerate(case) {
        Ok(c) => rec.put("regenerated", c.to_pretty_json()),
        Err(e) => rec.put("regenerate error", e),
    }
    let text = serde_json::to_string(case).unwrap();
    match import(text.as_bytes(), file, None, None) {
        Ok(imported) => {
            for i in imported {
                rec.put("imported", i.case.to_pretty_json());
            }
        }
        Err(e) => rec.put("import error", e),
    }
    for policy in Policy::ALL {
        let cx = Counterexample {
            clause: Clause::NoOrphanResult,
            original_id: case.id.clone(),
            case: from_case(case.clone()),
            detail: "golden".into(),
            expected: Response::Messages(Vec::new()),
            actual: None,
            first_difference: None,
            tries: 0,
            cases: 1,
            valid_input: true,
            out_of_time: false,
            shrunk: false,
            saved_to: None,
        };
        rec.put("counterexample", cx.to_case(policy).to_pretty_json());
    }
    let sig: Vec<String> = signature(case)
        .iter()
        .map(|(c, s)| format!("{c}/{s}"))
        .collect();
    rec.put("signature", sig.join(","));
    let mut line = case.id.clone();
    for format in FORMATS {
        line.push(' ');
        line.push_str(&column(
            format,
            &case.budget_fields(),
            &case.messages,
            &rec,
            true,
        ));
    }
    line
}

fn tau_bench_lines() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/tau-bench/sample.jsonl");
    let entries = reducer_kit::input::read_entries(path.to_str().unwrap()).unwrap();
    entries
        .iter()
        .map(|e| {
            let canonical = reducer_kit::formats::openai::from_openai(&e.messages).unwrap();
            let mut line = format!("tau-bench/{}", e.origin.line.unwrap_or(0));
            for format in FORMATS {
                let mut rec = Record::default();
                let carried = match format {
                    Format::OpenAi => Ok(e.messages.clone()),
                    f => wire(f, &canonical),
                };
                match carried {
                    Ok(w) => {
                        rec.put("wire", json(&w));
                        for budget in [1, 3, 8, 1000] {
                            let max = Value::from(budget);
                            for policy in Policy::ALL {
                                let out = match Reference::new(policy, format)
                                    .reduce(Input::new(&w).max_messages(&max))
                                    .map(|s| s.messages())
                                {
                                    Ok(m) => json(&m),
                                    Err(e) => e.to_string(),
                                };
                                rec.put(&format!("{policy} {budget}"), out);
                            }
                        }
                    }
                    Err(e) => rec.put("skip", e),
                }
                line.push(' ');
                line.push_str(&rec.digest());
            }
            line
        })
        .collect()
}

fn fuzz_lines() -> Vec<String> {
    FUZZ_TARGETS
        .iter()
        .map(|t| {
            let mut rec = Record::default();
            for s in fuzz_seeds(t, 1, 8) {
                rec.put("seed", Value::from(s));
            }
            rec.put("describe", describe_target(t, &[7; 300]));
            format!("fuzz/{t} {}", rec.digest())
        })
        .collect()
}

/// Every line of the record, in file order (the generated cases computed
/// on every core).
fn record() -> Vec<String> {
    let corpus_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let cases: Vec<_> = ["seed", "spec"]
        .iter()
        .flat_map(|d| load_dir(&corpus_dir.join(d)).unwrap())
        .collect();
    let corpus: Vec<String> = cases.iter().map(|(f, c)| corpus_line(f, c)).collect();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let mut generated: Vec<String> = vec![String::new(); GENERATED as usize];
    std::thread::scope(|s| {
        let parts: Vec<_> = (0..workers)
            .map(|w| {
                s.spawn(move || {
                    (w..GENERATED)
                        .step_by(workers as usize)
                        .map(|n| (n, generated_line(n)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for p in parts {
            for (n, line) in p.join().expect("no panic") {
                generated[n as usize] = line;
            }
        }
    });
    let mut out = vec![
        "# golden record of reducer-kit outputs; see tests/it/golden.rs".to_string(),
        format!("# gen/{SEED}/<n>: certify-canonical certify-openai certify-anthropic generate-canonical generate-openai generate-anthropic"),
        "# corpus cases and tau-bench/<line>: canonical openai anthropic".to_string(),
        "# fuzz/<target>: seeds and describe".to_string(),
        format!("# repair/{SEED}/<n>: canonical openai anthropic"),
    ];
    out.extend(corpus);
    out.extend(tau_bench_lines());
    out.extend(fuzz_lines());
    out.extend(generated);
    out.extend((0..BROKEN).map(repair_line));
    out
}

#[test]
fn outputs_match_the_golden_record() {
    let now = record();
    let path = golden_path();
    if std::env::var_os("GOLDEN_WRITE").is_some() {
        let mut text = now.join("\n");
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        return;
    }
    let stored = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (write it with GOLDEN_WRITE=1)", path.display()));
    let stored: Vec<&str> = stored.lines().collect();
    let columns = |id: &str| -> Vec<&'static str> {
        if id.starts_with("gen/") {
            vec![
                "certify-canonical",
                "certify-openai",
                "certify-anthropic",
                "generate-canonical",
                "generate-openai",
                "generate-anthropic",
            ]
        } else if id.starts_with("fuzz/") {
            vec!["seeds and describe"]
        } else {
            vec!["canonical", "openai", "anthropic"]
        }
    };
    for (i, (want, got)) in stored.iter().zip(&now).enumerate() {
        if want == got {
            continue;
        }
        let (w, g): (Vec<&str>, Vec<&str>) = (want.split(' ').collect(), got.split(' ').collect());
        let id = g.first().copied().unwrap_or("");
        let moved: Vec<&str> = columns(id)
            .into_iter()
            .enumerate()
            .filter(|(k, _)| w.get(k + 1) != g.get(k + 1))
            .map(|(_, name)| name)
            .collect();
        panic!(
            "line {}: case {id} differs from the golden record (columns: {}; stored {:?})",
            i + 1,
            moved.join(", "),
            want
        );
    }
    assert_eq!(
        stored.len(),
        now.len(),
        "the record has {} lines, the kit now makes {}",
        stored.len(),
        now.len()
    );
}
