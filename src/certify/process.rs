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

#[cfg(feature = "process")]
use super::interrupt;
use std::ffi::OsString;
use std::fmt;
use std::io;
#[cfg(feature = "process")]
use std::os::unix::process::ExitStatusExt;
#[cfg(feature = "process")]
use std::process::ExitStatus;
use std::time::Duration;

// The processes themselves (feature `process`): without it the types of
// this module remain, for the sessions that run in process.
#[cfg(feature = "process")]
mod persistent;
#[cfg(feature = "process")]
mod proc;
#[cfg(feature = "process")]
pub use persistent::{IsAnswer, Persistent};
#[cfg(feature = "process")]
use proc::{deadline_after, reap_orphans, Outgoing, Proc, Woke};

/// The environment variable that marks every reducer process of a run: its
/// value is the run's random id ([`Reducer::run_id`]), so that the run's
/// processes can be told from any other (spec §8.6).
pub const RUN_ENV: &str = "REDUCER_KIT_RUN";

/// How long the kit waits, once it has killed a reducer, for it to be
/// reaped; how long it lets a persistent reducer that closed its stdout or
/// stdin (or its stdin was closed at the end) take to exit by itself; and
/// the longest the kit reads a dying reducer's pipes.
pub const GRACE: Duration = Duration::from_secs(1);

/// How many bytes of unrequested output are kept to show
/// ([`Unrequested::head`]).
#[cfg_attr(not(feature = "process"), allow(dead_code))]
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
    /// Persistent mode: the start-up allowance of a worker
    /// (`--startup-timeout`, spec §8.5), one for the run: every new process
    /// of the worker (the first, and each restart) may take what is left of
    /// it to read its first request, and draws on it for the time it took;
    /// once it has read it, the answer must come within `timeout`. A
    /// process that does not read its first request in time spends it all;
    /// once it is spent, every request gets `timeout` alone. Per-case
    /// mode: unused (the start-up is part of every request there).
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

impl Limits {
    /// The default of [`Limits::timeout`] (`--timeout`), in milliseconds.
    pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;
    /// The default of [`Limits::startup_timeout`] (`--startup-timeout`),
    /// in milliseconds.
    pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 60_000;
    /// The default of [`Limits::max_output`] (`--max-output`), in bytes.
    pub const DEFAULT_MAX_OUTPUT: usize = 16 * 1024 * 1024;
}

impl Default for Limits {
    /// 10 s per request, 60 s more for a persistent reducer's start-up,
    /// 16 MiB of stdout ([`Limits::DEFAULT_TIMEOUT_MS`] and the others:
    /// the command line's defaults), 4 KiB of stderr tail.
    fn default() -> Self {
        Limits {
            timeout: Duration::from_millis(Limits::DEFAULT_TIMEOUT_MS),
            startup_timeout: Duration::from_millis(Limits::DEFAULT_STARTUP_TIMEOUT_MS),
            max_output: Limits::DEFAULT_MAX_OUTPUT,
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

#[cfg_attr(not(feature = "process"), allow(dead_code))]
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
/// the request in flight (spec §13.7).
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

#[cfg_attr(not(feature = "process"), allow(dead_code))]
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

/// How long the reducer takes to start and exit when it is given no
/// request (an empty line, then its stdin closed), bounded by `bound` (and the run's
/// [`Limits::timeout`]): what a per-case run pays on every request
/// beyond the work a persistent process does (spec §8.2, §8.3). `None`
/// when it cannot be started, times out, or the kit is stopped; an exit
/// with an error status counts (a reducer may refuse an empty request).
#[cfg(feature = "process")]
pub fn startup_time(reducer: &Reducer, limits: &Limits, bound: Duration) -> Option<Duration> {
    let limits = Limits {
        timeout: limits.timeout.min(bound),
        ..*limits
    };
    let start = std::time::Instant::now();
    let reply = run_once(reducer, b"\n", &limits);
    let took = start.elapsed();
    match reply.failure {
        None | Some(Failure::Crash { .. }) => Some(took),
        Some(_) => None,
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
#[cfg(feature = "process")]
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

/// Without the feature `process` there are no reducer processes to sweep:
/// 0.
#[cfg(not(feature = "process"))]
pub fn sweep(_run_id: &str) -> usize {
    0
}

/// Kills every process that carries `run_id` as its [`RUN_ENV`] (read from
/// `/proc/<pid>/environ`), except this one: descendants of the run's
/// reducers that escaped their process group (with `setsid`) and are still
/// alive. Returns how many were killed. Processes of other users, and those
/// that changed their environment, are out of its reach.
#[cfg(feature = "process")]
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

/// `"exit status 3"`, `"killed by signal 9 (SIGKILL)"`.
#[cfg(feature = "process")]
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

/// The name of signal `sig` (`"SIGINT"`), when it has one: without the
/// feature `process`, SIGINT (2) and SIGTERM (15), the stops a binding
/// requests ([`super::interrupt::request`]).
#[cfg(not(feature = "process"))]
pub fn signal_name(sig: i32) -> Option<&'static str> {
    match sig {
        2 => Some("SIGINT"),
        15 => Some("SIGTERM"),
        _ => None,
    }
}

/// The name of signal `sig` (`"SIGINT"`), when it has one.
#[cfg(feature = "process")]
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

    #[test]
    fn startup_time_is_a_run_on_no_request() {
        let sh = |script: &str| Reducer::new(vec!["sh".into(), "-c".into(), script.into()]);
        let limits = Limits::default();
        let bound = Duration::from_secs(5);
        // Exits at once, with or without an error status.
        assert!(startup_time(&sh("cat >/dev/null"), &limits, bound).is_some());
        assert!(startup_time(&sh("cat >/dev/null; exit 3"), &limits, bound).is_some());
        // Waits past the bound: not measurable.
        assert_eq!(
            startup_time(&sh("sleep 5"), &limits, Duration::from_millis(50)),
            None
        );
        // Cannot be started.
        let missing = Reducer::new(vec!["/nonexistent/reducer".into()]);
        assert_eq!(startup_time(&missing, &limits, bound), None);
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
