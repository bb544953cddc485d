//! Persistent mode (spec §8.3): one long-lived reducer process speaking
//! JSON Lines, restarted after a failure or a clean exit, with the
//! start-up allowance of spec §8.5 and, under protocol 2, answers told by
//! their request id (spec §13.7).

use super::interrupt;
use std::fmt;
use std::io;
use std::time::{Duration, Instant};

use super::proc::{deadline_after, Outgoing, Proc, Woke};
use super::{describe_status, Failure, Limits, Reducer, Reply, Unrequested, GRACE};

/// Persistent mode: one long-lived reducer process speaking JSON Lines (one
/// request line in, one response line out; spec §8.3).
///
/// After a failed request, or unrequested output, the process group is
/// killed and the next [`Persistent::request`] starts a new process
/// (counted by [`Persistent::restarts`]). A process that ends before
/// answering a request without having written any of its answer and exits
/// with status 0 (a reducer that exits between requests) is replaced and
/// the request sent again, once (counted by [`Persistent::clean_exits`]).
/// Dropping a `Persistent` kills its process group and reaps the process.
pub struct Persistent {
    reducer: Reducer,
    limits: Limits,
    proc: Option<Proc>,
    /// Requests the current process has answered (0: the next one gets the
    /// start-up allowance).
    answered: usize,
    started: usize,
    clean_exits: usize,
    /// The current request's line read so far.
    line: Vec<u8>,
    /// Unrequested output not reported yet.
    unrequested: Option<Unrequested>,
    /// [`Persistent::settle`] drained the pipes and no request was sent
    /// since: the next request need not drain them again.
    settled: bool,
    /// Answers are told by their request id ([`Persistent::answers_by_id`]):
    /// a line that is not the answer is unrequested, the process is not
    /// killed for it, and what follows an answer is kept for the next read.
    by_id: bool,
    /// What is left of the worker's start-up allowance (spec §8.5): every
    /// new process draws on it for the time it takes to read its first
    /// request; one given up before it read it spends it all.
    startup_left: Duration,
    /// The time the last exchange's process took to read the request,
    /// when it read it while starting.
    read_after: Option<Duration>,
}

impl fmt::Debug for Persistent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Persistent")
            .field("reducer", &self.reducer)
            .field("limits", &self.limits)
            .field("pid", &self.proc.as_ref().map(|p| p.pid))
            .field("restarts", &self.restarts())
            .finish()
    }
}

/// Whether a line (without its newline) is the answer to the request in
/// flight ([`Persistent::request_answered_by`]).
pub type IsAnswer<'a> = dyn Fn(&[u8]) -> bool + 'a;

/// How a persistent request ended, before the kit decides what it means.
enum Ended {
    /// One line, without its `'\n'`.
    Answer(Vec<u8>),
    /// The process ended (end-of-file, exit or a closed stdin) before
    /// writing any byte of its answer.
    Silent,
    /// Any other failure.
    Failed(Failure),
}

impl Persistent {
    /// Starts the reducer (see the module doc for how it is run) as a
    /// persistent reducer.
    ///
    /// # Errors
    ///
    /// The spawn error when the command cannot be started
    /// ([`io::ErrorKind::InvalidInput`] for an empty `argv`).
    pub fn start(reducer: &Reducer, limits: Limits) -> io::Result<Persistent> {
        let proc = Proc::spawn(reducer, &limits)?;
        Ok(Persistent {
            reducer: reducer.clone(),
            limits,
            proc: Some(proc),
            answered: 0,
            started: 1,
            clean_exits: 0,
            line: Vec::new(),
            unrequested: None,
            settled: false,
            by_id: false,
            startup_left: limits.startup_timeout,
            read_after: None,
        })
    }

    /// Tells answers by their request id from here on (protocol 2, spec
    /// §13.7): [`Persistent::request_answered_by`] reads lines until one
    /// is the answer; every other complete line is unrequested output,
    /// reported by [`Persistent::settle`] without killing the process, so
    /// that a line written late is never read as the answer to a later
    /// request, whatever the timing.
    pub fn answers_by_id(mut self) -> Persistent {
        self.by_id = true;
        self
    }

    /// The limits of the requests from here on (a process already running
    /// keeps running; a new one starts with these).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// Sends one request and reads one response line.
    ///
    /// First drains, without waiting, what the reducer wrote since its last
    /// answer, unless [`Persistent::settle`] just did (kept for the next
    /// `settle`; the process is then replaced). Then writes `line`
    /// followed by `'\n'` (the caller must not put a `'\n'` inside
    /// `line`) and waits for one line of stdout,
    /// returned without its `'\n'` (a `'\r'` is kept): up to
    /// [`Limits::timeout`], plus, for the first request of a process, what
    /// is left of the worker's start-up allowance
    /// ([`Limits::startup_timeout`], one for the run). Bytes after the line in the same read are
    /// unrequested output, reported by the next [`Persistent::settle`].
    ///
    /// Failures: [`Failure::Timeout`]; [`Failure::TooLarge`] when the line
    /// grows beyond [`Limits::max_output`] bytes; [`Failure::Crash`] when
    /// the process ends before answering (see the type's doc for the one
    /// exception); [`Failure::Spawn`] when a needed restart fails (tried
    /// again on the next call); [`Failure::Interrupted`]. After any failure
    /// except `Spawn` the process group has been killed and the next call
    /// starts a new process.
    pub fn request(&mut self, line: &[u8]) -> Reply {
        self.request_answered_by(line, &|_| true)
    }

    /// [`Persistent::request`], the answer being the first line for which
    /// `is_answer` holds when answers are told by id
    /// ([`Persistent::answers_by_id`]; otherwise the first line, and
    /// `is_answer` is not asked). The lines before it are unrequested
    /// output, reported by the next [`Persistent::settle`]; the time limit
    /// covers them all.
    pub fn request_answered_by(&mut self, line: &[u8], is_answer: &IsAnswer<'_>) -> Reply {
        if let Some(s) = interrupt::requested() {
            return self.fail(Failure::Interrupted(s));
        }
        if self.by_id {
            self.settled = false;
            self.note_lines();
        } else if !std::mem::take(&mut self.settled) {
            self.note_unrequested();
        }
        let mut message = Vec::with_capacity(line.len() + 1);
        message.extend_from_slice(line);
        message.push(b'\n');
        let mut sent_again = false;
        loop {
            if self.proc.is_none() {
                match Proc::spawn(&self.reducer, &self.limits) {
                    Ok(p) => {
                        self.proc = Some(p);
                        self.started += 1;
                        self.answered = 0;
                    }
                    Err(e) => return Reply::spawn_failure(&self.reducer, &e),
                }
            }
            // The start-up allowance (spec §8.5): a new process may take
            // what is left of the worker's to read its first request, then
            // has the time limit to answer.
            let startup = self.startup_left.min(self.limits.startup_timeout);
            let starting = self.answered == 0 && !startup.is_zero();
            let allowance = if starting {
                self.limits.timeout.saturating_add(startup)
            } else {
                self.limits.timeout
            };
            if !self.by_id {
                self.line.clear();
            }
            let is_answer = self.by_id.then_some(is_answer);
            let then = starting.then_some(self.limits.timeout);
            let sent = Instant::now();
            self.read_after = None;
            let ended = self.exchange(message.clone(), deadline_after(allowance), then, is_answer);
            if starting {
                // What the start-up took: until the process read its
                // request, or the whole exchange when it never did.
                let took = self.read_after.unwrap_or_else(|| sent.elapsed());
                self.startup_left = self.startup_left.saturating_sub(took);
            }
            match ended {
                Ended::Answer(answer) => {
                    self.answered += 1;
                    let tail = self.take_tail();
                    return Reply {
                        stdout: answer,
                        stderr_tail: tail,
                        failure: None,
                    };
                }
                Ended::Silent => {
                    let status = self.proc.as_mut().and_then(|p| p.wait_exit(GRACE));
                    if !sent_again && status.is_some_and(|s| s.success()) {
                        // A clean exit between requests: a new process gets
                        // the request again, once.
                        sent_again = true;
                        self.clean_exits += 1;
                        self.discard();
                        continue;
                    }
                    let status = match status {
                        Some(s) if sent_again && s.success() => format!(
                            "{} without answering, also when the request was sent again to a new process",
                            describe_status(s)
                        ),
                        Some(s) => describe_status(s),
                        None => self.why_silent(),
                    };
                    return self.fail(Failure::Crash { status });
                }
                Ended::Failed(Failure::NotReading) => {
                    self.startup_left = Duration::ZERO;
                    return self.fail(Failure::NotReading);
                }
                Ended::Failed(f) => return self.fail(f),
            }
        }
    }

    /// Drains, without waiting, what the reducer wrote to stdout since its
    /// last answer, and reports it with any unrequested bytes found by
    /// [`Persistent::request`] since the last call: output that followed the
    /// last answer and that no request asked for (spec §8.3). When there is
    /// some, the process is killed (the next request starts a new one), so
    /// a reducer that writes extra lines never has them read as the answer
    /// to a later request.
    pub fn settle(&mut self) -> Option<Unrequested> {
        if self.by_id {
            self.note_lines();
        } else {
            self.note_unrequested();
        }
        self.settled = true;
        self.unrequested.take()
    }

    /// Ends the session: closes the reducer's stdin, lets it exit within
    /// [`GRACE`] while reading what it still writes, then kills its group.
    /// Returns the unrequested output not reported yet, with what it wrote
    /// after its last answer (the exit status does not matter here: a
    /// reducer should exit when its stdin ends, spec §8.3).
    pub fn close(&mut self) -> Option<Unrequested> {
        if let Some(mut proc) = self.proc.take() {
            proc.stdin = None;
            let mut out = Vec::new();
            let until = deadline_after(GRACE);
            let mut nothing = Outgoing::new(Vec::new(), true);
            while !proc.exited {
                match proc.poll(until, &mut nothing, &mut out, usize::MAX) {
                    Woke::Ready => {}
                    Woke::TimedOut | Woke::Interrupted(_) => break,
                }
                if out.len() > self.limits.max_output {
                    break;
                }
            }
            proc.drain(&mut out, self.limits.max_output, deadline_after(GRACE));
            proc.finish();
            if !self.line.is_empty() {
                // Bytes after an answer, kept when answers are told by id.
                let mut first = std::mem::take(&mut self.line);
                first.extend_from_slice(&out);
                out = first;
            }
            if self.by_id {
                for line in out.split_inclusive(|&b| b == b'\n') {
                    self.add_stray_line(line);
                }
            } else if !out.is_empty() {
                let mut u = Unrequested::default();
                u.push(&out);
                self.add_unrequested(u);
            }
        }
        self.unrequested.take()
    }

    /// How many times a new process has been started after the first one:
    /// after a failure, after unrequested output, or after a clean exit.
    pub fn restarts(&self) -> usize {
        self.started.saturating_sub(1)
    }

    /// How many of the restarts followed a clean exit (status 0 before the
    /// request was answered, with nothing written for it).
    pub fn clean_exits(&self) -> usize {
        self.clean_exits
    }

    /// Drains unrequested output; when there is some not reported yet, the
    /// process is out of step with the kit and is killed (the next request
    /// starts a new one).
    fn note_unrequested(&mut self) {
        if let Some(u) = self.drain_unrequested() {
            self.add_unrequested(u);
        }
        if self.unrequested.is_some() {
            self.discard();
        }
    }

    fn add_unrequested(&mut self, u: Unrequested) {
        match &mut self.unrequested {
            Some(old) => old.merge(u),
            None => self.unrequested = Some(u),
        }
    }

    /// Answers told by id: reads what is readable on stdout now into the
    /// line buffer and reports its complete lines as unrequested (no
    /// request is in flight); a partial line stays for the next read.
    fn note_lines(&mut self) {
        let max = self.limits.max_output;
        if let Some(proc) = self.proc.as_mut() {
            proc.drain(
                &mut self.line,
                max.saturating_add(1),
                Instant::now() + Duration::from_millis(10),
            );
        }
        while let Some(end) = memchr::memchr(b'\n', &self.line) {
            let rest = self.line.split_off(end + 1);
            let stray = std::mem::replace(&mut self.line, rest);
            self.add_stray_line(&stray);
        }
        if self.line.len() > max {
            // A line longer than any answer may be: unrequested, whole.
            let stray = std::mem::take(&mut self.line);
            self.add_stray_line(&stray);
            self.discard();
        }
    }

    /// Records `line` (with its newline) as an unrequested line.
    fn add_stray_line(&mut self, line: &[u8]) {
        let mut u = Unrequested {
            lines: 1,
            ..Unrequested::default()
        };
        u.push(line);
        self.add_unrequested(u);
    }

    /// Reads what is readable on stdout now (at most
    /// [`Limits::max_output`] bytes); stderr goes to the tail.
    fn drain_unrequested(&mut self) -> Option<Unrequested> {
        let proc = self.proc.as_mut()?;
        let mut out = Vec::new();
        proc.drain(
            &mut out,
            self.limits.max_output,
            Instant::now() + Duration::from_millis(10),
        );
        if out.is_empty() {
            return None;
        }
        let mut u = Unrequested::default();
        u.push(&out);
        Some(u)
    }

    /// Sends `message` and reads one line of the answer until `deadline`:
    /// the first line, or with `is_answer` the first line it accepts (the
    /// others are unrequested lines). With `then`, `deadline` holds until
    /// the process has read the whole message (start-up), and from then
    /// on the answer must come within `then`; a process that has not read
    /// it by `deadline` fails [`Failure::NotReading`].
    fn exchange(
        &mut self,
        message: Vec<u8>,
        mut deadline: Instant,
        mut then: Option<Duration>,
        is_answer: Option<&IsAnswer<'_>>,
    ) -> Ended {
        let max = self.limits.max_output;
        let Some(proc) = self.proc.as_mut() else {
            return Ended::Silent;
        };
        let mut input = Outgoing::new(message, false);
        // A request usually fits in the pipe: written now, the first poll
        // waits for the answer alone (one poll fewer per request).
        if !proc.exited {
            proc.write_some(&mut input);
        }
        // Once the process is ending, how long its answer may still take.
        let mut dying_until: Option<Instant> = None;
        // How long to wait between looks at whether a starting process has
        // read its request.
        let mut step = Duration::ZERO;
        let started = Instant::now();
        // How much of `self.line` is known to hold no newline: each byte
        // is looked at once, however many reads a long answer takes.
        let mut scanned = 0;
        loop {
            let newline = memchr::memchr(b'\n', &self.line[scanned.min(self.line.len())..])
                .map(|at| scanned + at);
            scanned = self.line.len();
            if let Some(end) = newline {
                scanned = 0;
                if end > max {
                    self.line.truncate(max);
                    return Ended::Failed(Failure::TooLarge);
                }
                if let Some(is_answer) = is_answer {
                    let rest = self.line.split_off(end + 1);
                    let mut found = std::mem::replace(&mut self.line, rest);
                    if is_answer(&found[..end]) {
                        found.truncate(end);
                        return Ended::Answer(found);
                    }
                    let mut u = Unrequested {
                        lines: 1,
                        ..Unrequested::default()
                    };
                    u.push(&found);
                    match &mut self.unrequested {
                        Some(old) => old.merge(u),
                        None => self.unrequested = Some(u),
                    }
                    continue;
                }
                let rest = self.line.split_off(end + 1);
                self.line.truncate(end);
                if !rest.is_empty() {
                    let mut u = Unrequested::default();
                    u.push(&rest);
                    match &mut self.unrequested {
                        Some(old) => old.merge(u),
                        None => self.unrequested = Some(u),
                    }
                }
                return Ended::Answer(std::mem::take(&mut self.line));
            }
            if self.line.len() > max {
                self.line.truncate(max);
                return Ended::Failed(Failure::TooLarge);
            }
            if proc.exited || proc.stdout.is_none() {
                // Everything it wrote is in the pipe (or was read).
                let before = self.line.len();
                proc.drain(&mut self.line, max.saturating_add(1), deadline_after(GRACE));
                if self.line.len() > before {
                    continue;
                }
                return if self.line.is_empty() {
                    Ended::Silent
                } else {
                    Ended::Failed(Failure::Crash {
                        status: proc.describe_end(GRACE),
                    })
                };
            }
            if proc.write_error.is_some() && dying_until.is_none() {
                dying_until = Some(deadline_after(GRACE).min(deadline));
            }
            // Starting: has it read the whole request yet? No event says
            // so; it is looked at after each wake-up and every few
            // milliseconds (at most 50) until it has.
            if let Some(t) = then {
                if input.done() && proc.unread_input() == Some(0) {
                    deadline = deadline.min(deadline_after(t));
                    then = None;
                    self.read_after = Some(started.elapsed());
                    step = Duration::ZERO;
                }
            }
            let until = match (dying_until, then) {
                (Some(d), _) => d,
                (None, Some(_)) => {
                    step = (step * 2).clamp(Duration::from_millis(1), Duration::from_millis(50));
                    deadline.min(deadline_after(step))
                }
                (None, None) => deadline,
            };
            match proc.poll(until, &mut input, &mut self.line, usize::MAX) {
                Woke::Ready => {}
                Woke::TimedOut if dying_until.is_none() && until < deadline => {}
                Woke::TimedOut if dying_until.is_none() && then.is_some() => {
                    return Ended::Failed(Failure::NotReading)
                }
                Woke::TimedOut if dying_until.is_none() => return Ended::Failed(Failure::Timeout),
                Woke::TimedOut => {
                    return if self.line.is_empty() {
                        Ended::Silent
                    } else {
                        Ended::Failed(Failure::Crash {
                            status: proc.describe_end(Duration::ZERO),
                        })
                    }
                }
                Woke::Interrupted(s) => return Ended::Failed(Failure::Interrupted(s)),
            }
        }
    }

    /// Why a silent process that has not exited is given up.
    fn why_silent(&self) -> String {
        match &self.proc {
            Some(p) if p.stdout.is_none() => "closed its stdout without exiting".to_string(),
            Some(p) => match &p.write_error {
                Some(e) => format!("stopped reading its stdin ({e}) without exiting"),
                None => "stopped responding".to_string(),
            },
            None => "not running".to_string(),
        }
    }

    fn take_tail(&mut self) -> String {
        self.proc
            .as_mut()
            .map(|p| p.tail.take())
            .unwrap_or_default()
    }

    /// A failed reply: the process is killed, what was read of the line
    /// and the stderr tail are returned.
    fn fail(&mut self, failure: Failure) -> Reply {
        let mut stdout = std::mem::take(&mut self.line);
        stdout.truncate(self.limits.max_output);
        let tail = match self.proc.take() {
            Some(mut p) => {
                p.finish();
                p.tail.take()
            }
            None => String::new(),
        };
        Reply::failed(failure, stdout, tail)
    }

    /// Kills the process after an answer that leaves it out of step with
    /// the kit (under protocol 2, an answer that repeats an earlier one
    /// for the same request, spec §13.7), so that an answer it may still
    /// write is never read as a later request's; the next request starts
    /// a new process (counted in [`Persistent::restarts`]).
    pub fn out_of_step(&mut self) {
        self.discard();
    }

    /// Kills the current process, if any; the next request starts another.
    fn discard(&mut self) {
        if let Some(mut p) = self.proc.take() {
            p.finish();
        }
        self.line.clear();
    }
}

impl Drop for Persistent {
    /// Kills the process group and reaps the process.
    fn drop(&mut self) {
        self.discard();
    }
}
