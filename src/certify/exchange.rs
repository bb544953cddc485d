//! One exchange with a reducer under test (runner protocol, spec §8): the
//! [`Session`] trait that makes it, one request for one [`Exchange`] (the
//! response, or the [`ProtocolFailure`] in its place), [`RunError`] when
//! the reducer cannot be run at all, the [`Bounds`] shrinking puts on
//! exchanges and the [`Restarts`] a session counts.
//!
//! Plain data and one trait: the run's settings ([`super::settings`]) name
//! the trait for the sessions a binding makes, the results
//! ([`super::result`]) hold protocol failures, and the sessions that
//! answer ([`super::session`]: per-case, persistent, in process, the
//! reference) implement it.

use super::process;
use crate::protocol::{OutgoingRequest, Response};
use crate::terms::Clause;
#[cfg(not(target_arch = "wasm32"))]
use std::time::Instant;
#[cfg(target_arch = "wasm32")]
use web_time::Instant;

/// Why a run stops before its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The reducer cannot be started at all (the operating system's
    /// message).
    #[error("cannot run the reducer: {0}")]
    Start(String),
    /// The kit was stopped by this signal (SIGINT, SIGTERM; spec §8.7).
    #[error("interrupted by {}", signal_text(*.0))]
    Interrupted(i32),
}

/// `SIGINT`, or `signal 40` for a signal without a name.
pub fn signal_text(signal: i32) -> String {
    process::signal_name(signal).map_or_else(|| format!("signal {signal}"), str::to_string)
}

/// A protocol failure in place of a response (spec §8.5): the clause
/// it fails (`protocol-json`, `protocol-timeout`, `protocol-crash` or
/// `protocol-size`), what happened, and the reducer's stderr tail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolFailure {
    /// The protocol clause that fails.
    pub clause: Clause,
    /// What happened, lowercase.
    pub detail: String,
    /// The last bytes the reducer wrote to stderr for this request.
    pub stderr_tail: String,
}

/// What one exchange gives: the reducer's response, or the protocol
/// failure in its place.
pub type Exchange = Result<Response, ProtocolFailure>;

/// One reducer that answers protocol v1 requests.
pub trait Session {
    /// Sends `request` (a protocol v1 request object,
    /// [`crate::protocol::request_json`]) and waits for the answer.
    ///
    /// # Errors
    ///
    /// [`RunError`] when the reducer cannot be run at all; a reducer that
    /// runs but misbehaves gives an [`Exchange`] with a
    /// [`ProtocolFailure`].
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError>;

    /// [`Session::exchange`], except that an answer written byte for byte
    /// as the answer of the session's previous exchange (which must have
    /// been a response, not a failure) is not read again: `Ok(None)`, that
    /// response stands. Most reducers answer the repeated request, and
    /// their output sent back, with the same bytes; the runner
    /// ([`super::run`]) then copies the response it already has. A session
    /// that keeps no answers reads every one (the default).
    ///
    /// # Errors
    ///
    /// As [`Session::exchange`].
    fn exchange_unless_same(
        &mut self,
        request: &OutgoingRequest,
    ) -> Result<Option<Exchange>, RunError> {
        self.exchange(request).map(Some)
    }

    /// Output the reducer wrote after the answer of an earlier exchange
    /// that no request asked for, found since the last call (without
    /// waiting): a `protocol-json` failure of the exchange it followed
    /// (spec §8.3). Call it before each exchange to charge it to the right
    /// one. Per-case and in-process sessions never have any.
    fn settle(&mut self) -> Option<ProtocolFailure> {
        None
    }

    /// Ends the session (a persistent reducer's stdin is closed and it is
    /// given a moment to exit); like [`Session::settle`], the unrequested
    /// output found, which followed the last exchange.
    fn close(&mut self) -> Option<ProtocolFailure> {
        None
    }

    /// How many times the session started its reducer again, and how many
    /// of those followed a clean exit (spec §8.3); for a session that
    /// starts a process per request, how many it started and their time.
    fn restarts(&self) -> Restarts {
        Restarts::default()
    }

    /// Bounds the exchanges from here on beyond the run's limits (what
    /// shrinking does, spec §9.1): none waits past [`Bounds::deadline`],
    /// and none reads an answer larger than [`Bounds::answer_cap`] of its
    /// request. [`Bounds::default`] lifts them. A session that cannot time
    /// its reducer (in process) ignores the deadline (the default does
    /// nothing).
    fn bound(&mut self, bounds: Bounds) {
        let _ = bounds;
    }
}

/// Limits on a session's exchanges beyond the run's ([`Session::bound`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// No exchange waits past this: its time limit (and a new process's
    /// start-up allowance) is cut to the time left.
    pub deadline: Option<Instant>,
    /// No answer longer than `times` × its request's bytes + `plus` bytes
    /// is read (nor longer than `--max-output`): `(times, plus)`.
    pub answer_cap: Option<(usize, usize)>,
}

impl Bounds {
    /// `limits` for a request of `request_len` bytes sent now, within these
    /// bounds.
    pub fn apply(&self, mut limits: process::Limits, request_len: usize) -> process::Limits {
        if let Some(d) = self.deadline {
            let left = d.saturating_duration_since(Instant::now());
            limits.timeout = limits.timeout.min(left);
            limits.startup_timeout = limits
                .startup_timeout
                .min(left.saturating_sub(limits.timeout));
        }
        if let Some((times, plus)) = self.answer_cap {
            let cap = request_len.saturating_mul(times).saturating_add(plus);
            limits.max_output = limits.max_output.min(cap);
        }
        limits
    }
}

/// A session's reducer processes: the restarts of a persistent one, and
/// the processes a per-case one started, one per request (spec §8.2,
/// §8.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Restarts {
    /// New processes started after the first (persistent mode).
    pub total: usize,
    /// Of those, the ones after a clean exit (status 0, between requests).
    pub clean_exits: usize,
    /// Per-case mode: the requests answered by a process of their own.
    pub per_request: usize,
    /// Per-case mode: the wall time of those processes, from the start of
    /// each to its exit, summed.
    pub per_request_time: std::time::Duration,
    /// Per-case mode: how many times the reducer was started with no
    /// request (an empty line, then its stdin closed) between requests, to time its
    /// start-up under the run's own load (at most
    /// [`STARTUP_PROBES`] per session, after every
    /// [`STARTUP_PROBE_EVERY`] requests).
    pub startup_probes: usize,
    /// Per-case mode: the wall time of those starts, summed.
    pub startup_time: std::time::Duration,
}

/// How many start-up probes a per-case session makes at most
/// ([`Restarts::startup_probes`]).
pub const STARTUP_PROBES: usize = 3;

/// A per-case session probes the reducer's start-up after this many
/// requests, then again after as many more, up to [`STARTUP_PROBES`].
pub const STARTUP_PROBE_EVERY: usize = 8;

impl std::ops::AddAssign for Restarts {
    fn add_assign(&mut self, other: Restarts) {
        self.total += other.total;
        self.clean_exits += other.clean_exits;
        self.per_request += other.per_request;
        self.per_request_time += other.per_request_time;
        self.startup_probes += other.startup_probes;
        self.startup_time += other.startup_time;
    }
}
