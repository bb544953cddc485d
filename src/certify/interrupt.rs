//! Stopping a run from outside (spec §8.7): SIGINT and SIGTERM to the kit
//! end every reducer request in flight at once and stop the run.
//!
//! [`install`] registers handlers (with `signal-hook`) that record the
//! signal and write one byte to a self-pipe. Every wait of
//! [`super::process`] polls the pipe's read end besides the reducer's
//! pipes, so a signal wakes it at once; the byte is never read, so the pipe
//! stays readable and wakes every later wait too. The waits then kill the
//! reducer's process group and report [`super::process::Failure::Interrupted`],
//! and the runner stops taking cases.
//!
//! The state is global to the process (signals are): once a stop is
//! requested, every later reducer request in this process fails at once.
//!
//! Without the feature `process` (WebAssembly) there are no signals and no
//! pipe: [`request`] and [`requested`] still record a stop.

#[cfg(feature = "process")]
use std::io;
#[cfg(feature = "process")]
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
#[cfg(feature = "process")]
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicUsize, Ordering};
#[cfg(feature = "process")]
use std::sync::OnceLock;

/// The signal that stopped the run, 0 while none has.
static SIGNAL: AtomicUsize = AtomicUsize::new(0);

/// Whether a signal ends the process at once ([`exit_at_once`]).
#[cfg(feature = "process")]
static AT_ONCE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The self-pipe: its read end (polled) and write end (written on a stop).
#[cfg(feature = "process")]
struct Wake {
    read: UnixStream,
    write: UnixStream,
}

#[cfg(feature = "process")]
static WAKE: OnceLock<Option<Wake>> = OnceLock::new();

#[cfg(feature = "process")]
fn wake() -> Option<&'static Wake> {
    WAKE.get_or_init(|| {
        let (read, write) = UnixStream::pair().ok()?;
        read.set_nonblocking(true).ok()?;
        write.set_nonblocking(true).ok()?;
        Some(Wake { read, write })
    })
    .as_ref()
}

/// Installs the handlers of SIGINT and SIGTERM: each records its signal
/// (the first one wins) and wakes every wait of [`super::process`]. The
/// kit's `certify` command calls it once; a library user who wants another
/// policy does not.
///
/// # Errors
///
/// The operating system's error when the self-pipe cannot be made or a
/// handler cannot be registered.
#[cfg(feature = "process")]
pub fn install() -> io::Result<()> {
    let w = wake().ok_or_else(|| io::Error::other("cannot create the self-pipe"))?;
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // The first signal is kept: a SIGTERM after a SIGINT does not
        // change the exit code.
        // SAFETY: the action only does a compare-and-swap on an atomic, or
        // under `exit_at_once` a write(2) of a static text and _exit(2):
        // all async-signal-safe.
        unsafe {
            signal_hook::low_level::register(signal, move || {
                if AT_ONCE.load(Ordering::SeqCst) {
                    let line: &[u8] = if signal == libc::SIGINT {
                        AT_ONCE_LINE_SIGINT
                    } else {
                        AT_ONCE_LINE_SIGTERM
                    };
                    libc::write(1, line.as_ptr().cast(), line.len());
                    libc::_exit(i32::from(exit_code(signal)));
                }
                let _ =
                    SIGNAL.compare_exchange(0, signal as usize, Ordering::SeqCst, Ordering::SeqCst);
            })?;
        }
        let write: OwnedFd = w.write.try_clone()?.into();
        signal_hook::low_level::pipe::register(signal, write)?;
    }
    Ok(())
}

/// What a signal under [`exit_at_once`] writes to stdout.
#[cfg(feature = "process")]
const AT_ONCE_LINE_SIGINT: &[u8] =
    b"INTERRUPTED by SIGINT while reading the cases: no case was run, no report written\n";
#[cfg(feature = "process")]
const AT_ONCE_LINE_SIGTERM: &[u8] =
    b"INTERRUPTED by SIGTERM while reading the cases: no case was run, no report written\n";

/// While `on`, a SIGINT or SIGTERM caught by [`install`]'s handlers ends
/// the process at once: it writes `INTERRUPTED by SIGINT while reading the
/// cases: no case was run, no report written` to stdout and exits with
/// [`exit_code`]. The `certify` command sets it while it reads and draws
/// its cases, which writes nothing and can take seconds in one call (a
/// corpus file of a million messages): there is nothing to stop
/// cooperatively, and the stop takes effect within the second (spec §8.7).
#[cfg(feature = "process")]
pub fn exit_at_once(on: bool) {
    AT_ONCE.store(on, Ordering::SeqCst);
}

/// The signal that stopped the run (`libc::SIGINT`, `libc::SIGTERM`), if
/// one has.
pub fn requested() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => i32::try_from(s).ok(),
    }
}

/// Stops the run as if `signal` had arrived (for a library user's own
/// handler): every reducer request in flight in this process ends with
/// [`super::process::Failure::Interrupted`], and so does every later one.
pub fn request(signal: i32) {
    let _ = SIGNAL.compare_exchange(
        0,
        usize::try_from(signal).unwrap_or(1),
        Ordering::SeqCst,
        Ordering::SeqCst,
    );
    #[cfg(feature = "process")]
    if let Some(w) = wake() {
        use std::io::Write;
        let _ = (&w.write).write(&[1]);
    }
}

/// The read end of the self-pipe, readable once a stop was requested.
#[cfg(feature = "process")]
pub(crate) fn wake_fd() -> Option<BorrowedFd<'static>> {
    wake().map(|w| w.read.as_fd())
}

/// The exit code of a command stopped by `signal`: 128 + its number (130
/// for SIGINT, 143 for SIGTERM).
pub fn exit_code(signal: i32) -> u8 {
    u8::try_from(128 + signal).unwrap_or(128)
}
