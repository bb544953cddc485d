//! `corpus seed-fuzz`: seed inputs for every fuzz target, from the
//! generator, the same for the same seed on every machine.

use crate::case::file::{render, Layout, Style};
use crate::generate::{shapes_with, Config, Shape};
use crate::terms::{Budget, Policy};
use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::collections::BTreeSet;

/// SHA-256.
pub fn seed_name(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The candidate byte buffer `n` for `target` under `seed`: ChaCha8 seeded
/// with `seed`, on a stream made of the target's position in
/// [`crate::fuzzers::TARGETS`] and `n`, 256 to 2,048 bytes (as
/// [`crate::generate::seeded_case`] makes its buffers, a little smaller).
fn candidate(seed: u64, target: usize, n: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(((target as u64) << 40) | n);
    let len = 256usize << (rng.next_u32() % 4);
    let mut buf = vec![0u8; len];
    rng.fill_bytes(&mut buf);
    buf
}

/// `count` seed inputs for fuzz target `target`, the same for the same
/// `seed` on every machine.
///
/// - Targets whose input is the generator's bytes (every target with
///   [`crate::fuzzers::Target::carried`]): byte buffers, chosen among
///   candidates (see [`crate::generate::seeded_case`]) so that each one's
///   history, as the target reads it, shows a [`Shape`] the earlier seeds
///   do not; then the next non-empty histories. Each is cut to the
///   prefix the target makes the same case of
///   ([`crate::fuzzers::trimmed_len`]): the generator leaves most of a
///   candidate's bytes unread.
/// - `parse_no_panic` (JSON input): JSON texts in turn: a generated
///   history, a request, a case file, an OpenAI history.
///
/// # Panics
///
/// For a target not in [`crate::fuzzers::TARGETS`].
pub fn fuzz_seeds(target: &str, seed: u64, count: usize) -> Vec<Vec<u8>> {
    let index = crate::fuzzers::TARGETS
        .iter()
        .position(|t| *t == target)
        .unwrap_or_else(|| panic!("unknown fuzz target {target:?}"));
    let Some(carried) = crate::fuzzers::TABLE[index].carried else {
        return json_seeds(seed, count);
    };
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut seen: BTreeSet<Shape> = BTreeSet::new();
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let tries = (count as u64).saturating_mul(40).max(64);
    for n in 0..tries {
        if out.len() >= count {
            break;
        }
        let buf = candidate(seed, index, n);
        let Ok(c) = carried(&mut Unstructured::new(&buf)) else {
            continue;
        };
        if c.messages.is_empty() {
            continue;
        }
        let budget = Budget::read(&c.budget, c.messages.len()).ok();
        let s = shapes_with(&c.messages, budget.as_ref());
        if s.iter().any(|x| !seen.contains(x)) {
            seen.extend(s);
            out.push(buf);
        } else if spare.len() < count {
            spare.push(buf);
        }
    }
    let missing = count.saturating_sub(out.len());
    out.extend(spare.into_iter().take(missing));
    for buf in &mut out {
        buf.truncate(crate::fuzzers::trimmed_len(target, buf));
    }
    out
}

fn json_seeds(seed: u64, count: usize) -> Vec<Vec<u8>> {
    let small = Config {
        large_payloads: false,
        ..Config::everything()
    };
    let openai = Config {
        large_payloads: false,
        ..Config::for_openai()
    };
    (0..count as u64)
        .map(|n| {
            let text = match n % 4 {
                0 => {
                    let g = crate::generate::seeded_case(seed, n, &small);
                    Value::Array(g.messages).to_string()
                }
                1 => {
                    let g = crate::generate::seeded_case(seed, n, &small);
                    serde_json::json!({"maxMessages": g.budget, "messages": g.messages}).to_string()
                }
                2 => {
                    let g = crate::generate::seeded_case(seed, n, &small);
                    let case = g.to_case(format!("fuzz/seed-{seed}-{n}"), Policy::Turns);
                    render(&[case], Layout::Single, Style::Corpus)
                }
                _ => {
                    let g = crate::generate::seeded_case(seed, n, &openai);
                    match crate::formats::openai::to_openai(&g.messages) {
                        Ok(m) => Value::Array(m).to_string(),
                        Err(_) => Value::Array(g.messages).to_string(),
                    }
                }
            };
            text.into_bytes()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_decode_to_histories_with_new_shapes() {
        for t in crate::fuzzers::TARGETS {
            let a = fuzz_seeds(t, 3, 4);
            assert_eq!(a.len(), 4, "{t}");
            assert_eq!(a, fuzz_seeds(t, 3, 4), "{t}");
            for s in &a {
                crate::fuzzers::run_target(t, s);
                // Cut where the generator stops reading.
                assert_eq!(crate::fuzzers::trimmed_len(t, s), s.len(), "{t}");
            }
            let lens: Vec<usize> = a.iter().map(Vec::len).collect();
            // Candidates have 256 to 2,048 bytes; these are what the decode
            // reads (256: a smallest candidate read to its end).
            match *t {
                "reduce_invariants" => assert_eq!(lens, [191, 104, 63, 136]),
                "checker_convicts" => assert_eq!(lens, [300, 256, 113, 144]),
                _ => {}
            }
        }
    }
}
