//! Reference reduction and the full check of one case, in messages per
//! second, on histories of 10, 1,000, 100,000 and 1,000,000 messages (the
//! throughput should stay flat: both are linear).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use reducer_kit::check::{check, Extras, Request};
use reducer_kit::formats::Format;
use reducer_kit::protocol::Response;
use reducer_kit::reduce::reduce;
use reducer_kit::terms::Policy;
use serde_json::{json, Value};
use std::time::Duration;

/// A valid history of exactly `n` messages: a system message, then turns of
/// user question, assistant call, tool result, assistant answer.
fn history(n: usize) -> Vec<Value> {
    let mut h =
        vec![json!({"role": "system", "contents": [{"$type": "text", "text": "Be brief."}]})];
    let mut i = 0;
    while h.len() < n {
        let id = format!("c{i}");
        let turn = [
            json!({"role": "user", "contents": [{"$type": "text", "text": format!("question {i}")}]}),
            json!({"role": "assistant", "contents": [{"$type": "functionCall", "callId": id, "name": "Lookup", "arguments": {"n": i}}]}),
            json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": id, "result": "ok"}]}),
            json!({"role": "assistant", "contents": [{"$type": "text", "text": "done"}]}),
        ];
        for m in turn {
            if h.len() < n {
                h.push(m);
            }
        }
        i += 1;
    }
    h
}

fn sizes(c: &mut Criterion, name: &str, mut f: impl FnMut(&[Value], &Value, Policy)) {
    let mut group = c.benchmark_group(name);
    for n in [10usize, 1_000, 100_000, 1_000_000] {
        let h = history(n);
        // Keep about half the history: the work is in the selection, the
        // orphan pass and (for check) the matching of every kept message.
        let max = json!(n / 2 + 1);
        group.throughput(Throughput::Elements(n as u64));
        if n >= 100_000 {
            group
                .sample_size(10)
                .measurement_time(Duration::from_secs(if n >= 1_000_000 { 20 } else { 5 }));
        }
        for policy in Policy::ALL {
            group.bench_with_input(BenchmarkId::new(policy.name(), n), &h, |b, h| {
                b.iter(|| f(h, &max, policy))
            });
        }
    }
    group.finish();
}

fn bench_reduce(c: &mut Criterion) {
    sizes(c, "reduce", |h, max, policy| {
        reduce(policy, Format::Canonical, h, max).unwrap();
    });
}

fn bench_check(c: &mut Criterion) {
    sizes(c, "check", |h, max, policy| {
        let out = Response::Messages(reduce(policy, Format::Canonical, h, max).unwrap());
        let req = Request {
            format: Format::Canonical,
            policy,
            max_messages: max,
            messages: h,
        };
        let extras = Extras {
            reference: Some(out.clone()),
            ..Extras::default()
        };
        let verdicts = check(&req, &out, &extras).unwrap();
        assert!(verdicts.iter().all(|v| !v.failed()));
    });
}

criterion_group!(benches, bench_reduce, bench_check);
criterion_main!(benches);
