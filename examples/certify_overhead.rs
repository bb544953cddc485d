//! The kit's own cost per certify case (at most 100 µs), apart
//! from the reducer's: prints one JSON line per figure.
//!
//! ```sh
//! cargo run --release --example certify_overhead            # 2,000 generated cases
//! cargo run --release --example certify_overhead -- 500
//! cargo run --release --example certify_overhead -- 500 serve   # the run against serve --persistent only
//! ```
//!
//! (`serve` leaves out the in-process figures, so that a profiler or
//! `valgrind --tool=callgrind` pointed at the example sees the kit's side
//! of the run against `serve --persistent` and the cases' making alone.)
//!
//! - `in_process_us`: `run_case` against the in-process reference session
//!   (every request and the checking, no process), per case;
//! - `reference_us`: the reference session's answers alone (the same
//!   requests, given as request objects), per case: the reducer's share of
//!   `in_process_us`;
//! - `kit_overhead_us`: the difference: wire conversion, requests, the
//!   reference answer for `matches-reference`, the extra requests and the
//!   checker;
//! - `serve_persistent_us`: `run_cases` with `--jobs 1` against
//!   `reducer-kit serve --persistent` (the binary must be built: `cargo
//!   build --release`), per case, wall time: kit, pipes and the child;
//! - `serve_kit_cpu_us`: the kit process's own CPU time (user and system,
//!   every thread, the child's not counted: `getrusage(RUSAGE_SELF)`) in
//!   that run, per case: the kit's overhead against a persistent reducer,
//!   writing the requests and reading the answers included
//!   (`serve_kit_user_us`, `serve_kit_system_us`: its two parts).

use reducer_kit::certify::collect::run_cases;
use reducer_kit::certify::generated_case;
use reducer_kit::certify::process::{Limits, Reducer};
use reducer_kit::certify::run::{run_case, RunCase, Settings};
use reducer_kit::certify::session::ReferenceSession;
use reducer_kit::check::extra_requests;
use reducer_kit::formats::{to_wire, Format};
use reducer_kit::protocol::{request, Protocol};
use reducer_kit::terms::Policy;
use serde_json::json;
use std::ffi::OsString;
use std::time::Instant;

/// The command line's allocator (`src/main.rs`), so that the kit's cost
/// here is the command line's.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// This process's CPU time (all threads), in seconds: user, system.
fn self_cpu_secs() -> (f64, f64) {
    // SAFETY: `usage` is a valid, writable rusage for the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(rc, 0, "getrusage");
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    (t(usage.ru_utime), t(usage.ru_stime))
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .map_or(2_000, |s| s.parse().expect("a number of cases"));
    let serve_only = match std::env::args().nth(2).as_deref() {
        None => false,
        Some("serve") => true,
        Some(other) => panic!("the second argument can only be `serve`, not {other:?}"),
    };
    let format = Format::Canonical;
    let policy = Policy::Turns;
    let cases: Vec<RunCase> = (0..n)
        .map(|i| generated_case(1, i, format, Protocol::V1))
        .collect();
    let mut settings = Settings {
        reducer: Reducer::new(Vec::new()),
        format,
        policy,
        limits: Limits::default(),
        persistent: true,
        jobs: 1,
        extra_requests: true,
        provider: None,
        protocol: Protocol::V1,
        summaries: false,
        declared: Default::default(),
        without: Vec::new(),
        // What a run of the format leaves out (spec §9.5): each case is
        // looked at for those shapes, as in a real run.
        outside: reducer_kit::generate::knob::outside(format, None),
        sessions: None,
    };
    let mut reference = ReferenceSession {
        policy,
        format,
        provider: None,
        protocol: Protocol::V1,
    };

    // The requests the runner sends, built beforehand.
    let mut requests = Vec::new();
    for case in &cases {
        let wire = to_wire(format, &case.messages).unwrap();
        let first = reference.respond(&request(format, &case.budget, None, &wire));
        requests.push(request(format, &case.budget, None, &wire));
        let req = reducer_kit::check::Request {
            format,
            policy,
            budget: &case.budget,
            messages: &wire,
            summary: None,
            declared: Default::default(),
            provider: None,
        };
        for extra in extra_requests(&req, &first) {
            requests.push(request(format, &extra.budget, None, &extra.messages));
        }
    }
    let best = |f: &mut dyn FnMut()| {
        (0..3)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let per = |secs: f64| secs * 1e6 / n as f64;
    if !serve_only {
        let answers = best(&mut || {
            for r in &requests {
                std::hint::black_box(reference.respond(r));
            }
        });
        let in_process = best(&mut || {
            for case in &cases {
                std::hint::black_box(run_case(&mut reference, &settings, case).unwrap());
            }
        });
        println!(
            "{}",
            json!({"cases": n, "in_process_us": per(in_process), "reference_us": per(answers), "kit_overhead_us": per(in_process - answers)})
        );
    }

    let kit = concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/reducer-kit");
    if std::path::Path::new(kit).exists() {
        settings.reducer.argv = [kit, "serve", "--persistent"]
            .iter()
            .map(OsString::from)
            .collect();
        let mut kit_cpu = (f64::INFINITY, 0.0, 0.0);
        let serve = best(&mut || {
            let (u, s) = self_cpu_secs();
            std::hint::black_box(run_cases(&settings, &cases, &|_, _| {}).unwrap());
            let (u2, s2) = self_cpu_secs();
            if u2 - u + s2 - s < kit_cpu.0 {
                kit_cpu = (u2 - u + s2 - s, u2 - u, s2 - s);
            }
        });
        println!(
            "{}",
            json!({"cases": n, "serve_persistent_us": per(serve), "serve_kit_cpu_us": per(kit_cpu.0),
                   "serve_kit_user_us": per(kit_cpu.1), "serve_kit_system_us": per(kit_cpu.2)})
        );
    }
}
