//! The histories of the throughput figures (`benches/README.md`), shared by
//! `benches/reduce.rs` and `examples/throughput.rs` (included with
//! `#[path]`).

use serde_json::{json, Value};

/// The `normal` history of exactly `n` messages.
pub fn normal(n: usize) -> Vec<Value> {
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

/// The `long-turn` history of exactly `n` messages (n ≥ 3): one question,
/// then call / result pairs, ending on an answer.
pub fn long_turn(n: usize) -> Vec<Value> {
    let mut h = vec![
        json!({"role": "system", "contents": [{"$type": "text", "text": "Be brief."}]}),
        json!({"role": "user", "contents": [{"$type": "text", "text": "do everything"}]}),
    ];
    let mut i = 0;
    while h.len() + 2 < n {
        let id = format!("c{i}");
        h.push(json!({"role": "assistant", "contents": [{"$type": "functionCall", "callId": id, "name": "Step", "arguments": {"n": i}}]}));
        h.push(json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": id, "result": "ok"}]}));
        i += 1;
    }
    while h.len() < n {
        h.push(json!({"role": "assistant", "contents": [{"$type": "text", "text": "done"}]}));
    }
    h
}

/// Every message with a member `"x"` added: equal to no input message.
pub fn garbled(out: &[Value]) -> Vec<Value> {
    out.iter()
        .map(|m| {
            let mut m = m.clone();
            if let Some(o) = m.as_object_mut() {
                o.insert("x".into(), json!(1));
            }
            m
        })
        .collect()
}
