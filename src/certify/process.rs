//! Running one external reducer command safely (runner protocol v1, design
//! semantics §7). Linux (Unix) only.
//!
//! Two modes:
//!
//! * [`run_once`] — per-case mode: one process per request; the request is
//!   written to stdin, stdin is closed, the whole stdout is the response.
//! * [`Persistent`] — persistent mode: one long-lived process speaking JSON
//!   Lines, restarted transparently after a failure.
//!
//! Safety properties, whatever the reducer does:
//!
//! * The command is executed directly (never through a shell); nothing but
//!   `argv` is passed, and the environment is inherited unchanged.
//! * Every reducer runs in its own process group; at the end of a case (and
//!   whenever a persistent process fails or is dropped) the whole group is
//!   killed with `SIGKILL` and the reducer is reaped, so no zombie is left and
//!   descendants that stayed in the group (`sleep 1000 &`) are gone too.
//!   Descendants that leave the group on purpose (`setsid`) are out of reach.
//! * stdin, stdout and stderr are each served by their own thread, so a
//!   reducer that never reads, never writes, or floods stderr cannot block the
//!   kit; stdout is capped at [`Limits::max_output`] bytes and only the last
//!   [`Limits::stderr_tail`] bytes of stderr are kept in memory.
//! * No reducer behaviour makes these functions panic. The calls return
//!   within the time limit plus about a second of grace, except that the
//!   final reaping waits for `SIGKILL` to take effect.
//! * A descendant that escaped the group and keeps the reducer's pipes open
//!   can only keep the kit's helper threads for that reducer alive (blocked on
//!   the pipe); it cannot delay the reply by more than the grace period.
//!
//! Writing to a reducer that has closed its stdin relies on `SIGPIPE` being
//! ignored in the kit's process, which is the Rust runtime's default for
//! binaries and test harnesses (the write then fails with `EPIPE`).

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use std::{fmt, thread};

/// How long to keep waiting, after a reducer has exited or been killed, for
/// its pipes to reach end-of-file (only a descendant that escaped the process
/// group can make this wait last), and how long to wait for a reducer that
/// closed its stdout (or stdin) to exit on its own before killing it.
const GRACE: Duration = Duration::from_secs(1);

/// Size of one read from a reducer's stdout or stderr, in bytes.
const CHUNK: usize = 64 * 1024;

/// Capacity of the event queue between the helper threads and the caller; a
/// persistent reducer writing unrequested lines is throttled by it.
const EVENT_QUEUE: usize = 16;

/// Resource limits for one reducer request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time allowed for one request, measured from just before the
    /// process is spawned (per-case mode) or from the moment the request is
    /// sent (persistent mode; a restart is not counted).
    pub timeout: Duration,
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
    /// 10 s, 16 MiB of stdout, 4 KiB of stderr tail.
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            max_output: 16 * 1024 * 1024,
            stderr_tail: 4 * 1024,
        }
    }
}

/// Why a request produced no usable response (a protocol failure of the case,
/// except [`Failure::Spawn`], which is a problem of the command itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No complete response within [`Limits::timeout`]; the process group was
    /// killed.
    Timeout,
    /// The response exceeded [`Limits::max_output`] bytes; reading stopped and
    /// the process group was killed.
    TooLarge,
    /// The process exited with a non-zero status or was killed by a signal
    /// (per-case mode), or stopped serving requests (persistent mode: closed
    /// its stdout, stopped reading its stdin, or exited — even with status 0).
    Crash {
        /// How it ended: `"exit status 3"`, `"killed by signal 11 (SIGSEGV)"`,
        /// or, for a persistent process that was still running when the kit
        /// gave up on it, a sentence such as
        /// `"closed its stdout without exiting"`.
        status: String,
    },
    /// The process could not be started (or, rarely, a helper thread could not
    /// be created); the text is the operating system's error message.
    Spawn(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Timeout => f.write_str("timed out"),
            Failure::TooLarge => f.write_str("output too large"),
            Failure::Crash { status } => write!(f, "crashed ({status})"),
            Failure::Spawn(e) => write!(f, "could not start: {e}"),
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

impl Reply {
    fn spawn_failure(e: &io::Error) -> Reply {
        Reply {
            stdout: Vec::new(),
            stderr_tail: String::new(),
            failure: Some(Failure::Spawn(e.to_string())),
        }
    }
}

/// Per-case mode: runs `argv` once with `input` as its whole stdin.
///
/// Spawns `argv[0]` with arguments `argv[1..]` (looked up in `PATH` when it
/// has no `/`) in a new process group, writes `input` to its stdin and closes
/// it, reads stdout (at most [`Limits::max_output`] bytes; one more byte
/// stops reading and kills the group → [`Failure::TooLarge`]) while
/// draining stderr (keeping the tail), and waits for the process to exit
/// within [`Limits::timeout`] (→ [`Failure::Timeout`], group killed). A
/// non-zero exit or death by signal is [`Failure::Crash`]; an empty `argv` or
/// a command that cannot be started is [`Failure::Spawn`].
///
/// The response is complete when the process itself exits (not when stdout
/// reaches end-of-file, which a left-behind descendant can delay forever).
/// In every case the whole process group is then killed and the process
/// reaped before returning. A reducer that closes its stdin without reading
/// it all is not a failure by itself.
pub fn run_once(argv: &[OsString], input: &[u8], limits: &Limits) -> Reply {
    let deadline = deadline_after(limits.timeout);
    let mut proc = match Proc::spawn(argv, limits, Mode::Whole(input.to_vec())) {
        Ok(p) => p,
        Err(e) => return Reply::spawn_failure(&e),
    };
    let mut failure = None;
    loop {
        if proc.exited {
            break;
        }
        if proc.overflowed {
            failure = Some(Failure::TooLarge);
            break;
        }
        match proc.wait(deadline) {
            Wait::Event(e) => proc.record(e),
            Wait::TimedOut => {
                failure = Some(Failure::Timeout);
                break;
            }
            Wait::Closed => break,
        }
    }
    let status = proc.finish(Instant::now() + GRACE);
    if failure.is_none() && proc.overflowed {
        failure = Some(Failure::TooLarge);
    }
    if failure.is_none() {
        if let Some(status) = status.filter(|s| !s.success()) {
            failure = Some(Failure::Crash {
                status: describe_status(status),
            });
        }
    }
    Reply {
        stdout: proc.take_stdout(),
        stderr_tail: proc.take_stderr(),
        failure,
    }
}

/// Persistent mode: one long-lived reducer process speaking JSON Lines (one
/// request line in, one response line out).
///
/// After a failed request the process group is killed, and the next
/// [`Persistent::request`] starts a new process transparently (counted by
/// [`Persistent::restarts`]); a process found dead between two requests is
/// restarted the same way. Dropping a `Persistent` kills its process group
/// and reaps the process.
pub struct Persistent {
    argv: Vec<OsString>,
    limits: Limits,
    proc: Option<Proc>,
    restarts: usize,
}

impl fmt::Debug for Persistent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Persistent")
            .field("argv", &self.argv)
            .field("limits", &self.limits)
            .field("pid", &self.proc.as_ref().map(|p| p.pgid))
            .field("restarts", &self.restarts)
            .finish()
    }
}

impl Persistent {
    /// Starts `argv` (see [`run_once`] for how it is run) as a persistent
    /// reducer.
    ///
    /// # Errors
    ///
    /// The spawn error when the command cannot be started
    /// ([`io::ErrorKind::InvalidInput`] for an empty `argv`).
    pub fn start(argv: &[OsString], limits: Limits) -> io::Result<Persistent> {
        let proc = Proc::spawn(argv, &limits, Mode::Lines)?;
        Ok(Persistent {
            argv: argv.to_vec(),
            limits,
            proc: Some(proc),
            restarts: 0,
        })
    }

    /// Sends one request and reads one response line.
    ///
    /// Writes `line` followed by `'\n'` (the caller must not put a `'\n'`
    /// inside `line`) and waits up to [`Limits::timeout`] for one line of
    /// stdout, returned without its `'\n'` (and without any `'\r'` removed).
    /// Lines the reducer wrote before this request that nobody asked for are
    /// discarded. Failures: [`Failure::Timeout`]; [`Failure::TooLarge`] when
    /// the line grows beyond [`Limits::max_output`] bytes;
    /// [`Failure::Crash`] when the process closes its stdout, exits, or stops
    /// reading its stdin; [`Failure::Spawn`] when a needed restart fails
    /// (tried again on the next call). After any failure except `Spawn` the
    /// process group has been killed and the next call restarts it.
    pub fn request(&mut self, line: &[u8]) -> Reply {
        if let Some(proc) = &mut self.proc {
            proc.discard_pending();
            if proc.is_dead() {
                if let Some(mut dead) = self.proc.take() {
                    dead.finish(Instant::now() + GRACE);
                }
            }
        }
        let proc = match &mut self.proc {
            Some(p) => p,
            None => match Proc::spawn(&self.argv, &self.limits, Mode::Lines) {
                Ok(p) => {
                    self.restarts += 1;
                    self.proc.insert(p)
                }
                Err(e) => return Reply::spawn_failure(&e),
            },
        };
        let deadline = deadline_after(self.limits.timeout);
        let mut message = Vec::with_capacity(line.len() + 1);
        message.extend_from_slice(line);
        message.push(b'\n');
        proc.send(message);

        // Once the process has exited or stopped reading, its response may
        // still be in the stdout pipe: keep reading until end-of-file, for
        // at most `GRACE` (a descendant may hold stdout open).
        let mut wait_until = deadline;
        let mut dying = false;
        let failure = loop {
            if proc.overflowed {
                break Failure::TooLarge;
            }
            if proc.stdout_eof {
                break proc.crash(deadline_after(GRACE));
            }
            if !dying && (proc.exited || proc.write_error.is_some()) {
                dying = true;
                wait_until = wait_until.min(deadline_after(GRACE));
            }
            match proc.wait(wait_until) {
                Wait::Event(Event::Line(response)) => {
                    return Reply {
                        stdout: response,
                        stderr_tail: proc.take_stderr(),
                        failure: None,
                    };
                }
                Wait::Event(e) => proc.record(e),
                Wait::TimedOut if !dying => break Failure::Timeout,
                Wait::TimedOut | Wait::Closed => break proc.crash(deadline_after(GRACE)),
            }
        };
        proc.finish(Instant::now() + GRACE);
        let reply = Reply {
            stdout: proc.take_stdout(),
            stderr_tail: proc.take_stderr(),
            failure: Some(failure),
        };
        self.proc = None;
        reply
    }

    /// How many times the process has been started again after the first
    /// start (after a failed request or after dying between requests).
    pub fn restarts(&self) -> usize {
        self.restarts
    }
}

impl Drop for Persistent {
    /// Kills the process group and reaps the process (without waiting for
    /// its pipes to close).
    fn drop(&mut self) {
        if let Some(mut proc) = self.proc.take() {
            proc.finish(Instant::now());
        }
    }
}

// ---------------------------------------------------------------------------
// One running reducer process and its helper threads.

/// What the stdout reader does.
enum Mode {
    /// Per-case: write this input, close stdin, collect the whole stdout.
    Whole(Vec<u8>),
    /// Persistent: lines from the caller to stdin, lines from stdout as events.
    Lines,
}

/// Reported by the helper threads.
enum Event {
    /// Persistent mode: one complete stdout line, without its `'\n'`.
    Line(Vec<u8>),
    /// stdout reached end-of-file (or a read error).
    StdoutEof,
    /// stdout exceeded the limit; the reader stopped.
    StdoutOverflow,
    /// stderr reached end-of-file (or a read error).
    StderrEof,
    /// The process has exited (it is a zombie, not yet reaped).
    Exited,
    /// Writing to stdin failed (persistent mode).
    WriteFailed(String),
}

enum Wait {
    Event(Event),
    TimedOut,
    Closed,
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

struct Proc {
    child: Child,
    pgid: libc::pid_t,
    events: Receiver<Event>,
    /// Persistent mode: lines for the stdin writer thread.
    lines: Option<Sender<Vec<u8>>>,
    /// Per-case mode: the stdout read so far; persistent mode: the current
    /// incomplete line.
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Tail>>,
    stdout_eof: bool,
    overflowed: bool,
    stderr_eof: bool,
    exited: bool,
    write_error: Option<String>,
    reaped: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(86_400 * 365))
}

impl Proc {
    fn spawn(argv: &[OsString], limits: &Limits, mode: Mode) -> io::Result<Proc> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty reducer command"))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let pgid = match libc::pid_t::try_from(child.id()) {
            Ok(p) => p,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(io::Error::other("process id out of range"));
            }
        };
        let (tx, events) = mpsc::sync_channel(EVENT_QUEUE);
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Tail {
            cap: limits.stderr_tail,
            buf: Vec::new(),
            truncated: false,
        }));
        let mut proc = Proc {
            child,
            pgid,
            events,
            lines: None,
            stdout: Arc::clone(&stdout),
            stderr: Arc::clone(&stderr),
            stdout_eof: false,
            overflowed: false,
            stderr_eof: false,
            exited: false,
            write_error: None,
            reaped: false,
        };
        match proc.start_threads(tx, limits.max_output, mode) {
            Ok(()) => Ok(proc),
            Err(e) => {
                proc.kill_group();
                let _ = proc.child.wait();
                proc.reaped = true;
                Err(e)
            }
        }
    }

    fn start_threads(
        &mut self,
        tx: SyncSender<Event>,
        max_output: usize,
        mode: Mode,
    ) -> io::Result<()> {
        let (stdin, stdout, stderr) = match (
            self.child.stdin.take(),
            self.child.stdout.take(),
            self.child.stderr.take(),
        ) {
            (Some(i), Some(o), Some(e)) => (i, o, e),
            _ => return Err(io::Error::other("child pipes missing")),
        };
        let lines_mode = matches!(mode, Mode::Lines);
        {
            let tx = tx.clone();
            let buf = Arc::clone(&self.stdout);
            thread::Builder::new()
                .name("reducer-stdout".into())
                .spawn(move || read_stdout(stdout, &buf, max_output, lines_mode, &tx))?;
        }
        {
            let tx = tx.clone();
            let tail = Arc::clone(&self.stderr);
            thread::Builder::new()
                .name("reducer-stderr".into())
                .spawn(move || read_stderr(stderr, &tail, &tx))?;
        }
        match mode {
            Mode::Whole(input) => {
                thread::Builder::new()
                    .name("reducer-stdin".into())
                    .spawn(move || write_once(stdin, &input))?;
            }
            Mode::Lines => {
                let (lines_tx, lines_rx) = mpsc::channel();
                let tx = tx.clone();
                thread::Builder::new()
                    .name("reducer-stdin".into())
                    .spawn(move || write_lines(stdin, &lines_rx, &tx))?;
                self.lines = Some(lines_tx);
            }
        }
        // Last, so that on an error above nothing else waits on the child.
        let pid = self.pgid;
        thread::Builder::new()
            .name("reducer-wait".into())
            .spawn(move || wait_exit(pid, &tx))?;
        Ok(())
    }

    /// Next event before `deadline`.
    fn wait(&mut self, deadline: Instant) -> Wait {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.events.recv_timeout(left) {
            Ok(e) => Wait::Event(e),
            Err(RecvTimeoutError::Timeout) => Wait::TimedOut,
            Err(RecvTimeoutError::Disconnected) => Wait::Closed,
        }
    }

    /// Updates the state flags from an event (a `Line` is dropped).
    fn record(&mut self, e: Event) {
        match e {
            Event::Line(_) => {}
            Event::StdoutEof => self.stdout_eof = true,
            Event::StdoutOverflow => {
                self.stdout_eof = true;
                self.overflowed = true;
            }
            Event::StderrEof => self.stderr_eof = true,
            Event::Exited => self.exited = true,
            Event::WriteFailed(e) => self.write_error = Some(e),
        }
    }

    /// Records queued events without waiting, dropping unrequested lines.
    fn discard_pending(&mut self) {
        while let Ok(e) = self.events.try_recv() {
            self.record(e);
        }
    }

    /// Whether a persistent process can no longer serve requests.
    fn is_dead(&self) -> bool {
        self.exited || self.stdout_eof || self.write_error.is_some()
    }

    /// Persistent mode: hands one line to the stdin writer thread.
    fn send(&mut self, message: Vec<u8>) {
        let sent = match &self.lines {
            Some(lines) => lines.send(message).is_ok(),
            None => false,
        };
        if !sent && self.write_error.is_none() {
            self.write_error = Some("stdin writer gone".into());
        }
    }

    /// Persistent mode: the process stopped serving; give it until `deadline`
    /// to exit by itself and describe how it ended.
    fn crash(&mut self, deadline: Instant) -> Failure {
        while !self.exited {
            match self.wait(deadline) {
                Wait::Event(e) => self.record(e),
                Wait::TimedOut | Wait::Closed => break,
            }
        }
        let status = if self.exited {
            // Kill what it left behind in its group before reaping it.
            self.kill_group();
            match self.reap() {
                Some(s) => describe_status(s),
                None => "exited (status unavailable)".to_string(),
            }
        } else if self.stdout_eof {
            "closed its stdout without exiting".to_string()
        } else if let Some(e) = &self.write_error {
            format!("stopped reading its stdin ({e}) without exiting")
        } else {
            "stopped responding".to_string()
        };
        Failure::Crash { status }
    }

    fn kill_group(&self) {
        if !self.reaped {
            // SAFETY: plain syscall; the group leader is not reaped yet, so
            // `pgid` still names this reducer's group and no other.
            unsafe {
                libc::killpg(self.pgid, libc::SIGKILL);
            }
        }
    }

    /// Kills the process group, waits until `drain_until` for stdout and
    /// stderr to reach end-of-file, then reaps the process. Returns its exit
    /// status (`None` if it could not be had).
    fn finish(&mut self, drain_until: Instant) -> Option<ExitStatus> {
        self.kill_group();
        self.lines = None;
        while !(self.stdout_eof && self.stderr_eof && self.exited) {
            match self.wait(drain_until) {
                Wait::Event(e) => self.record(e),
                Wait::TimedOut | Wait::Closed => break,
            }
        }
        self.reap()
    }

    /// Waits for the exit event (so the waiter thread is done with the pid),
    /// then reaps. Only call once the process has exited or been killed.
    fn reap(&mut self) -> Option<ExitStatus> {
        if !self.reaped {
            while !self.exited {
                match self.events.recv() {
                    Ok(e) => self.record(e),
                    Err(_) => break,
                }
            }
        }
        self.reaped = true;
        // Returns the cached status if already reaped.
        self.child.wait().ok()
    }

    fn take_stdout(&mut self) -> Vec<u8> {
        std::mem::take(&mut *lock(&self.stdout))
    }

    fn take_stderr(&mut self) -> String {
        lock(&self.stderr).take()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill_group();
            self.lines = None;
            self.reap();
        }
    }
}

// ---------------------------------------------------------------------------
// Helper threads. They never panic and end when their pipe closes.

fn read_stdout(
    mut out: ChildStdout,
    buf: &Mutex<Vec<u8>>,
    max: usize,
    lines: bool,
    tx: &SyncSender<Event>,
) {
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match out.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let mut data = &chunk[..n];
        if lines {
            while let Some(pos) = data.iter().position(|&b| b == b'\n') {
                let line = {
                    let mut partial = lock(buf);
                    if partial.len() + pos > max {
                        let room = max - partial.len();
                        partial.extend_from_slice(&data[..room]);
                        drop(partial);
                        let _ = tx.send(Event::StdoutOverflow);
                        return;
                    }
                    partial.extend_from_slice(&data[..pos]);
                    std::mem::take(&mut *partial)
                };
                if tx.send(Event::Line(line)).is_err() {
                    return;
                }
                data = &data[pos + 1..];
            }
        }
        let mut kept = lock(buf);
        if kept.len() + data.len() > max {
            let room = max - kept.len();
            kept.extend_from_slice(&data[..room]);
            drop(kept);
            let _ = tx.send(Event::StdoutOverflow);
            return;
        }
        kept.extend_from_slice(data);
    }
    let _ = tx.send(Event::StdoutEof);
}

fn read_stderr(mut err: ChildStderr, tail: &Mutex<Tail>, tx: &SyncSender<Event>) {
    let mut chunk = vec![0u8; CHUNK];
    loop {
        match err.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => lock(tail).push(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = tx.send(Event::StderrEof);
}

/// Per-case stdin: a write error (`EPIPE` from a reducer that closed its
/// stdin) is not a failure by itself, so it is ignored.
fn write_once(mut stdin: ChildStdin, input: &[u8]) {
    let _ = stdin.write_all(input);
    let _ = stdin.flush();
}

fn write_lines(mut stdin: ChildStdin, lines: &Receiver<Vec<u8>>, tx: &SyncSender<Event>) {
    for line in lines {
        if let Err(e) = stdin.write_all(&line).and_then(|()| stdin.flush()) {
            let _ = tx.send(Event::WriteFailed(e.to_string()));
            return;
        }
    }
}

/// Waits for the process to exit without reaping it (`WNOWAIT`): while it is
/// a zombie its pid, and so its process group id, cannot be reused, which
/// keeps `killpg` on that group safe until the caller reaps it.
fn wait_exit(pid: libc::pid_t, tx: &SyncSender<Event>) {
    loop {
        // SAFETY: `info` is a plain C struct that waitid fills in.
        let rc = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break;
        }
    }
    let _ = tx.send(Event::Exited);
}

// ---------------------------------------------------------------------------
// Exit status text.

/// `"exit status 3"`, `"killed by signal 9 (SIGKILL)"`.
fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        format!("exit status {code}")
    } else if let Some(sig) = status.signal() {
        match signal_name(sig) {
            Some(name) => format!("killed by signal {sig} ({name})"),
            None => format!("killed by signal {sig}"),
        }
    } else {
        status.to_string()
    }
}

fn signal_name(sig: i32) -> Option<&'static str> {
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
}
