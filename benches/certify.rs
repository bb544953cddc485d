//! Certification throughput: cases per second against `reducer-kit serve`
//! in per-case and persistent mode, and against the Python example reducer
//! in persistent mode (per-case Python costs a process start per request,
//! about 0.1 s; measure it with `certify` itself, see the closing notes).
//! Each iteration runs 50 generated cases, four requests each.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use reducer_kit::certify::collect::run_cases;
use reducer_kit::certify::generated_case;
use reducer_kit::certify::process::{Limits, Reducer};
use reducer_kit::certify::run::Settings;
use reducer_kit::formats::Format;
use reducer_kit::protocol::Protocol;
use reducer_kit::terms::Policy;
use std::ffi::OsString;
use std::time::Duration;

fn settings(argv: &[&str], persistent: bool) -> Settings {
    Settings {
        reducer: Reducer::new(argv.iter().map(OsString::from).collect()),
        format: Format::Canonical,
        policy: Policy::Turns,
        limits: Limits::default(),
        persistent,
        jobs: 1,
        extra_requests: true,
        provider: None,
        protocol: Protocol::V1,
        summaries: false,
        declared: Default::default(),
        without: Vec::new(),
        outside: Vec::new(),
        sessions: None,
    }
}

fn bench(c: &mut Criterion) {
    let cases: Vec<_> = (0..50)
        .map(|n| generated_case(1, n, Format::Canonical, Protocol::V1))
        .collect();
    let kit = env!("CARGO_BIN_EXE_reducer-kit");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/reducers/turns_reducer.py"
    );
    let mut group = c.benchmark_group("certify");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let runs = [
        ("serve per-case", settings(&[kit, "serve"], false)),
        (
            "serve persistent",
            settings(&[kit, "serve", "--persistent"], true),
        ),
        (
            "python persistent",
            settings(&["python3", "-S", script, "--persistent"], true),
        ),
    ];
    for (name, s) in runs {
        group.bench_function(name, |b| {
            b.iter(|| {
                let run = run_cases(&s, &cases, &|_, _| {}).unwrap();
                assert!(run.records.iter().all(|r| !r.failed()));
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
