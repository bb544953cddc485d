//! Generator throughput: histories per second (criterion reports
//! elements/s), for the default config, OpenAI's, and with the reference
//! reducer and the case line (what `reducer-kit generate` does per case).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use reducer_kit::generate::{seeded_case, Config};
use reducer_kit::terms::Policy;
use std::hint::black_box;

const BATCH: u64 = 200;

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    group.throughput(Throughput::Elements(BATCH));
    for (name, cfg) in [
        ("default", Config::default()),
        ("everything", Config::everything()),
        ("openai", Config::for_openai()),
    ] {
        group.bench_function(format!("histories/{name}"), |b| {
            b.iter(|| {
                for n in 0..BATCH {
                    black_box(seeded_case(1, n, &cfg));
                }
            })
        });
    }
    let cfg = Config::default();
    group.bench_function("case-lines/default", |b| {
        b.iter(|| {
            for n in 0..BATCH {
                let case = seeded_case(1, n, &cfg).to_case(format!("gen/1/{n}"), Policy::Turns);
                black_box(serde_json::to_string(&case).unwrap());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, generate);
criterion_main!(benches);
