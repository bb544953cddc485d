//! What a run keeps of each case (spec §8.8): a compact [`CaseRecord`]
//! (id, budget, size, the outcome of every clause, failure details, the
//! stderr tail of a failing case), stored in [`Records`] outside the heap —
//! encoded in an unnamed temporary file — so that the kit's memory does not
//! grow with the number of cases. The reports read the records back one at
//! a time.

use super::result::{CaseOutcome, CaseResult, RunCase};
use crate::check::{Outcome, Verdict};
use crate::terms::{BudgetFields, Clause};
use serde_json::{json, Value};
#[cfg(feature = "process")]
use std::os::unix::fs::FileExt;

/// Without the feature `process` no records file is made ([`Store::File`]
/// is never built): these are never called.
#[cfg(not(feature = "process"))]
trait FileExt {
    fn write_all_at(&self, buf: &[u8], at: u64) -> std::io::Result<()>;
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()>;
}

#[cfg(not(feature = "process"))]
impl FileExt for std::fs::File {
    fn write_all_at(&self, _: &[u8], _: u64) -> std::io::Result<()> {
        Err(std::io::ErrorKind::Unsupported.into())
    }
    fn read_exact_at(&self, _: &mut [u8], _: u64) -> std::io::Result<()> {
        Err(std::io::ErrorKind::Unsupported.into())
    }
}

/// The longest failure detail a [`CaseRecord`] keeps, in characters; a
/// longer one is cut and ends in `...`.
pub const MAX_DETAIL: usize = 1000;

/// What a run keeps of one case: its id, budget and size, the outcome of
/// every clause, the failure details and the stderr tail of a failing
/// case. Reports render these.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseRecord {
    /// The case id.
    pub id: String,
    /// `maxMessages` as sent (absent for a token budget, spec §13).
    pub max_messages: Option<Value>,
    /// `maxTokens` as sent (protocol 2 only).
    pub max_tokens: Option<Value>,
    /// How many input messages.
    pub messages: usize,
    /// Bit `i` set: clause `Clause::ALL[i]` passed.
    passed: u64,
    /// The failed clauses and what broke, protocol clauses first (each
    /// detail at most [`MAX_DETAIL`] characters).
    pub failures: Vec<(Clause, String)>,
    /// The reducer's stderr tail from the failing request (empty for a
    /// case that passed).
    pub stderr_tail: String,
    /// What happened to the case: skipped (and why), unsupported by the
    /// reducer, or judged on a valid or an invalid input (spec §9.2).
    pub outcome: CaseOutcome,
}

/// How one clause came out for one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judged<'a> {
    /// It holds.
    Pass,
    /// It fails; the detail.
    Fail(&'a str),
    /// Not judged (does not apply, no response, or the case was skipped).
    NotJudged,
}

const _: () = assert!(Clause::ALL.len() <= 64, "CaseRecord::passed is a u64");

/// The bit of `c` in [`CaseRecord::passed`]: its position in
/// [`Clause::ALL`].
pub(crate) fn clause_bit(c: Clause) -> u64 {
    let i = Clause::ALL
        .iter()
        .position(|&k| k == c)
        .expect("every clause is in Clause::ALL");
    1 << i
}

/// `text`, cut after [`MAX_DETAIL`] characters.
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_DETAIL) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

impl CaseRecord {
    /// The compact record of `r`.
    pub fn of(r: &CaseResult) -> CaseRecord {
        CaseRecord::from_parts(&r.case, &r.verdicts, &r.stderr_tail, &r.outcome)
    }

    /// The compact record of a case's result given in parts: the case, its
    /// verdicts, the stderr tail (kept only when a clause failed) and its
    /// outcome.
    pub(crate) fn from_parts(
        case: &RunCase,
        verdicts: &[Verdict],
        stderr_tail: &str,
        outcome: &CaseOutcome,
    ) -> CaseRecord {
        let mut passed = 0;
        let mut failures = Vec::new();
        for v in verdicts {
            match &v.outcome {
                Outcome::Pass => passed |= clause_bit(v.clause),
                Outcome::Fail(d) => failures.push((v.clause, cut(d))),
                Outcome::NotJudged(_) => {}
            }
        }
        let stderr_tail = if failures.is_empty() {
            String::new()
        } else {
            stderr_tail.to_string()
        };
        CaseRecord {
            id: case.id.clone(),
            max_messages: case.budget.max_messages.clone(),
            max_tokens: case.budget.max_tokens.clone(),
            messages: case.messages.len(),
            passed,
            failures,
            stderr_tail,
            outcome: outcome.clone(),
        }
    }

    /// How the budget reads in a report: `maxMessages 3`, `maxTokens 45`
    /// (as [`crate::certify::result::RunCase::budget_text`]).
    pub fn budget_text(&self) -> String {
        let b = BudgetFields {
            max_messages: self.max_messages.clone(),
            max_tokens: self.max_tokens.clone(),
            ..BudgetFields::default()
        };
        b.limit_text()
    }

    /// How `clause` came out.
    pub fn outcome(&self, clause: Clause) -> Judged<'_> {
        if let Some((_, d)) = self.failures.iter().find(|(c, _)| *c == clause) {
            Judged::Fail(d)
        } else if self.passed & clause_bit(clause) != 0 {
            Judged::Pass
        } else {
            Judged::NotJudged
        }
    }

    /// Why the case was not judged ([`CaseOutcome::skipped`]).
    pub fn skipped(&self) -> Option<&str> {
        self.outcome.skipped()
    }

    /// Whether the case's input passes the validator
    /// ([`CaseOutcome::valid_input`]): failures on an input that does not
    /// are robustness, not defects (spec §9.2).
    pub fn valid_input(&self) -> bool {
        self.outcome.valid_input()
    }

    /// Whether some clause failed.
    pub fn failed(&self) -> bool {
        !self.failures.is_empty()
    }

    /// Whether a protocol or safety clause failed on a valid input: a
    /// defect (spec §9.2, §9.3).
    pub fn has_defect(&self) -> bool {
        self.valid_input()
            && self.failures.iter().any(|(c, _)| {
                matches!(
                    c.level(),
                    crate::terms::Level::Protocol | crate::terms::Level::Safety
                )
            })
    }

    /// Whether only clauses of the policy and exact levels failed on a
    /// valid input: the reducer does not implement the claimed policy, a
    /// difference from the policy and no defect (spec §9.3).
    pub fn differs_from_policy(&self) -> bool {
        self.valid_input() && self.failed() && !self.has_defect()
    }

    /// The record as compact JSON: `[id, {maxMessages | maxTokens},
    /// messages, passed, [[clause, detail], ...], stderrTail, skipped,
    /// flags]` (the budget object holds the members the case sent;
    /// skipped: [`CaseOutcome::skipped`]; flags: bit 0 an invalid input,
    /// bit 1 unsupported, bit 2 unreadable).
    fn encode(&self) -> Vec<u8> {
        let failures: Vec<Value> = self
            .failures
            .iter()
            .map(|(c, d)| json!([c.id(), d]))
            .collect();
        let mut budget = serde_json::Map::new();
        if let Some(m) = &self.max_messages {
            budget.insert("maxMessages".into(), m.clone());
        }
        if let Some(t) = &self.max_tokens {
            budget.insert("maxTokens".into(), t.clone());
        }
        let v = json!([
            self.id,
            budget,
            self.messages,
            self.passed,
            failures,
            self.stderr_tail,
            self.outcome.skipped(),
            u8::from(!self.outcome.valid_input())
                | (u8::from(self.outcome.unsupported()) << 1)
                | (u8::from(matches!(self.outcome, CaseOutcome::Unreadable { .. })) << 2)
        ]);
        serde_json::to_vec(&v).expect("a JSON value always serializes")
    }

    /// The record [`CaseRecord::encode`] wrote.
    fn decode(bytes: &[u8]) -> CaseRecord {
        let v: Value = serde_json::from_slice(bytes).expect("records read back as written");
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let flags = v[7].as_u64().unwrap_or(0);
        let valid_input = flags & 1 == 0;
        let outcome = match v[6].as_str().map(str::to_string) {
            None => CaseOutcome::Judged { valid_input },
            Some(reason) if flags & 2 != 0 => CaseOutcome::Unsupported {
                reason,
                valid_input,
            },
            Some(reason) if flags & 4 != 0 => CaseOutcome::Unreadable {
                reason,
                valid_input,
            },
            Some(reason) => CaseOutcome::NotSent(reason),
        };
        CaseRecord {
            id: text(&v[0]),
            max_messages: v[1].get("maxMessages").cloned(),
            max_tokens: v[1].get("maxTokens").cloned(),
            messages: v[2].as_u64().map_or(0, |n| n as usize),
            passed: v[3].as_u64().unwrap_or(0),
            failures: v[4]
                .as_array()
                .map(|f| {
                    f.iter()
                        .filter_map(|p| Some((Clause::from_id(p[0].as_str()?)?, text(&p[1]))))
                        .collect()
                })
                .unwrap_or_default(),
            stderr_tail: text(&v[5]),
            outcome,
        }
    }
}

/// Where encoded records live.
#[derive(Debug)]
enum Store {
    /// An unnamed temporary file (gone when closed): the file, how many
    /// bytes it holds, and the records after those, not written yet (at
    /// most [`FLUSH_AT`] bytes, so that a run does not pay a system call
    /// per case).
    #[cfg_attr(not(feature = "process"), allow(dead_code))]
    File(std::fs::File, u64, Vec<u8>),
    /// Memory, when no temporary file could be made.
    Memory(Vec<u8>),
}

/// How many bytes of records [`Records`] collects before writing them to
/// its file.
const FLUSH_AT: usize = 64 * 1024;

/// The records of a run, in case order, kept encoded outside the heap (in
/// an unnamed temporary file, or in one buffer when none can be made) and
/// read back one at a time.
#[derive(Debug)]
pub struct Records {
    store: Store,
    /// Per case position: where its record is, once it finished.
    spans: Vec<Option<(u64, u32)>>,
}

impl Default for Records {
    fn default() -> Self {
        Records::with_slots(0)
    }
}

impl From<Vec<CaseRecord>> for Records {
    fn from(records: Vec<CaseRecord>) -> Records {
        let mut out = Records::with_slots(records.len());
        for (i, r) in records.iter().enumerate() {
            out.put(i, r);
        }
        out
    }
}

impl Records {
    /// An empty store for `slots` cases.
    pub fn with_slots(slots: usize) -> Records {
        #[cfg(feature = "process")]
        let store = match tempfile::tempfile() {
            Ok(f) => Store::File(f, 0, Vec::new()),
            Err(_) => Store::Memory(Vec::new()),
        };
        // No files without the feature `process` (WebAssembly): in memory.
        #[cfg(not(feature = "process"))]
        let store = Store::Memory(Vec::new());
        Records {
            store,
            spans: vec![None; slots],
        }
    }

    /// Stores the record of the case at position `slot`.
    pub fn put(&mut self, slot: usize, record: &CaseRecord) {
        let bytes = record.encode();
        let len = u32::try_from(bytes.len()).expect("a record is far below 4 GiB");
        let at = match &mut self.store {
            Store::File(_, end, pending) => *end + pending.len() as u64,
            Store::Memory(m) => m.len() as u64,
        };
        match &mut self.store {
            Store::File(_, _, pending) => pending.extend_from_slice(&bytes),
            Store::Memory(m) => m.extend_from_slice(&bytes),
        }
        self.spans[slot] = Some((at, len));
        self.flush(FLUSH_AT);
    }

    /// Writes the pending records to the file once they are `at_least`
    /// bytes. When the file cannot take them (a full disk), every record
    /// moves to memory.
    fn flush(&mut self, at_least: usize) {
        let Store::File(f, end, pending) = &mut self.store else {
            return;
        };
        if pending.is_empty() || pending.len() < at_least {
            return;
        }
        if f.write_all_at(pending, *end).is_ok() {
            *end += pending.len() as u64;
            pending.clear();
            return;
        }
        let mut memory = vec![0u8; *end as usize];
        let _ = f.read_exact_at(&mut memory, 0);
        memory.append(pending);
        self.store = Store::Memory(memory);
    }

    fn read(&self, (at, len): (u64, u32)) -> CaseRecord {
        let in_memory = |m: &[u8], at: u64| {
            let at = usize::try_from(at).expect("records in memory fit in memory");
            CaseRecord::decode(&m[at..at + len as usize])
        };
        match &self.store {
            Store::File(_, end, pending) if at >= *end => in_memory(pending, at - *end),
            Store::File(f, _, _) => {
                let mut bytes = vec![0u8; len as usize];
                f.read_exact_at(&mut bytes, at)
                    .expect("the records file reads back");
                CaseRecord::decode(&bytes)
            }
            Store::Memory(m) => in_memory(m, at),
        }
    }

    /// How many cases have a record.
    pub fn len(&self) -> usize {
        self.spans.iter().flatten().count()
    }

    /// Whether no case has a record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The records, in case order (cases that did not finish are left out).
    pub fn iter(&self) -> impl Iterator<Item = CaseRecord> + '_ {
        self.spans.iter().flatten().map(|&s| self.read(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::result::RunCase;
    use crate::check::Verdict;

    fn result(id: &str, verdicts: Vec<Verdict>) -> CaseResult {
        CaseResult {
            case: RunCase::with_max_messages(
                id.into(),
                serde_json::from_str("1e400").unwrap(),
                vec![Value::Null; 3],
            ),
            took: std::time::Duration::ZERO,
            response: None,
            verdicts,
            stderr_tail: "tail\n".into(),
            outcome: CaseOutcome::Judged { valid_input: true },
            last_request: None,
        }
    }

    #[test]
    fn a_record_keeps_outcomes_and_cuts_long_details() {
        let r = result(
            "a/b",
            vec![
                Verdict {
                    clause: Clause::ProtocolJson,
                    outcome: Outcome::Pass,
                },
                Verdict {
                    clause: Clause::Budget,
                    outcome: Outcome::Fail("x".repeat(MAX_DETAIL + 5)),
                },
                Verdict {
                    clause: Clause::Deterministic,
                    outcome: Outcome::NotJudged("why".into()),
                },
            ],
        );
        let record = CaseRecord::of(&r);
        assert_eq!(record.outcome(Clause::ProtocolJson), Judged::Pass);
        assert_eq!(
            record.outcome(Clause::Budget),
            Judged::Fail(&format!("{}...", "x".repeat(MAX_DETAIL)))
        );
        assert_eq!(record.outcome(Clause::Deterministic), Judged::NotJudged);
        assert_eq!(record.outcome(Clause::ProtocolCrash), Judged::NotJudged);
        assert_eq!(record.messages, 3);
        assert_eq!(record.stderr_tail, "tail\n");
        assert_eq!(CaseRecord::decode(&record.encode()), record);
    }

    #[test]
    fn records_read_back_in_case_order_without_the_unfinished() {
        let pass = |id: &str| {
            CaseRecord::of(&result(
                id,
                vec![Verdict {
                    clause: Clause::Budget,
                    outcome: Outcome::Pass,
                }],
            ))
        };
        let mut skipped = pass("s/3");
        skipped.outcome = CaseOutcome::NotSent("no OpenAI form: message 0: \u{1b}".into());
        let mut records = Records::with_slots(5);
        records.put(3, &skipped);
        records.put(0, &pass("p/0"));
        records.put(1, &pass("p/1"));
        let back: Vec<CaseRecord> = records.iter().collect();
        assert_eq!(back, vec![pass("p/0"), pass("p/1"), skipped]);
        assert_eq!(back[0].stderr_tail, "");
        assert_eq!(records.len(), 3);
        let again = Records::from(back.clone());
        assert_eq!(again.iter().collect::<Vec<_>>(), back);
    }

    #[test]
    fn records_read_back_from_the_file_and_from_the_unwritten_rest() {
        let failing = |i: usize| {
            CaseRecord::of(&result(
                &format!("f/{i}"),
                vec![Verdict {
                    clause: Clause::Budget,
                    outcome: Outcome::Fail(format!("{i} ").repeat(100)),
                }],
            ))
        };
        // ~400 bytes each: the first ~160 are written to the file, the
        // rest wait in memory.
        let n = 200;
        let mut records = Records::with_slots(n);
        for i in (0..n).rev() {
            records.put(i, &failing(i));
        }
        assert!(matches!(&records.store, Store::File(_, end, pending)
            if *end >= FLUSH_AT as u64 && !pending.is_empty()));
        let back: Vec<CaseRecord> = records.iter().collect();
        assert_eq!(back.len(), n);
        for (i, r) in back.iter().enumerate() {
            assert_eq!(r, &failing(i));
            assert_eq!(r.id, format!("f/{i}"));
        }
    }
}
