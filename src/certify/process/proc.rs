//! The reducer's process at the level of the operating system (spec
//! §8.6): spawned in a session of its own with its pipes non-blocking, one
//! `poll(2)` loop over stdin, stdout, stderr, a pidfd and the kit's stop
//! pipe, the group killed and the process reaped within a bounded grace.
//! [`super::run_once`] and [`super::Persistent`] are built on it.

use super::interrupt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{describe_status, Limits, Reducer, GRACE, RUN_ENV};

/// Size of one read from a reducer's stdout or stderr, in bytes.
pub(super) const CHUNK: usize = 64 * 1024;

/// What a descriptor `Proc::poll` watches is for.
pub(super) const IN: u8 = 0;
pub(super) const OUT: u8 = 1;
pub(super) const ERR: u8 = 2;
pub(super) const PID: u8 = 3;
pub(super) const STOP: u8 = 4;

/// What one [`Proc::poll`] found.
pub(super) enum Woke {
    /// Something was read, written, closed or the process exited.
    Ready,
    /// The deadline passed with nothing to do.
    TimedOut,
    /// The kit is stopping ([`interrupt`]); the signal.
    Interrupted(i32),
}

/// Bytes to write to the reducer's stdin.
pub(super) struct Outgoing {
    pub(super) data: Vec<u8>,
    pub(super) written: usize,
    /// Close stdin once everything is written (per-case mode).
    pub(super) close_after: bool,
}

impl Outgoing {
    pub(super) fn new(data: Vec<u8>, close_after: bool) -> Outgoing {
        Outgoing {
            data,
            written: 0,
            close_after,
        }
    }

    pub(super) fn done(&self) -> bool {
        self.written >= self.data.len()
    }
}

/// The last bytes of a stream.
pub(super) struct Tail {
    pub(super) cap: usize,
    pub(super) buf: Vec<u8>,
    pub(super) truncated: bool,
}

impl Tail {
    pub(super) fn push(&mut self, data: &[u8]) {
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

    pub(super) fn take(&mut self) -> String {
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
pub(super) static ORPHANS: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

pub(super) fn reap_orphans() {
    let mut orphans = ORPHANS.lock().unwrap_or_else(|p| p.into_inner());
    orphans.retain(|&pid| {
        let mut status = 0;
        // SAFETY: plain syscall on our own child.
        let rc = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        rc == 0
    });
}

pub(super) struct Proc {
    /// The reducer's pid, also its process group and session id.
    pub(super) pid: libc::pid_t,
    /// A pidfd of the reducer (readable once it exits), when the kernel
    /// has them.
    pub(super) pidfd: Option<OwnedFd>,
    pub(super) stdin: Option<OwnedFd>,
    pub(super) stdout: Option<OwnedFd>,
    pub(super) stderr: Option<OwnedFd>,
    /// It has exited (it may be a zombie not reaped yet).
    pub(super) exited: bool,
    /// Its status, once reaped.
    pub(super) status: Option<ExitStatus>,
    /// Reaped or handed over to [`ORPHANS`]: `pid` names it no longer.
    pub(super) gone: bool,
    /// Why writing to its stdin failed.
    pub(super) write_error: Option<String>,
    pub(super) tail: Tail,
    /// What reads from its pipes land in ([`CHUNK`] bytes, allocated once
    /// per process: a zeroed 64 KiB array per wake-up was 5% of certify's
    /// own time).
    pub(super) chunk: Box<[u8]>,
}

pub(super) fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(86_400 * 365))
}

pub(super) fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
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

/// A pidfd of `pid` (Linux 5.3 and later): readable once the process
/// exits, so the poll loop wakes for the exit itself. `None` where there is
/// none (an older kernel, macOS): the loop then looks for the exit every 10
/// ms, with the same guarantees.
#[cfg(target_os = "linux")]
pub(super) fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    use std::os::fd::{FromRawFd, RawFd};
    // SAFETY: plain syscall; on success the kernel returns a new descriptor
    // (close-on-exec) that we own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = RawFd::try_from(fd).ok().filter(|&fd| fd >= 0)?;
    // SAFETY: `fd` is a new descriptor owned by nobody else.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// No pidfd outside Linux (see the Linux version).
#[cfg(not(target_os = "linux"))]
pub(super) fn pidfd_open(_pid: libc::pid_t) -> Option<OwnedFd> {
    None
}

/// `read(2)` into `buf`; `Ok(0)` is end-of-file.
pub(super) fn read_fd(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` bytes.
    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    usize::try_from(n).map_err(|_| io::Error::last_os_error())
}

pub(super) fn write_fd(fd: BorrowedFd<'_>, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` bytes.
    let n = unsafe { libc::write(fd.as_raw_fd(), buf.as_ptr().cast(), buf.len()) };
    usize::try_from(n).map_err(|_| io::Error::last_os_error())
}

impl Proc {
    pub(super) fn spawn(reducer: &Reducer, limits: &Limits) -> io::Result<Proc> {
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
    pub(super) fn check_exited(&mut self) -> bool {
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
    pub(super) fn poll(
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
        if input.done() && input.close_after {
            // Nothing (left) to write, as with an empty input: the
            // reducer reads end-of-file at once.
            self.stdin = None;
        }
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
    pub(super) fn read_ready(
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
    pub(super) fn unread_input(&self) -> Option<usize> {
        let fd = self.stdin.as_ref()?;
        let mut n: libc::c_int = 0;
        // SAFETY: FIONREAD writes one int through the pointer, which
        // points at `n` for the call's duration; `fd` is open.
        let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut n) };
        (r == 0).then(|| usize::try_from(n).unwrap_or(0))
    }

    pub(super) fn write_some(&mut self, input: &mut Outgoing) {
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
    pub(super) fn anything_readable(&self, stdout_too: bool) -> bool {
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
    pub(super) fn drain(&mut self, out: &mut Vec<u8>, cap: usize, until: Instant) {
        let mut chunk = std::mem::take(&mut self.chunk);
        self.drain_into(out, cap, until, &mut chunk);
        self.chunk = chunk;
    }

    pub(super) fn drain_into(
        &mut self,
        out: &mut Vec<u8>,
        cap: usize,
        until: Instant,
        chunk: &mut [u8],
    ) {
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
    pub(super) fn wait_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
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
    pub(super) fn describe_end(&mut self, grace: Duration) -> String {
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
    pub(super) fn kill_group(&self) {
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
    pub(super) fn reap(&mut self) -> Option<ExitStatus> {
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
    pub(super) fn finish(&mut self) -> Option<ExitStatus> {
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
}
