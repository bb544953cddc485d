//! Runs a fuzz target (`reducer_kit::fuzzers`) in a loop, without libFuzzer,
//! to profile it or to time it where cargo-fuzz is missing: over the
//! committed seeds in `corpus/fuzz/<target>/` (or, with `--corpus DIR`,
//! the files in `DIR`: a corpus a libFuzzer run grew, say) and over random
//! byte buffers of their sizes and the inputs with four bytes changed (a
//! stand-in for libFuzzer's mutations), for `--secs S` seconds (default
//! 10), then prints executions per second (a run that panics counts, and
//! is counted). Instead, with `--stats`: for each input and 19 random
//! buffers of its size, the history the target carries (messages, bytes
//! of compact JSON) and the mean time of one execution; with `--replay`:
//! each input alone, 5 times, summed by input length (inputs, their
//! histories' mean size, the mean time of an execution, the share of the
//! time); with `--rounds N`: exactly N rounds over the inputs (each input,
//! a random buffer of its size, the input lightly changed), the same
//! inputs on every run: a fixed workload for `valgrind --tool=callgrind`,
//! whose instruction count does not depend on the machine's load.
//!
//! ```sh
//! cargo run --release --example fuzz_loop -- reduce_invariants --secs 10
//! cargo run --release --example fuzz_loop -- reduce_invariants --stats
//! cargo run --release --example fuzz_loop -- reduce_invariants --corpus fuzz/corpus/reduce_invariants --replay
//! perf record -g target/release/examples/fuzz_loop checker_convicts --secs 20
//! valgrind --tool=callgrind target/release/examples/fuzz_loop reduce_invariants --rounds 20
//! ```

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reducer_kit::fuzzers::run_target;
use std::path::PathBuf;

/// The fuzz targets' allocator (`fuzz/Cargo.toml`).
#[cfg(target_os = "linux")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let target = args.next().expect("usage: fuzz_loop TARGET [--secs S]");
    let mut secs = 10.0;
    let mut stats = false;
    let mut rounds: Option<u64> = None;
    let mut corpus: Option<PathBuf> = None;
    let mut replay = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--corpus" => corpus = Some(args.next().expect("--corpus DIR").into()),
            "--replay" => replay = true,
            "--secs" => secs = args.next().and_then(|s| s.parse().ok()).expect("--secs S"),
            "--stats" => stats = true,
            "--rounds" => rounds = args.next().and_then(|s| s.parse().ok()),
            other => panic!("unknown argument {other:?}"),
        }
    }
    let dir = corpus.unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/fuzz")
            .join(&target)
    });
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    seeds.sort();
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    if replay {
        replay_by_length(&target, &seeds);
        return;
    }
    if stats {
        let t = reducer_kit::fuzzers::target(&target).expect("a target");
        let carried = t.carried.expect("a target that carries a history");
        let mut buf = Vec::new();
        for s in &seeds {
            for k in 0..20 {
                buf.clone_from(s);
                if k > 0 {
                    rng.fill_bytes(&mut buf);
                }
                let c = carried(&mut arbitrary::Unstructured::new(&buf)).unwrap();
                let bytes = serde_json::to_string(&c.messages).unwrap().len();
                let t0 = Instant::now();
                for _ in 0..20 {
                    run_target(&target, &buf);
                }
                let us = t0.elapsed().as_secs_f64() * 1e6 / 20.0;
                println!(
                    "seed len {} -> {} messages, {} bytes, {us:.0} us",
                    s.len(),
                    c.messages.len(),
                    bytes
                );
            }
        }
        return;
    }
    let limit = Duration::from_secs_f64(secs);
    let start = Instant::now();
    let (mut runs, mut seed_runs) = (0u64, 0u64);
    let mut buf = Vec::new();
    // A panic (a bug the target found) is counted, its message printed
    // once, and the loop goes on.
    let default_hook = std::panic::take_hook();
    let printed = std::sync::atomic::AtomicBool::new(false);
    std::panic::set_hook(Box::new(move |info| {
        if !printed.swap(true, std::sync::atomic::Ordering::Relaxed) {
            default_hook(info);
        }
    }));
    let mut panics = 0u64;
    let mut one = |bytes: &[u8]| {
        let r = std::panic::catch_unwind(|| run_target(&target, bytes));
        panics += u64::from(r.is_err());
    };
    let mut round = 0u64;
    while rounds.map_or(start.elapsed() < limit, |n| round < n) {
        round += 1;
        for s in &seeds {
            one(s);
            seed_runs += 1;
            // A random buffer of the seed's size, and the seed with a few
            // bytes changed.
            buf.resize(s.len(), 0);
            rng.fill_bytes(&mut buf);
            one(&buf);
            buf.copy_from_slice(s);
            for _ in 0..4 {
                let i = rng.next_u32() as usize % buf.len().max(1);
                if let Some(b) = buf.get_mut(i) {
                    *b = rng.next_u32() as u8;
                }
            }
            one(&buf);
            runs += 3;
        }
    }
    let t = start.elapsed().as_secs_f64();
    println!(
        "{target}: {runs} runs ({seed_runs} of seeds, {panics} panicked) in {t:.1} s: {:.0} exec/s",
        runs as f64 / t
    );
}

/// `--replay`: each input of the set 5 times in a row, its mean time and
/// its history's size, summed by input length: where a corpus's
/// executions spend their time. An input that panics (a bug found) is
/// counted apart and left out of the table.
fn replay_by_length(target: &str, inputs: &[Vec<u8>]) {
    if inputs.is_empty() {
        println!("no inputs");
        return;
    }
    std::panic::set_hook(Box::new(|_| {}));
    let mut panicked = 0u64;
    let t = reducer_kit::fuzzers::target(target).expect("a target");
    let carried = t.carried;
    // Length bucket (upper bound, bytes) -> (inputs, messages, bytes of
    // compact JSON, microseconds).
    let bounds = [64usize, 128, 256, 512, 1024, 2048, usize::MAX];
    let mut rows = vec![(0u64, 0u64, 0u64, 0f64); bounds.len()];
    for input in inputs {
        let b = bounds.iter().position(|&m| input.len() <= m).unwrap();
        let (msgs, bytes) = match carried {
            Some(c) => match c(&mut arbitrary::Unstructured::new(input)) {
                Ok(h) => (
                    h.messages.len() as u64,
                    serde_json::to_string(&h.messages).unwrap().len() as u64,
                ),
                Err(_) => (0, 0),
            },
            None => (0, 0),
        };
        let t0 = Instant::now();
        if (0..5).any(|_| std::panic::catch_unwind(|| run_target(target, input)).is_err()) {
            panicked += 1;
            continue;
        }
        let us = t0.elapsed().as_secs_f64() * 1e6 / 5.0;
        let r = &mut rows[b];
        r.0 += 1;
        r.1 += msgs;
        r.2 += bytes;
        r.3 += us;
    }
    let total: f64 = rows.iter().map(|r| r.3).sum();
    let n: u64 = rows.iter().map(|r| r.0).sum();
    if panicked > 0 {
        println!("{panicked} inputs panicked (left out)");
    }
    if n == 0 {
        return;
    }
    println!("| input length <= | inputs | messages (mean) | JSON bytes (mean) | us per execution (mean) | share of the time |");
    println!("|---|---|---|---|---|---|");
    for (b, r) in bounds.iter().zip(&rows) {
        if r.0 == 0 {
            continue;
        }
        let k = r.0 as f64;
        println!(
            "| {} | {} | {:.1} | {:.0} | {:.1} | {:.0}% |",
            if *b == usize::MAX {
                "more".to_string()
            } else {
                b.to_string()
            },
            r.0,
            r.1 as f64 / k,
            r.2 as f64 / k,
            r.3 / k,
            100.0 * r.3 / total
        );
    }
    println!(
        "{n} inputs, {:.1} us per execution on average",
        total / n as f64
    );
}
