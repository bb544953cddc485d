//! The hints of the text report (`hint: ` lines), judged from the
//! answers: each is given only when the run's answers show it (spec
//! §9.1). The JSON, HTML and JUnit reports take the same lines through
//! [`super::hints`].

use super::*;

impl Report<'_> {
    /// Every hint the answers call for, one `hint: ` line each
    /// ([`hints`]).
    pub(super) fn hints(&mut self) {
        self.format_hint();
        self.results_hint();
        self.pinned_hints();
        self.count_pinned_hint();
        self.protocol_hint();
        self.persistent_hint();
    }

    /// A hint when a per-case run (a process per request, spec §8.2)
    /// spent most of its time starting the reducer: the mean request's
    /// time ([`crate::certify::exchange::Restarts::per_request_time`]) and
    /// the mean time the reducer took to start and exit on no request,
    /// probed between requests under the run's load
    /// ([`crate::certify::exchange::Restarts::startup_time`]), give how
    /// much faster `--persistent` (spec §8.3) would run the cases
    /// ([`persistent_speedup`]), said when at least 2 and at least 20
    /// requests ran. An estimate from below: a process per request costs
    /// more than its start-up (measured on a loaded machine: about 7
    /// times, where `--persistent` ran the same cases 40 times faster).
    fn persistent_hint(&mut self) {
        let r = self.run.restarts;
        if r.per_request < 20 || r.startup_probes == 0 {
            return;
        }
        let startup = r.startup_time / u32::try_from(r.startup_probes).unwrap_or(u32::MAX);
        let Some(speedup) = persistent_speedup(r.per_request, r.per_request_time, startup) else {
            return;
        };
        let mean = r.per_request_time.as_secs_f64() * 1000.0 / r.per_request as f64;
        let start = (startup.as_secs_f64() * 1000.0).min(mean);
        let faster = match speedup {
            Speedup::About(n) => format!("about {n} times faster or more"),
            Speedup::MoreThan(n) => format!("more than {n} times faster"),
        };
        line!(
            self,
            "hint: every request started the reducer anew (per-case mode, spec section 8.2): a request took {mean:.0} ms on average, about {start:.0} ms of it starting the reducer (its time to start and exit on no request). If it can answer one request per line (spec section 8.3), --persistent would run the cases {faster}"
        );
    }

    /// A hint when the answers show a message budget that counts the
    /// pinned system message ([`crate::certify::collect::GroupsAtCut::binding`]):
    /// a clause of the policy or exact level failed; of at least 5 cases
    /// where the budget N binds and the answer keeps the pinned message,
    /// none kept N messages besides it and at least a fifth kept N − 1;
    /// and where the input has no pinned message the reducer kept N in
    /// some case (so the budget is not simply one short). Not said when
    /// `count-pinned` is declared.
    fn count_pinned_hint(&mut self) {
        let [without, with] = self.run.groups_at_cut.binding;
        if self.run.settings.declared.count_pinned
            || with.0 < 5
            || with.2 > 0
            || with.1 * 5 < with.0
            || without.2 == 0
        {
            return;
        }
        let failed = self.run.grade.clauses.iter().any(|(c, t)| {
            t.defects > 0
                && matches!(
                    c.level(),
                    crate::terms::Level::Policy | crate::terms::Level::Exact
                )
        });
        if !failed {
            return;
        }
        line!(
            self,
            "hint: in {} of the {} cases where the budget N binds and the pinned system message is kept, the reducer kept N - 1 messages besides it, and N in none; without a pinned message it keeps N: its budget counts the pinned message. The kit's message budget does not count it (spec section 2); if counting it is the reducer's documented contract, declare it: --declare count-pinned (spec section 16.9)",
            thousands(with.1),
            thousands(with.0)
        );
    }

    /// A hint when the answers show that the reducer reads no tool calls
    /// in the run's format (as one that reads another format: it cuts
    /// through tool groups): `no-orphan-result` or `calls-keep-results`
    /// failed on a valid input, and in none of the cases where the newest
    /// messages that fit split a call group ([`Run::groups_at_cut`]) did
    /// it keep the group whole. Said with the format the run sent, and
    /// how to check that the reducer reads it.
    fn format_hint(&mut self) {
        let format = self.run.settings.format;
        let pairing = [
            crate::terms::Clause::NoOrphanResult,
            crate::terms::Clause::CallsKeepResults,
        ];
        let groups = self.run.groups_at_cut;
        // Only when the answers show it: in no case where the newest
        // messages that fit split a call group did the reducer keep the
        // group whole, and such a cut broke a pairing clause.
        if groups.cases == 0 || groups.kept_whole > 0 {
            return;
        }
        if self
            .run
            .grade
            .clauses
            .iter()
            .any(|(c, t)| pairing.contains(c) && t.defects > 0)
        {
            line!(
                self,
                "hint: in none of the {} cases where the newest messages that fit split a tool call from its result did the reducer keep them together: it reads no tool calls in the {} messages it gets (--format {format}). A reducer that reads another format sees none; check one request's messages with `reducer-kit validate --format {format}`",
                thousands(groups.cases),
                format.title()
            );
        }
    }

    /// A hint when the answers show that the reducer recognises no tool
    /// result in the run's format, as one written for another format
    /// does (an OpenAI reducer run without `--format openai` sees no
    /// `tool_call_id` and drops every result): `calls-keep-results`
    /// failed on a valid input, and of at least 10 answers (not empty) to
    /// inputs holding a result, fewer than 1 in 5 holds one (a reducer
    /// that reads the format keeps results in most: those of the newest
    /// messages; one that reads another keeps only those its reader
    /// happens to take for other messages)
    /// ([`crate::certify::collect::GroupsAtCut::results`]).
    fn results_hint(&mut self) {
        let (inputs, kept) = self.run.groups_at_cut.results;
        let failed = self
            .run
            .grade
            .clauses
            .iter()
            .any(|(c, t)| *c == crate::terms::Clause::CallsKeepResults && t.defects > 0);
        if inputs < 10 || kept * 5 >= inputs || !failed {
            return;
        }
        let format = self.run.settings.format;
        let others: Vec<&str> = crate::formats::Format::ALL
            .iter()
            .filter(|f| **f != format)
            .map(|f| f.name())
            .collect();
        line!(
            self,
            "hint: {} of the {} answers to inputs holding a tool result kept one: the reducer recognises no result in the {} messages it gets (--format {format}). If it was written for another format, certify it with that one: --format {}",
            thousands(kept),
            thousands(inputs),
            format.title(),
            others.join("|")
        );
    }

    /// Hints when `system-pinned` fails in a pattern the answers show
    /// ([`crate::certify::collect::GroupsAtCut::pinned`]), none of them
    /// given when `system-pinned` also fails where a `system` message is
    /// message 0 (at least 5 such cases judged):
    ///
    /// - it failed where the pinned message is a `developer` message at
    ///   message 0: in the run's format a `developer` message is the
    ///   system prompt (spec §1.2);
    /// - it failed where the pinned `system` message comes after message
    ///   0: the reducer keeps a system message only at the start, the
    ///   contract `--declare system-first-only` declares (spec §16.6; not
    ///   said when it is declared).
    fn pinned_hints(&mut self) {
        let [[system_first, system_later], [developer_first, _]] = self.run.groups_at_cut.pinned;
        if system_first.0 < 5 || system_first.1 > 0 {
            return;
        }
        let format = self.run.settings.format;
        if developer_first.1 > 0 {
            line!(
                self,
                "hint: system-pinned failed in {} of the {} cases whose first message is a `developer` message, and in none of the {} whose first message is a `system` one: in {} a `developer` message is the system prompt (OpenAI's newer name for `system`, spec section 1.2), pinned as a `system` message is",
                thousands(developer_first.1),
                thousands(developer_first.0),
                thousands(system_first.0),
                format.title()
            );
        }
        if !self.run.settings.declared.system_first_only && system_later.1 > 0 {
            line!(
                self,
                "hint: system-pinned failed in {} of the {} cases whose system message comes after message 0, and in none of the {} where it is message 0: the reducer keeps a system message only at the start. The pinned message is the earliest system message wherever it stands (spec section 2); if keeping only a first one is the reducer's documented contract, declare it: --declare system-first-only (spec section 16.6)",
                thousands(system_later.1),
                thousands(system_later.0),
                thousands(system_first.0)
            );
        }
    }

    /// Hints when `protocol-json` fails: a number JSON cannot hold
    /// (`Infinity`, `NaN`: the reducer read numbers as doubles, spec
    /// `exact-numbers`), and, in persistent mode under protocol 1, a line
    /// the reducer wrote besides its answers (under protocol 1 the kit
    /// cannot tell a debug print from the next answer; protocol 2's
    /// request ids can, spec §13.7).
    fn protocol_hint(&mut self) {
        // Failures for a number JSON cannot hold, and any other.
        let (mut not_a_number, mut other) = (false, false);
        for r in self.run.results.iter() {
            for (c, d) in &r.failures {
                if *c == crate::terms::Clause::ProtocolJson {
                    if d.contains("is not JSON: a number read as a double") {
                        not_a_number = true;
                    } else {
                        other = true;
                    }
                }
            }
        }
        if not_a_number {
            line!(
                self,
                "hint: JSON has no Infinity or NaN; the reducer read a number like 1e400 as a double and wrote it back so (spec/exact-numbers): keep numbers as their text, or, under --declare json-numbers, write such a number as null (spec section 16.7)"
            );
        }
        let s = self.run.settings;
        if other && s.persistent && s.protocol == crate::protocol::Protocol::V1 {
            line!(
                self,
                "hint: under protocol 1 every line the reducer writes on stdout is read as an answer, so a debug print is taken for the next request's answer; write debug output to stderr, or certify with --protocol 2, whose request ids set such lines apart (spec section 13.7)"
            );
        }
    }
}

/// How much faster `--persistent` would run a per-case run's cases
/// ([`Report::persistent_hint`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Speedup {
    /// About this many times (rounded down).
    About(u32),
    /// More than this many times: the start-up was nearly all of a
    /// request's time.
    MoreThan(u32),
}

/// The speed-up of `--persistent` for `requests` requests of a per-case
/// run that took `total` together, with a reducer that starts and exits
/// in `startup`: a request's mean time over that mean less the start-up,
/// [`Speedup::MoreThan`] 20 when the rest is under a twentieth of the
/// mean. `None` under 2 times, or with no request.
pub(crate) fn persistent_speedup(
    requests: usize,
    total: std::time::Duration,
    startup: std::time::Duration,
) -> Option<Speedup> {
    if requests == 0 {
        return None;
    }
    let mean = total.as_nanos() / requests as u128;
    let rest = mean.saturating_sub(startup.as_nanos());
    if rest * 20 <= mean {
        return Some(Speedup::MoreThan(20));
    }
    let n = mean / rest;
    (n >= 2).then_some(Speedup::About(u32::try_from(n).unwrap_or(u32::MAX)))
}

#[cfg(test)]
mod speedup_tests {
    use super::{persistent_speedup, Speedup};
    use std::time::Duration;

    #[test]
    fn the_speedup_is_the_mean_over_the_rest() {
        let ms = Duration::from_millis;
        // 100 requests of 50 ms, 45 of them start-up: 50 / 5.
        assert_eq!(
            persistent_speedup(100, ms(5000), ms(45)),
            Some(Speedup::About(10))
        );
        // 30 of 50: 50 / 20 = 2.5.
        assert_eq!(
            persistent_speedup(100, ms(5000), ms(30)),
            Some(Speedup::About(2))
        );
        // 20 of 50: 50 / 30 is under 2, no hint.
        assert_eq!(persistent_speedup(100, ms(5000), ms(20)), None);
        // Start-up measured longer than the mean: nearly all of it.
        assert_eq!(
            persistent_speedup(100, ms(5000), ms(60)),
            Some(Speedup::MoreThan(20))
        );
        assert_eq!(persistent_speedup(0, ms(0), ms(60)), None);
    }
}
