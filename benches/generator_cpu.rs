//! The generator's rate by CPU time: histories per CPU second of the
//! thread ([`seeded_case`], and without shape detection as `certify`
//! draws), side by side in one run, for the configurations `certify`
//! generates with (canonical, OpenAI, Responses, repair), and beside
//! writing the same histories as JSON text (`serde_json::to_vec`, what a
//! user who kept a file of histories would pay per history instead).
//!
//! `cargo bench --bench generator_cpu -- [N] [--only NAME]` (N histories
//! per figure, default 20,000; NAME one of the configurations); one JSON
//! line per configuration. No criterion: one run of
//! each, by the thread's CPU clock, so that a loaded machine changes the
//! figures little.

use reducer_kit::certify::{generator_config, generator_config_for};
use reducer_kit::formats::Format;
use reducer_kit::generate::{seeded_case, seeded_case_without_shapes, Config};
use reducer_kit::protocol::Protocol;
use reducer_kit::terms::Policy;
use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

/// The command line's allocator (`src/main.rs`), so that the figures are
/// those of `reducer-kit generate` and `certify`; `--features` changes
/// nothing here.
/// It counts allocations, for the allocations per history.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: Counting<mimalloc::MiMalloc> = Counting(mimalloc::MiMalloc);
#[cfg(not(target_os = "linux"))]
#[global_allocator]
static ALLOCATOR: Counting<std::alloc::System> = Counting(std::alloc::System);

/// Allocations made (and reallocations) since the start.
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// An allocator that counts the calls to `A`.
struct Counting<A>(A);

// SAFETY: every call goes to `A` unchanged.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        self.0.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.0.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        self.0.realloc(ptr, layout, new_size)
    }
}

/// The CPU time of the calling thread, in seconds.
fn cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u64 = args
        .iter()
        .find(|a| a.bytes().all(|b| b.is_ascii_digit()))
        .map_or(20_000, |a| a.parse().expect("N: a count of histories"));
    // `--only NAME`: one configuration (for a profiler).
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    let runs: [(&str, Config); 5] = [
        ("default", Config::default()),
        (
            "canonical",
            generator_config(Format::Canonical, Protocol::V1),
        ),
        ("openai", generator_config(Format::OpenAi, Protocol::V1)),
        (
            "responses",
            generator_config(Format::Responses, Protocol::V1),
        ),
        (
            "repair",
            generator_config_for(Policy::Repair, Format::Canonical, Protocol::V1, &[]),
        ),
    ];
    for (name, cfg) in runs {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        // Each history made and dropped, as `certify` and `generate` do.
        let start = cpu();
        for k in 0..n {
            black_box(seeded_case(1, k, &cfg));
        }
        let generate = cpu() - start;
        // The same without detecting their shapes, as `certify` draws.
        let start = cpu();
        let allocations = ALLOCATIONS.load(Ordering::Relaxed);
        for k in 0..n {
            black_box(seeded_case_without_shapes(1, k, &cfg));
        }
        let no_shapes = cpu() - start;
        let allocations = (ALLOCATIONS.load(Ordering::Relaxed) - allocations) as f64 / n as f64;
        // The same histories written as JSON text, made beforehand.
        let cases: Vec<_> = (0..n).map(|k| seeded_case(1, k, &cfg).messages).collect();
        let start = cpu();
        let mut bytes = 0usize;
        for c in &cases {
            bytes += black_box(serde_json::to_vec(c).unwrap()).len();
        }
        let write = cpu() - start;
        let messages: usize = cases.iter().map(Vec::len).sum();
        println!(
            "{{\"config\":\"{name}\",\"histories\":{n},\"messages\":{messages},\"json_bytes\":{bytes},\
             \"generate_cpu_s\":{generate:.3},\"histories_per_cpu_s\":{:.0},\
             \"without_shapes_per_cpu_s\":{:.0},\"allocations_per_history_without_shapes\":{allocations:.0},\"to_vec_cpu_s\":{write:.3},\
             \"generate_over_to_vec\":{:.2}}}",
            n as f64 / generate,
            n as f64 / no_shapes,
            generate / write
        );
    }
}
