//! Running one external reducer command safely (runner protocol v1, spec
//! §8). Linux only.
//!
//! Two modes:
//!
//! * [`run_once`] — per-case mode (§8.2): one process per request; the
//!   request is written to stdin, stdin is closed, the whole stdout is the
//!   response.
//! * [`Persistent`] — persistent mode (§8.3): one long-lived process
//!   speaking JSON Lines, restarted after a failure or a clean exit.
//!
//! Safety properties, whatever the reducer does (spec §8.6):
//!
//! * The command is executed directly (never through a shell), with the
//!   kit's environment plus [`RUN_ENV`]`=<run id>` ([`Reducer::run_id`]).
//! * Every reducer starts in a new session (`setsid()` before `exec`), so
//!   it is the leader of its own process group, has no controlling
//!   terminal (it cannot read, clear or stop on `/dev/tty`) and cannot join
//!   the kit's process group (a process may only join a group of its own
//!   session).
//! * When a request is over (per-case), or a persistent process fails or
//!   is given up, the whole group is killed with `SIGKILL`, and the reducer
//!   itself too (even had it left the group), then it is reaped within a
//!   bounded grace period ([`GRACE`]); a process that is still not dead
//!   then is reaped later, never waited for without a limit.
//! * No helper threads: one `poll(2)` loop per request serves the
//!   reducer's stdin (non-blocking writes), stdout and stderr, the process
//!   itself (a pidfd) and the kit's stop pipe ([`super::interrupt`]).
//!   stdout is capped at [`Limits::max_output`] bytes and only the last
//!   [`Limits::stderr_tail`] bytes of stderr are kept. A reducer that never
//!   reads, never writes or floods stderr cannot block the kit.
//! * The response is complete when the reducer exits (per-case) or writes
//!   its line (persistent), not when its pipes reach end-of-file: when a
//!   request is over the kit closes its ends of the pipes, so a descendant
//!   that escaped with `setsid` and still holds them costs no thread, no
//!   file descriptor and no time. [`sweep`] kills such descendants at the
//!   end of a run when they still carry the run's [`RUN_ENV`] marker.
//! * No reducer behaviour makes these functions panic, and every call
//!   returns within its time limit plus [`GRACE`] or so.
//!
//! Writing to a reducer that has closed its stdin relies on `SIGPIPE` being
//! ignored in the kit's process, which is the Rust runtime's default for
//! binaries and test harnesses (the write then fails with `EPIPE`).

use super::interrupt;
use std::ffi::OsString;
use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The environment variable that marks every reducer process of a run: its
/// value is the run's random id ([`Reducer::run_id`]), so that the run's
/// processes can be told from any other (spec §8.6).
pub const RUN_ENV: &str = "REDUCER_KIT_RUN";

/// How long the kit waits, once it has killed a reducer, for it to be
/// reaped; how long it lets a persistent reducer that closed its stdout or
/// stdin (or its stdin was closed at the end) take to exit by itself; and
/// the longest the kit reads a dying reducer's pipes.
pub const GRACE: Duration = Duration::from_secs(1);

/// Size of one read from a reducer's stdout or stderr, in bytes.
const CHUNK: usize = 64 * 1024;

/// What a descriptor `Proc::poll` watches is for.
const IN: u8 = 0;
const OUT: u8 = 1;
const ERR: u8 = 2;
const PID: u8 = 3;
const STOP: u8 = 4;

/// How many bytes of unrequested output are kept to show
/// ([`Unrequested::head`]).
const UNREQUESTED_HEAD: usize = 80;

/// A reducer command and the run it belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reducer {
    /// The program and its arguments, run directly (never through a
    /// shell); the program is looked up in `PATH` when it has no `/`.
    pub argv: Vec<OsString>,
    /// The run's id, passed to every process as [`RUN_ENV`]: 16 hex digits.
    pub run_id: String,
}

impl Reducer {
    /// `argv` in a new run with a random id.
    pub fn new(argv: Vec<OsString>) -> Reducer {
        Reducer {
            argv,
            run_id: format!("{:016x}", rand::random::<u64>()),
        }
    }
}

/// Resource limits for one reducer request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time allowed for one request (`--timeout`): measured
    /// from just before the process is spawned (per-case mode) or from the
    /// moment the request is sent (persistent mode).
    pub timeout: Duration,
    /// Persistent mode: how long a new process may take to read its first
    /// request (`--startup-timeout`, spec §8.5); once it has read it, the
    /// answer must come within `timeout`. Granted to a worker's processes
    /// until one of them does not read its first request in time; after
    /// that, every request gets `timeout` alone. Per-case mode: unused (the
    /// start-up is part of every request there).
    pub startup_timeout: Duration,
    /// Largest accepted response, in bytes of stdout: the whole stdout in
    /// per-case mode, one line without its `'\n'` in persistent mode. A
    /// response of exactly this size is accepted; one byte more is
    /// [`Failure::TooLarge`].
    pub max_output: usize,
    /// How many bytes of stderr are kept (the last ones) for
    /// [`Reply::stderr_tail`]; `0` keeps nothing.
    pub stderr_tail: usize,
}

impl Default for Limits {
    /// 10 s per request, 60 s more for a persistent reducer's start-up,
    /// 16 MiB of stdout, 4 KiB of stderr tail.
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            startup_timeout: Duration::from_secs(60),
            max_output: 16 * 1024 * 1024,
            stderr_tail: 4 * 1024,
        }
    }
}

/// Why a request produced no usable response (a protocol failure of the
/// case, except [`Failure::Spawn`], a problem of the command itself, and
/// [`Failure::Interrupted`], the kit being stopped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No complete response within the time limit; the process group was
    /// killed.
    Timeout,
    /// Persistent mode: a new process did not read its first request
    /// within the start-up allowance and the time limit
    /// ([`Limits::startup_timeout`]); the process group was killed.
    NotReading,
    /// The response exceeded [`Limits::max_output`] bytes; reading stopped
    /// and the process group was killed.
    TooLarge,
    /// The process exited with a non-zero status or was killed by a signal
    /// (per-case mode), or ended before answering (persistent mode, spec
    /// §8.3: closed its stdout, stopped reading its stdin, or exited —
    /// with status 0 only after the request was sent again to a new
    /// process).
    Crash {
        /// How it ended: `"exit status 3"`, `"killed by signal 11
        /// (SIGSEGV)"`, or, for a persistent process still running when the
        /// kit gave up on it, a sentence such as `"closed its stdout without
        /// exiting"`.
        status: String,
    },
    /// The process could not be started; the text is the operating
    /// system's error message.
    Spawn(String),
    /// The kit was asked to stop ([`super::interrupt`]) while the request
    /// was in flight; the process group was killed. The number is the
    /// signal.
    Interrupted(i32),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Timeout => f.write_str("timed out"),
            Failure::NotReading => f.write_str("did not read its request"),
            Failure::TooLarge => f.write_str("output too large"),
            Failure::Crash { status } => write!(f, "crashed ({status})"),
            Failure::Spawn(e) => write!(f, "could not start: {e}"),
            Failure::Interrupted(s) => write!(f, "interrupted by {}", signal_text(*s)),
        }
    }
}

/// The outcome of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The response bytes exactly as written by the reducer (not checked for
    /// JSON or UTF-8 here). Per-case mode: everything written to stdout; on
    /// [`Failure::Timeout`] or [`Failure::Crash`] whatever had been written,
    /// on [`Failure::TooLarge`] the first [`Limits::max_output`] bytes.
    /// Persistent mode: one line without its `'\n'`; on a failure, the
    /// incomplete line read so far (at most [`Limits::max_output`] bytes).
    pub stdout: Vec<u8>,
    /// The last [`Limits::stderr_tail`] bytes of stderr, decoded lossily as
    /// UTF-8 (a character cut by the truncation is dropped whole). Persistent
    /// mode: the stderr written since the previous reply of the same process.
    pub stderr_tail: String,
    /// `None` on success.
    pub failure: Option<Failure>,
}

/// Why the reducer's program could not be started, naming it:
/// `PROGRAM: why` (the program escaped for the terminal); without a
/// program (an empty command), `why`.
pub fn start_error(reducer: &Reducer, e: &io::Error) -> String {
    match reducer.argv.first() {
        Some(p) => format!("{}: {e}", crate::terminal::show(&p.to_string_lossy())),
        None => e.to_string(),
    }
}

impl Reply {
    fn failed(failure: Failure, stdout: Vec<u8>, stderr_tail: String) -> Reply {
        Reply {
            stdout,
            stderr_tail,
            failure: Some(failure),
        }
    }

    fn spawn_failure(reducer: &Reducer, e: &io::Error) -> Reply {
        Reply::failed(
            Failure::Spawn(start_error(reducer, e)),
            Vec::new(),
            String::new(),
        )
    }
}

/// Output a persistent reducer wrote that no request asked for: bytes after
/// an answer line (spec §8.3), or, when answers are told by their request
/// id ([`Persistent::answers_by_id`]), lines that are not the answer to
/// the request in flight (spec v2 §13.7).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unrequested {
    /// How many bytes.
    pub bytes: usize,
    /// The first of them (at most 80).
    pub head: Vec<u8>,
    /// How many whole lines, when they were told apart by request id
    /// (0 otherwise).
    pub lines: usize,
}

impl Unrequested {
    fn push(&mut self, data: &[u8]) {
        let room = UNREQUESTED_HEAD.saturating_sub(self.head.len());
        self.head.extend_from_slice(&data[..room.min(data.len())]);
        self.bytes += data.len();
    }

    fn merge(&mut self, other: Unrequested) {
        let room = UNREQUESTED_HEAD.saturating_sub(self.head.len());
        self.head
            .extend_from_slice(&other.head[..room.min(other.head.len())]);
        self.bytes += other.bytes;
        self.lines += other.lines;
    }
}

impl fmt::Display for Unrequested {
    /// `wrote 6 unrequested bytes after its answer: "extra\n"` (the head as
    /// a JSON string, `...` after it when cut).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head = serde_json::Value::String(String::from_utf8_lossy(&self.head).into_owned());
        let more = if self.bytes > self.head.len() {
            "..."
        } else {
            ""
        };
        let unit = if self.bytes == 1 { "byte" } else { "bytes" };
        if self.lines > 0 {
            let lines = if self.lines == 1 { "line" } else { "lines" };
            return write!(
                f,
                "wrote {} {lines} ({} {unit}) that answer no request in flight (no `id` of the request it was sent): {head}{more}",
                self.lines, self.bytes
            );
        }
        write!(
            f,
            "wrote {} unrequested {unit} after its answer: {head}{more}",
            self.bytes
        )
    }
}

/// Per-case mode: runs the reducer once with `input` as its whole stdin.
///
/// Spawns the command (see the module doc for how), writes `input` to its
/// stdin and closes it, reads stdout (at most [`Limits::max_output`] bytes;
/// one more byte stops reading and kills the group →
/// [`Failure::TooLarge`]) while draining stderr (keeping the tail), and
/// waits for the process to exit within [`Limits::timeout`] (→
/// [`Failure::Timeout`], group killed). A non-zero exit or death by signal
/// is [`Failure::Crash`]; an empty `argv` or a command that cannot be
/// started is [`Failure::Spawn`]; a stop of the kit is
/// [`Failure::Interrupted`].
///
/// The response is complete when the process itself exits: what it wrote
/// is then read from the pipe without waiting for end-of-file, which a
/// left-behind descendant can delay forever. In every case the whole
/// process group is then killed and the process reaped before returning. A
/// reducer that closes its stdin without reading it all is not a failure
/// by itself.
pub fn run_once(reducer: &Reducer, input: &[u8], limits: &Limits) -> Reply {
    if let Some(s) = interrupt::requested() {
        return Reply::failed(Failure::Interrupted(s), Vec::new(), String::new());
    }
    let deadline = deadline_after(limits.timeout);
    let mut proc = match Proc::spawn(reducer, limits) {
        Ok(p) => p,
        Err(e) => return Reply::spawn_failure(reducer, &e),
    };
    let mut input = Outgoing::new(input.to_vec(), true);
    let mut out = Vec::new();
    let cap = limits.max_output.saturating_add(1);
    let failure = loop {
        if out.len() > limits.max_output {
            break Some(Failure::TooLarge);
        }
        if proc.exited {
            // Whatever it wrote is in the pipe now: read it, without
            // waiting for an end-of-file that a descendant may hold back.
            proc.kill_group();
            proc.drain(&mut out, cap, deadline_after(GRACE));
            break (out.len() > limits.max_output).then_some(Failure::TooLarge);
        }
        match proc.poll(deadline, &mut input, &mut out, cap) {
            Woke::Ready => {}
            Woke::TimedOut => break Some(Failure::Timeout),
            Woke::Interrupted(s) => break Some(Failure::Interrupted(s)),
        }
    };
    let status = proc.finish();
    let failure = failure.or_else(|| {
        status.filter(|s| !s.success()).map(|s| Failure::Crash {
            status: describe_status(s),
        })
    });
    out.truncate(limits.max_output);
    Reply {
        stdout: out,
        stderr_tail: proc.tail.take(),
        failure,
    }
}

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
    /// A process was given up before it read its first request: the
    /// start-up allowance is not granted again (spec §8.5).
    startup_spent: bool,
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
pub type IsAnswer = dyn Fn(&[u8]) -> bool;

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
            startup_spent: false,
        })
    }

    /// Tells answers by their request id from here on (protocol 2, spec v2
    /// §13.7): [`Persistent::request_answered_by`] reads lines until one
    /// is the answer; every other complete line is unrequested output,
    /// reported by [`Persistent::settle`] without killing the process, so
    /// that a line written late is never read as the answer to a later
    /// request, whatever the timing.
    pub fn answers_by_id(mut self) -> Persistent {
        self.by_id = true;
        self
    }

    /// Sends one request and reads one response line.
    ///
    /// First drains, without waiting, what the reducer wrote since its last
    /// answer, unless [`Persistent::settle`] just did (kept for the next
    /// `settle`; the process is then replaced). Then writes `line`
    /// followed by `'\n'` (the caller must not put a `'\n'` inside
    /// `line`) and waits for one line of stdout,
    /// returned without its `'\n'` (a `'\r'` is kept): up to
    /// [`Limits::timeout`], plus [`Limits::startup_timeout`] for the first
    /// request of a process. Bytes after the line in the same read are
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
    pub fn request_answered_by(&mut self, line: &[u8], is_answer: &IsAnswer) -> Reply {
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
            // The start-up allowance (spec §8.5): a new process may take it
            // to read its first request, then has the time limit to answer.
            let starting = self.answered == 0 && !self.startup_spent;
            let allowance = if starting {
                self.limits
                    .timeout
                    .saturating_add(self.limits.startup_timeout)
            } else {
                self.limits.timeout
            };
            if !self.by_id {
                self.line.clear();
            }
            let is_answer = self.by_id.then_some(is_answer);
            let then = starting.then_some(self.limits.timeout);
            match self.exchange(message.clone(), deadline_after(allowance), then, is_answer) {
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
                    self.startup_spent = true;
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
        is_answer: Option<&IsAnswer>,
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
        loop {
            if let Some(end) = memchr::memchr(b'\n', &self.line) {
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

/// Kills every process that carries `run_id` as its [`RUN_ENV`] (read from
/// `/proc/<pid>/environ`), except this one: descendants of the run's
/// reducers that escaped their process group (with `setsid`) and are still
/// alive. Returns how many were killed. Processes of other users, and those
/// that changed their environment, are out of its reach.
pub fn sweep(run_id: &str) -> usize {
    let marker = format!("{RUN_ENV}={run_id}");
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut killed = 0;
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ.split(|&b| b == 0).any(|v| v == marker.as_bytes()) {
            if let Ok(pid) = libc::pid_t::try_from(pid) {
                // SAFETY: plain syscall on a process found carrying this
                // run's marker.
                if unsafe { libc::kill(pid, libc::SIGKILL) } == 0 {
                    killed += 1;
                }
            }
        }
    }
    reap_orphans();
    killed
}

// ---------------------------------------------------------------------------
// One running reducer process.

/// What one [`Proc::poll`] found.
enum Woke {
    /// Something was read, written, closed or the process exited.
    Ready,
    /// The deadline passed with nothing to do.
    TimedOut,
    /// The kit is stopping ([`interrupt`]); the signal.
    Interrupted(i32),
}

/// Bytes to write to the reducer's stdin.
struct Outgoing {
    data: Vec<u8>,
    written: usize,
    /// Close stdin once everything is written (per-case mode).
    close_after: bool,
}

impl Outgoing {
    fn new(data: Vec<u8>, close_after: bool) -> Outgoing {
        Outgoing {
            data,
            written: 0,
            close_after,
        }
    }

    fn done(&self) -> bool {
        self.written >= self.data.len()
    }
}

/// The last bytes of a stream.
struct Tail {
    cap: usize,
    buf: Vec<u8>,
    truncated: bool,
}

impl Tail {
    fn push(&mut self, data: &[u8]) {
        if data.len() >= self.cap {
            self.truncated |= data.len() > self.cap || !self.buf.is_empty();
            self.buf.clear();
            self.buf.extend_from_slice(&data[data.len() - self.cap..]);
        } else {
            self.buf.extend_from_slice(data);
            if self.buf.len() > self.cap {
                let excess = self.buf.len() - self.cap;
                self.buf.drain(..excess);
                self.truncated = true;
            }
        }
    }

    fn take(&mut self) -> String {
        let mut bytes = &self.buf[..];
        if self.truncated {
            // Drop a UTF-8 character cut in half by the truncation.
            let cut = bytes
                .iter()
                .take(3)
                .take_while(|b| (**b & 0xC0) == 0x80)
                .count();
            bytes = &bytes[cut..];
        }
        let text = String::from_utf8_lossy(bytes).into_owned();
        self.buf.clear();
        self.truncated = false;
        text
    }
}

/// Pids of reducers killed but not yet dead when the grace period ended;
/// reaped without waiting at the next spawn or sweep.
static ORPHANS: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

fn reap_orphans() {
    let mut orphans = ORPHANS.lock().unwrap_or_else(|p| p.into_inner());
    orphans.retain(|&pid| {
        let mut status = 0;
        // SAFETY: plain syscall on our own child.
        let rc = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        rc == 0
    });
}

struct Proc {
    /// The reducer's pid, also its process group and session id.
    pid: libc::pid_t,
    /// A pidfd of the reducer (readable once it exits), when the kernel
    /// has them.
    pidfd: Option<OwnedFd>,
    stdin: Option<OwnedFd>,
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
    /// It has exited (it may be a zombie not reaped yet).
    exited: bool,
    /// Its status, once reaped.
    status: Option<ExitStatus>,
    /// Reaped or handed over to [`ORPHANS`]: `pid` names it no longer.
    gone: bool,
    /// Why writing to its stdin failed.
    write_error: Option<String>,
    tail: Tail,
    /// What reads from its pipes land in ([`CHUNK`] bytes, allocated once
    /// per process: a zeroed 64 KiB array per wake-up was 5% of certify's
    /// own time).
    chunk: Box<[u8]>,
}

fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(86_400 * 365))
}

fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(raw, libc::F_GETFL);
        if flags < 0 || libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: plain syscall; on success the kernel returns a new descriptor
    // (close-on-exec) that we own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = RawFd::try_from(fd).ok().filter(|&fd| fd >= 0)?;
    // SAFETY: `fd` is a new descriptor owned by nobody else.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `read(2)` into `buf`; `Ok(0)` is end-of-file.
fn read_fd(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` bytes.
    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    usize::try_from(n).map_err(|_| io::Error::last_os_error())
}

fn write_fd(fd: BorrowedFd<'_>, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` bytes.
    let n = unsafe { libc::write(fd.as_raw_fd(), buf.as_ptr().cast(), buf.len()) };
    usize::try_from(n).map_err(|_| io::Error::last_os_error())
}

impl Proc {
    fn spawn(reducer: &Reducer, limits: &Limits) -> io::Result<Proc> {
        reap_orphans();
        let (program, args) = reducer
            .argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty reducer command"))?;
        let mut command = std::process::Command::new(program);
        command
            .args(args)
            .env(RUN_ENV, &reducer.run_id)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: setsid is async-signal-safe; nothing else runs between
        // fork and exec.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn()?;
        let pid =
            libc::pid_t::try_from(child.id()).map_err(|_| io::Error::other("pid out of range"));
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        // From here on the child is ours to reap: `Child` is dropped
        // without waiting.
        drop(child);
        let pid = pid?;
        let mut proc = Proc {
            pid,
            pidfd: pidfd_open(pid),
            stdin: pipes.0.map(OwnedFd::from),
            stdout: pipes.1.map(OwnedFd::from),
            stderr: pipes.2.map(OwnedFd::from),
            exited: false,
            status: None,
            gone: false,
            write_error: None,
            tail: Tail {
                cap: limits.stderr_tail,
                buf: Vec::new(),
                truncated: false,
            },
            chunk: vec![0; CHUNK].into_boxed_slice(),
        };
        let ready = [&proc.stdin, &proc.stdout, &proc.stderr]
            .into_iter()
            .try_for_each(|fd| match fd {
                Some(fd) => set_nonblocking(fd),
                None => Err(io::Error::other("child pipes missing")),
            });
        match ready {
            Ok(()) => Ok(proc),
            Err(e) => {
                proc.finish();
                Err(e)
            }
        }
    }

    /// Whether the process has exited (without reaping it: while it is a
    /// zombie its pid, and so its process group id, cannot be reused,
    /// which keeps `killpg` on that group safe).
    fn check_exited(&mut self) -> bool {
        if !self.exited && !self.gone {
            // SAFETY: `info` is a plain C struct that waitid fills in.
            let found = unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                let rc = libc::waitid(
                    libc::P_PID,
                    self.pid as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                );
                rc == 0 && info.si_pid() != 0
            };
            self.exited = found;
        }
        self.exited || self.gone
    }

    /// Waits once, until `deadline` at most, for something to do, and does
    /// it: writes what it can of `input`, reads stdout into `out` (while
    /// `out` holds fewer than `cap` bytes), stderr into the tail, and notes
    /// an exit.
    fn poll(
        &mut self,
        deadline: Instant,
        input: &mut Outgoing,
        out: &mut Vec<u8>,
        cap: usize,
    ) -> Woke {
        if let Some(s) = interrupt::requested() {
            return Woke::Interrupted(s);
        }
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(5);
        let mut tags: Vec<u8> = Vec::with_capacity(5);
        let mut watch = |fd: BorrowedFd<'_>, events: libc::c_short, tag: u8| {
            fds.push(libc::pollfd {
                fd: fd.as_raw_fd(),
                events,
                revents: 0,
            });
            tags.push(tag);
        };
        if let Some(fd) = &self.stdin {
            if !input.done() {
                watch(fd.as_fd(), libc::POLLOUT, IN);
            }
        }
        if let Some(fd) = &self.stdout {
            if out.len() < cap {
                watch(fd.as_fd(), libc::POLLIN, OUT);
            }
        }
        if let Some(fd) = &self.stderr {
            watch(fd.as_fd(), libc::POLLIN, ERR);
        }
        let pidfd_watched = match &self.pidfd {
            Some(fd) if !self.exited => {
                watch(fd.as_fd(), libc::POLLIN, PID);
                true
            }
            _ => false,
        };
        if let Some(fd) = interrupt::wake_fd() {
            watch(fd, libc::POLLIN, STOP);
        }
        let now = Instant::now();
        if now >= deadline {
            return Woke::TimedOut;
        }
        let left = deadline - now;
        // Without a pidfd an exit is noticed by looking every 10 ms.
        let left = if pidfd_watched || self.exited {
            left
        } else {
            left.min(Duration::from_millis(10))
        };
        let ms = libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs.
        let rc = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
        if rc < 0 {
            // EINTR (a signal; the stop pipe says whether it matters) or
            // a resource shortage: try again, after a pause for the latter.
            if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                std::thread::sleep(Duration::from_millis(1));
            }
            return Woke::Ready;
        }
        let mut chunk = std::mem::take(&mut self.chunk);
        let woke = self.read_ready(&fds, &tags, input, out, cap, &mut chunk);
        self.chunk = chunk;
        if let Some(woke) = woke {
            return woke;
        }
        // With a pidfd watched, an exit is what makes it readable: only
        // then is `waitid` asked (one call fewer per wake-up).
        let pid_fired = fds
            .iter()
            .zip(&tags)
            .any(|(fd, &tag)| tag == PID && fd.revents != 0);
        if !pidfd_watched || pid_fired {
            self.check_exited();
        }
        if rc == 0 && Instant::now() >= deadline {
            return Woke::TimedOut;
        }
        Woke::Ready
    }

    /// Serves the descriptors `poll` found ready (their `tags`), reading
    /// into `chunk`; `Some` when a stop was asked for.
    fn read_ready(
        &mut self,
        fds: &[libc::pollfd],
        tags: &[u8],
        input: &mut Outgoing,
        out: &mut Vec<u8>,
        cap: usize,
        chunk: &mut [u8],
    ) -> Option<Woke> {
        for (fd, tag) in fds.iter().zip(tags) {
            if fd.revents == 0 {
                continue;
            }
            match *tag {
                STOP => {
                    return Some(Woke::Interrupted(
                        interrupt::requested().unwrap_or(libc::SIGINT),
                    ));
                }
                IN => self.write_some(input),
                OUT => {
                    let want = CHUNK.min(cap - out.len());
                    if let Some(stdout) = &self.stdout {
                        match read_fd(stdout.as_fd(), &mut chunk[..want]) {
                            Ok(0) => self.stdout = None,
                            Ok(n) => out.extend_from_slice(&chunk[..n]),
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(_) => self.stdout = None,
                        }
                    }
                }
                ERR => {
                    if let Some(stderr) = &self.stderr {
                        match read_fd(stderr.as_fd(), chunk) {
                            Ok(0) => self.stderr = None,
                            Ok(n) => self.tail.push(&chunk[..n]),
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(_) => self.stderr = None,
                        }
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// How many bytes written to the process's stdin it has not read yet
    /// (`FIONREAD` on the pipe); `None` when stdin is closed or the
    /// system does not say.
    fn unread_input(&self) -> Option<usize> {
        let fd = self.stdin.as_ref()?;
        let mut n: libc::c_int = 0;
        // SAFETY: FIONREAD writes one int through the pointer, which
        // points at `n` for the call's duration; `fd` is open.
        let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut n) };
        (r == 0).then(|| usize::try_from(n).unwrap_or(0))
    }

    fn write_some(&mut self, input: &mut Outgoing) {
        let Some(stdin) = &self.stdin else { return };
        match write_fd(stdin.as_fd(), &input.data[input.written..]) {
            Ok(n) => input.written += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                // EPIPE: it closed its stdin (or died).
                self.write_error = Some(e.to_string());
                self.stdin = None;
                return;
            }
        }
        if input.done() && input.close_after {
            self.stdin = None;
        }
    }

    /// Whether stdout (when `stdout_too`) or stderr has bytes or an
    /// end-of-file to read now: one `poll` that does not wait, instead of
    /// a `read` on each that finds nothing (the common case between
    /// requests).
    fn anything_readable(&self, stdout_too: bool) -> bool {
        let mut fds = [libc::pollfd {
            fd: -1,
            events: libc::POLLIN,
            revents: 0,
        }; 2];
        if let (Some(fd), true) = (&self.stdout, stdout_too) {
            fds[0].fd = fd.as_raw_fd();
        }
        if let Some(fd) = &self.stderr {
            fds[1].fd = fd.as_raw_fd();
        }
        if fds.iter().all(|f| f.fd < 0) {
            return false;
        }
        // SAFETY: `fds` is a valid array of two pollfd structs; a negative
        // fd is ignored by poll(2).
        let rc = unsafe { libc::poll(fds.as_mut_ptr(), 2, 0) };
        // An error (EINTR, ENOMEM): read as before, which finds out.
        rc != 0
    }

    /// Reads stdout into `out` (up to `cap` bytes) and stderr into the
    /// tail, without waiting: until neither has more right now, both are
    /// at end-of-file, or `until` passes (a descendant may write without
    /// end).
    fn drain(&mut self, out: &mut Vec<u8>, cap: usize, until: Instant) {
        let mut chunk = std::mem::take(&mut self.chunk);
        self.drain_into(out, cap, until, &mut chunk);
        self.chunk = chunk;
    }

    fn drain_into(&mut self, out: &mut Vec<u8>, cap: usize, until: Instant, chunk: &mut [u8]) {
        if !self.anything_readable(out.len() < cap) {
            return;
        }
        loop {
            let mut more = false;
            if let Some(stdout) = &self.stdout {
                if out.len() < cap {
                    let want = CHUNK.min(cap - out.len());
                    match read_fd(stdout.as_fd(), &mut chunk[..want]) {
                        Ok(0) => self.stdout = None,
                        Ok(n) => {
                            out.extend_from_slice(&chunk[..n]);
                            more = true;
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => more = true,
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                        Err(_) => self.stdout = None,
                    }
                }
            }
            if let Some(stderr) = &self.stderr {
                match read_fd(stderr.as_fd(), chunk) {
                    Ok(0) => self.stderr = None,
                    Ok(n) => {
                        self.tail.push(&chunk[..n]);
                        more = true;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => more = true,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(_) => self.stderr = None,
                }
            }
            if !more || Instant::now() >= until {
                return;
            }
        }
    }

    /// Waits up to `grace` for the process to exit by itself (reading its
    /// stderr meanwhile), and reaps it then. `None` while it runs.
    fn wait_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
        let until = deadline_after(grace);
        let mut nothing = Outgoing::new(Vec::new(), false);
        let mut sink = Vec::new();
        while !self.check_exited() {
            // stdout is not read here (`cap` 0): what it still writes is no
            // answer.
            match self.poll(until, &mut nothing, &mut sink, 0) {
                Woke::Ready => {}
                Woke::TimedOut | Woke::Interrupted(_) => break,
            }
        }
        if self.exited {
            self.kill_group();
            self.reap()
        } else {
            None
        }
    }

    /// How a persistent process that stopped answering ended, waiting up
    /// to `grace` for it to exit.
    fn describe_end(&mut self, grace: Duration) -> String {
        match self.wait_exit(grace) {
            Some(s) => describe_status(s),
            None if self.stdout.is_none() => "closed its stdout without exiting".to_string(),
            None => match &self.write_error {
                Some(e) => format!("stopped reading its stdin ({e}) without exiting"),
                None => "stopped responding".to_string(),
            },
        }
    }

    /// Kills the reducer's process group (what is left of it), and the
    /// reducer itself, whether or not it is still in the group.
    fn kill_group(&self) {
        if !self.gone {
            // SAFETY: plain syscalls; the reducer is not reaped yet, so
            // `pid` still names it and its group and no other.
            unsafe {
                libc::killpg(self.pid, libc::SIGKILL);
                libc::kill(self.pid, libc::SIGKILL);
            }
        }
    }

    /// Reaps an exited process; its status.
    fn reap(&mut self) -> Option<ExitStatus> {
        if !self.gone {
            let mut status = 0;
            // SAFETY: plain syscall on our own child, which has exited.
            let rc = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
            if rc == self.pid {
                self.status = Some(ExitStatus::from_raw(status));
                self.gone = true;
            }
        }
        self.status
    }

    /// Ends the process: closes the kit's ends of its pipes (nothing waits
    /// for their end-of-file), kills its group and itself, and reaps it
    /// within [`GRACE`] (else it is reaped later). Its exit status when it
    /// was reaped.
    fn finish(&mut self) -> Option<ExitStatus> {
        self.stdin = None;
        self.stdout = None;
        self.stderr = None;
        if self.gone {
            return self.status;
        }
        self.kill_group();
        let until = deadline_after(GRACE);
        while !self.check_exited() && Instant::now() < until {
            match &self.pidfd {
                Some(fd) => {
                    let mut p = libc::pollfd {
                        fd: fd.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    };
                    // SAFETY: one valid pollfd.
                    unsafe { libc::poll(&mut p, 1, 10) };
                }
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        if self.exited {
            self.reap();
        }
        if !self.gone {
            ORPHANS
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(self.pid);
            self.gone = true;
        }
        self.status
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if !self.gone {
            self.finish();
        }
    }
}

// ---------------------------------------------------------------------------
// Exit status text.

/// `"exit status 3"`, `"killed by signal 9 (SIGKILL)"`.
fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        format!("exit status {code}")
    } else if let Some(sig) = status.signal() {
        format!("killed by {}", signal_text(sig))
    } else {
        status.to_string()
    }
}

/// `"signal 11 (SIGSEGV)"`.
fn signal_text(sig: i32) -> String {
    match signal_name(sig) {
        Some(name) => format!("signal {sig} ({name})"),
        None => format!("signal {sig}"),
    }
}

/// The name of signal `sig` (`"SIGINT"`), when it has one.
pub fn signal_name(sig: i32) -> Option<&'static str> {
    Some(match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGCHLD => "SIGCHLD",
        libc::SIGCONT => "SIGCONT",
        libc::SIGSTOP => "SIGSTOP",
        libc::SIGTSTP => "SIGTSTP",
        libc::SIGTTIN => "SIGTTIN",
        libc::SIGTTOU => "SIGTTOU",
        libc::SIGURG => "SIGURG",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGVTALRM => "SIGVTALRM",
        libc::SIGPROF => "SIGPROF",
        libc::SIGWINCH => "SIGWINCH",
        libc::SIGIO => "SIGIO",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tail(cap: usize) -> Tail {
        Tail {
            cap,
            buf: Vec::new(),
            truncated: false,
        }
    }

    #[test]
    fn tail_keeps_last_bytes() {
        let mut t = tail(4);
        t.push(b"ab");
        t.push(b"cdef");
        assert_eq!(t.take(), "cdef");
        t.push(b"x");
        t.push(b"yz");
        assert_eq!(t.take(), "xyz");
        t.push(b"0123456789");
        assert_eq!(t.take(), "6789");
    }

    #[test]
    fn tail_zero_keeps_nothing() {
        let mut t = tail(0);
        t.push(b"abc");
        assert_eq!(t.take(), "");
    }

    #[test]
    fn tail_drops_cut_character() {
        let mut t = tail(4);
        t.push("aé€".as_bytes()); // 1 + 2 + 3 bytes; last 4 = [0xA9, €]
        assert_eq!(t.take(), "€");
    }

    #[test]
    fn status_text() {
        assert_eq!(
            describe_status(ExitStatus::from_raw(3 << 8)),
            "exit status 3"
        );
        assert_eq!(
            describe_status(ExitStatus::from_raw(libc::SIGKILL)),
            "killed by signal 9 (SIGKILL)"
        );
        assert_eq!(
            describe_status(ExitStatus::from_raw(libc::SIGSEGV | 0x80)),
            "killed by signal 11 (SIGSEGV)"
        );
    }

    #[test]
    fn unrequested_text_names_the_count_and_the_first_bytes() {
        let mut u = Unrequested::default();
        u.push(b"extra\n");
        assert_eq!(
            u.to_string(),
            r#"wrote 6 unrequested bytes after its answer: "extra\n""#
        );
        u.push(&[b'x'; 100]);
        assert_eq!(u.bytes, 106);
        assert_eq!(u.head.len(), 80);
        assert!(u.to_string().ends_with("xxx\"..."), "{u}");
        let mut one = Unrequested::default();
        one.push(b"\n");
        assert_eq!(
            one.to_string(),
            r#"wrote 1 unrequested byte after its answer: "\n""#
        );
    }
}
