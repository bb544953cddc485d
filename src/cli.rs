//! The `reducer-kit` command line as a library function (feature `cli`):
//! [`run`] parses an argument list and runs the command, as the
//! `reducer-kit` binary does (`src/main.rs` is a shim over it), so that a
//! binding (the Python package's `reducer-kit` console script) runs the
//! same command line in its own process. The commands themselves are
//! `src/commands/`, private to this module's caller.
//!
//! Exit codes: 0 pass, 1 a judged failure, 2 usage or unreadable input
//! (`reducer-kit --help`, "Exit codes"); a run stopped by a signal exits
//! 128 + the signal's number.

use crate::commands;
use clap::Parser;
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

/// Runs the command line `args` (the program name first, as
/// [`std::env::args_os`] gives it) and gives its exit code. `--help`,
/// `--version` and usage errors print what the binary prints and give its
/// code (0, 0 and 2) instead of ending the process; stdout is flushed
/// before it returns.
///
/// `certify` installs its SIGINT and SIGTERM handlers
/// ([`crate::certify::interrupt::install`]) in the calling process, as the
/// binary does.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let code = match commands::Cli::try_parse_from(args) {
        Ok(cli) => match commands::run(cli) {
            Ok(code) => code,
            Err(e) => {
                commands::print_error(format!("{e:#}"));
                ExitCode::from(2)
            }
        },
        Err(e) => {
            // What `e.exit()` prints (help and version on stdout, usage
            // errors on stderr), without ending the process.
            let _ = e.print();
            ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
        }
    };
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    code
}

/// [`run`]'s exit code as a number, for a caller that must hand it on
/// (`ExitCode` keeps its value to itself).
pub fn run_status<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    status(run(args))
}

/// The number an [`ExitCode`] made by the command line stands for.
fn status(code: ExitCode) -> u8 {
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_help_and_usage_errors_give_the_binary_codes() {
        assert_eq!(run_status(["reducer-kit", "--version"]), 0);
        assert_eq!(run_status(["reducer-kit", "validate", "--help"]), 0);
        assert_eq!(run_status(["reducer-kit", "no-such-command"]), 2);
        assert_eq!(run_status(["reducer-kit", "reduce", "--max", "0"]), 2);
        assert_eq!(status(ExitCode::from(1)), 1);
        assert_eq!(status(ExitCode::from(130)), 130);
    }
}
