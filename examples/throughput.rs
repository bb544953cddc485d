//! Throughput of the reference reducers and of the checker, in process, on
//! the histories of `benches/README.md`: prints one JSON object per line
//! (`{"op", "shape", "policy", "n", "secs", "msgs_per_s", "ns_per_msg"}`),
//! for `benches/compare_langchain.py` and for the README's tables.
//!
//! ```sh
//! cargo run --release --example throughput                 # every figure
//! cargo run --release --example throughput -- --sizes 1000,10000 --ops reduce,indices
//! cargo run --release --example throughput -- --dump 1000  # the history, as JSON
//! cargo run --release --example throughput -- --tokens     # token budgets (spec §11)
//! ```
//!
//! With `--tokens` every budget is a token budget: costs 1 to 5 in turn,
//! `maxTokens` three times the message budget (about as many messages
//! kept), to compare with the unit-cost figures (within 1.5×).
//!
//! Shapes (all canonical, all valid):
//! - `normal`: a system message, then turns of user question, assistant
//!   call, tool result, assistant answer; budget n/2 + 1.
//! - `long-turn`: a system message, one user question, then one agent turn
//!   of call / result pairs (the newest turn alone is over the budget, so
//!   the overflow-question rule applies); budget n/2.
//! - `nothing-matches` (check only): the `normal` history judged against its
//!   reference output with every message's text changed, so that no output
//!   message maps to an input message.
//!
//! Ops: `reduce` (values in, values out), `indices` (the reference's
//! selection on a history classified beforehand, `Input::history`,
//! reported as op `reduce_indices`, and `read_history`, the classification
//! alone), `check` (every clause, every extra response precomputed: the
//! input and answers read inside the call), `prepared` (`check_prepared`:
//! the same verdicts on the input and the answers read beforehand with
//! `PreparedInput` and `PreparedAnswers` — classified, and written as
//! canonical texts — as the selection is timed on a classified history;
//! reported as op `check_prepared`, and the reading alone as op
//! `check_read`).
//! Timing covers the call only; the input is parsed beforehand. Each figure is the
//! best of several runs (at least 3, or as many as fit in one second).
//! With `--cpu` each run is timed by the calling thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`) instead of the wall clock, so that other
//! processes on a shared machine do not count (the `"clock"` member says
//! which).
//! With `--runs N` each figure is the best of exactly N runs (`--runs 1`
//! under `valgrind --tool=callgrind --toggle-collect=...` counts the
//! instructions of one call, whatever the machine's load).
//! Sizes whose predicted time exceeds `--limit SECS` (default 120, from the
//! previous size's time times 15) are skipped with a `"skipped"` line.

use reducer_kit::check::{
    check, check_prepared, extra_requests, Extras, PreparedAnswers, PreparedInput, Request,
};
use reducer_kit::formats::{read_history, Format};
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{Budget, BudgetFields, Policy};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[path = "../benches/shapes/mod.rs"]
mod shapes;
use shapes::{garbled, long_turn, normal};

/// Whether runs are timed by the thread's CPU time (`--cpu`).
static CPU_CLOCK: AtomicBool = AtomicBool::new(false);

/// The calling thread's CPU time in seconds.
#[cfg(unix)]
fn thread_cpu_secs() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

#[cfg(not(unix))]
fn thread_cpu_secs() -> f64 {
    panic!("--cpu needs a Unix thread CPU clock")
}

/// Times one call of `f`, in seconds, by the clock chosen.
fn time_one(f: &mut impl FnMut()) -> f64 {
    if CPU_CLOCK.load(Ordering::Relaxed) {
        let t = thread_cpu_secs();
        f();
        thread_cpu_secs() - t
    } else {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64()
    }
}

/// With `--runs N`: exactly N runs of each figure (for counting
/// instructions, e.g. `--runs 1` under `valgrind --tool=callgrind`).
static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn best_of(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut best = f64::INFINITY;
    let mut runs = 0;
    let exact = RUNS.load(Ordering::Relaxed);
    if exact > 0 {
        for _ in 0..exact {
            best = best.min(time_one(&mut f));
        }
        return best;
    }
    while runs < 3 || (start.elapsed() < Duration::from_secs(1) && runs < 50) {
        best = best.min(time_one(&mut f));
        runs += 1;
        if best > 2.0 {
            break;
        }
    }
    best
}

fn report(op: &str, shape: &str, policy: Policy, n: usize, secs: f64) {
    println!(
        "{}",
        json!({
            "op": op, "shape": shape, "policy": policy.name(), "n": n, "secs": secs,
            "msgs_per_s": n as f64 / secs, "ns_per_msg": secs * 1e9 / n as f64,
            "clock": if CPU_CLOCK.load(Ordering::Relaxed) { "cpu" } else { "wall" },
        })
    );
}

struct Case {
    shape: &'static str,
    messages: Vec<Value>,
    max: Value,
}

/// The budget members of a case: `maxMessages`, or with `tokens` a token
/// budget of costs 1 to 5 in turn and three tokens a message.
fn budget_of(case: &Case, tokens: bool) -> BudgetFields {
    if !tokens {
        return BudgetFields::messages(case.max.clone());
    }
    let limit = case.max.as_u64().expect("a whole budget") * 3;
    let costs: Vec<Value> = (0..case.messages.len()).map(|i| json!(1 + i % 5)).collect();
    BudgetFields::tokens(json!(limit), Value::Array(costs), None)
}

fn cases(n: usize, with_nothing: bool) -> Vec<Case> {
    let mut out = vec![
        Case {
            shape: "normal",
            messages: normal(n),
            max: json!(n / 2 + 1),
        },
        Case {
            shape: "long-turn",
            messages: long_turn(n),
            max: json!(n / 2),
        },
    ];
    if with_nothing {
        out.push(Case {
            shape: "nothing-matches",
            messages: normal(n),
            max: json!(n / 2 + 1),
        });
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if let Some(n) = arg("--dump") {
        let n: usize = n.parse().expect("--dump N");
        println!("{}", Value::Array(normal(n)));
        return;
    }
    let sizes: Vec<usize> = arg("--sizes")
        .unwrap_or_else(|| "1000,10000,100000,1000000".into())
        .split(',')
        .map(|s| s.parse().expect("--sizes N,N,..."))
        .collect();
    let ops = arg("--ops").unwrap_or_else(|| "reduce,indices,check,prepared".into());
    let tokens = args.iter().any(|a| a == "--tokens");
    // `--shapes normal,long-turn`: only those shapes.
    let shapes = arg("--shapes");
    CPU_CLOCK.store(args.iter().any(|a| a == "--cpu"), Ordering::Relaxed);
    RUNS.store(
        arg("--runs").map_or(0, |s| s.parse().expect("--runs N")),
        Ordering::Relaxed,
    );
    let limit: f64 = arg("--limit").map_or(120.0, |s| s.parse().expect("--limit SECS"));
    let format = Format::Canonical;
    // Previous time per (op, shape, policy), to skip sizes that would take too long.
    let mut last: std::collections::HashMap<String, f64> = Default::default();
    let mut skip = |key: String, n: usize, secs: Option<f64>| -> bool {
        match secs {
            Some(s) => {
                last.insert(key, s);
                false
            }
            None => {
                let too_long = last.get(&key).is_some_and(|s| s * 15.0 > limit);
                if too_long {
                    println!(
                        "{}",
                        json!({"skipped": key, "n": n, "reason": format!("predicted over {limit} s")})
                    );
                }
                too_long
            }
        }
    };
    for &n in &sizes {
        let checks = ops.contains("check") || ops.contains("prepared");
        for case in cases(n, checks) {
            if shapes
                .as_ref()
                .is_some_and(|s| !s.split(',').any(|x| x == case.shape))
            {
                continue;
            }
            let fields = budget_of(&case, tokens);
            for policy in Policy::ALL {
                if ops.contains("reduce") && case.shape != "nothing-matches" {
                    let key = format!("reduce/{}/{}", case.shape, policy.name());
                    if !skip(key.clone(), n, None) {
                        let reference = Reference::new(policy, format);
                        let secs = best_of(|| {
                            let out = reference
                                .reduce(Input::new(&case.messages).budget_fields(&fields))
                                .unwrap()
                                .messages();
                            std::hint::black_box(out);
                        });
                        report("reduce", case.shape, policy, n, secs);
                        skip(key, n, Some(secs));
                    }
                }
                if ops.contains("indices") && case.shape != "nothing-matches" {
                    // The selection alone, on a history classified beforehand.
                    let history = read_history(format, &case.messages).unwrap();
                    let budget = Budget::read(&fields, case.messages.len()).unwrap();
                    let reference = Reference::new(policy, format);
                    let secs = best_of(|| {
                        let input = Input::history(&history).budget(&budget);
                        std::hint::black_box(reference.reduce(input).unwrap());
                    });
                    report("reduce_indices", case.shape, policy, n, secs);
                    if policy == Policy::Turns {
                        let secs = best_of(|| {
                            std::hint::black_box(read_history(format, &case.messages).unwrap());
                        });
                        report("read_history", case.shape, policy, n, secs);
                    }
                }
                if checks {
                    let key = format!("check/{}/{}", case.shape, policy.name());
                    if skip(key.clone(), n, None) {
                        continue;
                    }
                    let req = Request {
                        format,
                        policy,
                        budget: &fields,
                        messages: &case.messages,
                        summary: None,
                        declared: Default::default(),
                        provider: None,
                    };
                    let answer = |fields: &BudgetFields, messages: &[Value]| {
                        Response::from(
                            Reference::new(policy, format)
                                .reduce(Input::new(messages).budget_fields(fields)),
                        )
                    };
                    let reference = answer(&fields, &case.messages);
                    let first = match (&reference, case.shape) {
                        (Response::Messages(m), "nothing-matches") => {
                            Response::Messages(garbled(m))
                        }
                        _ => reference.clone(),
                    };
                    let mut extras = Extras {
                        reference: Some(reference),
                        ..Extras::default()
                    };
                    for extra in extra_requests(&req, &first) {
                        let r = if case.shape == "nothing-matches" {
                            first.clone()
                        } else {
                            answer(&extra.budget, &extra.messages)
                        };
                        extras.record(&extra, r);
                    }
                    let mut secs = None;
                    if ops.contains("check") {
                        let s = best_of(|| {
                            let v = check(&req, &first, &extras).unwrap();
                            std::hint::black_box(v);
                        });
                        report("check", case.shape, policy, n, s);
                        secs = Some(s);
                    }
                    if ops.contains("prepared") {
                        let input = PreparedInput::new(&req).unwrap();
                        let answers = PreparedAnswers::new(format, &first, &extras);
                        let s = best_of(|| {
                            let v = check_prepared(&req, &input, &answers);
                            std::hint::black_box(v);
                        });
                        report("check_prepared", case.shape, policy, n, s);
                        let s = best_of(|| {
                            let input = PreparedInput::new(&req).unwrap();
                            let answers = PreparedAnswers::new(format, &first, &extras);
                            std::hint::black_box((input, answers));
                        });
                        report("check_read", case.shape, policy, n, s);
                        secs = secs.or(Some(s));
                    }
                    skip(key, n, secs);
                }
            }
        }
    }
}
