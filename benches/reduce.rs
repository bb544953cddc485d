//! Reference reduction and the full check of one case, in messages per
//! second, at 1,000, 10,000, 100,000 and 1,000,000 messages, on the shapes
//! of `benches/README.md` (`benches/shapes/`): `normal` (budget n/2 + 1),
//! `long-turn` (one agent turn over the budget: the overflow-question rule)
//! and, for check, `nothing-matches` (no output message maps). Throughput
//! should stay flat: every step is linear. `values` takes and returns
//! values; `indices` is the selection on a history classified beforehand
//! (`Input::history`); `read_history` is the classification alone. Each has a
//! token-budget twin (`…-tokens`, spec §11): costs 1 to 5 in turn and
//! `maxTokens` three times the message budget, so about as many messages
//! are kept; it should stay within 1.5× of the unit-cost path.
//!
//! `python3 benches/compare_langchain.py` prints the same figures beside
//! LangChain's `trim_messages` in one run.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use reducer_kit::check::{check, extra_requests, Extras, Request};
use reducer_kit::formats::{read_history, Format};
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{Budget, BudgetFields, Policy};
use serde_json::{json, Value};
use std::time::Duration;

#[path = "shapes/mod.rs"]
mod shapes;

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

fn shape(name: &str, n: usize) -> (Vec<Value>, Value) {
    match name {
        "long-turn" => (shapes::long_turn(n), json!(n / 2)),
        _ => (shapes::normal(n), json!(n / 2 + 1)),
    }
}

/// The budgets a shape is run under: its message budget, and a token
/// budget of three tokens a message with costs 1 to 5 in turn.
fn budgets(max: &Value, n: usize) -> [(&'static str, BudgetFields); 2] {
    let limit = max.as_u64().expect("a whole budget") * 3;
    let costs: Vec<Value> = (0..n).map(|i| json!(1 + i % 5)).collect();
    [
        ("", BudgetFields::messages(max.clone())),
        (
            "-tokens",
            BudgetFields::tokens(json!(limit), Value::Array(costs), None),
        ),
    ]
}

fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g
}

fn bench_reduce(c: &mut Criterion) {
    let mut g = group(c, "reduce");
    for n in SIZES {
        g.throughput(Throughput::Elements(n as u64));
        for name in ["normal", "long-turn"] {
            let (h, max) = shape(name, n);
            let history = read_history(Format::Canonical, &h).unwrap();
            for (kind, fields) in budgets(&max, h.len()) {
                let budget = Budget::read(&fields, h.len()).unwrap();
                for policy in Policy::ALL {
                    let reference = Reference::new(policy, Format::Canonical);
                    let id = format!("{name}/{}", policy.name());
                    g.bench_with_input(
                        BenchmarkId::new(format!("values{kind}/{id}"), n),
                        &h,
                        |b, h| {
                            b.iter(|| {
                                reference
                                    .reduce(Input::new(h).budget_fields(&fields))
                                    .unwrap()
                                    .messages()
                            })
                        },
                    );
                    g.bench_with_input(
                        BenchmarkId::new(format!("indices{kind}/{id}"), n),
                        &history,
                        |b, hi| {
                            b.iter(|| {
                                reference
                                    .reduce(Input::history(hi).budget(&budget))
                                    .unwrap()
                            })
                        },
                    );
                }
            }
            g.bench_with_input(
                BenchmarkId::new(format!("read_history/{name}"), n),
                &h,
                |b, h| b.iter(|| read_history(Format::Canonical, h).unwrap()),
            );
        }
    }
    g.finish();
}

fn bench_check(c: &mut Criterion) {
    let mut g = group(c, "check");
    for n in SIZES {
        g.throughput(Throughput::Elements(n as u64));
        for name in ["normal", "long-turn", "nothing-matches"] {
            let (h, max) = shape(name, n);
            for (kind, fields) in budgets(&max, h.len()) {
                for policy in Policy::ALL {
                    let req = Request {
                        format: Format::Canonical,
                        policy,
                        budget: &fields,
                        messages: &h,
                        summary: None,
                        declared: Default::default(),
                        provider: None,
                    };
                    let answer = |fields: &BudgetFields, messages: &[Value]| {
                        Response::from(
                            Reference::new(policy, Format::Canonical)
                                .reduce(Input::new(messages).budget_fields(fields)),
                        )
                    };
                    let reference = answer(&fields, &h);
                    let first = match (&reference, name) {
                        (Response::Messages(m), "nothing-matches") => {
                            Response::Messages(shapes::garbled(m))
                        }
                        _ => reference.clone(),
                    };
                    let mut extras = Extras {
                        reference: Some(reference),
                        ..Extras::default()
                    };
                    for extra in extra_requests(&req, &first) {
                        let r = answer(&extra.budget, &extra.messages);
                        extras.record(&extra, r);
                    }
                    g.bench_function(
                        BenchmarkId::new(format!("{name}{kind}/{}", policy.name()), n),
                        |b| b.iter(|| check(&req, &first, &extras).unwrap()),
                    );
                }
            }
        }
    }
    g.finish();
}

criterion_group!(benches, bench_reduce, bench_check);
criterion_main!(benches);
