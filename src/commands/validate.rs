//! `reducer-kit validate`: the validator rules of semantics §5.

use super::{load, Histories};
use reducer_kit::formats::{view_history, Format};
use reducer_kit::validate::{validate, Options};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Calls and approval requests of the newest turn may be unanswered.
    #[arg(long)]
    pub allow_pending: bool,
    #[command(flatten)]
    pub input: Histories,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let entries = or_exit!(load(&args.input.file));
    let mut bad = 0usize;
    for e in &entries {
        let views = match view_history(Format::from(args.input.format), &e.messages) {
            Ok(v) => v,
            Err(err) => {
                outln!("{}: {err}", e.origin);
                bad += 1;
                continue;
            }
        };
        let violations = validate(
            &views,
            Options {
                allow_pending: args.allow_pending,
            },
        );
        if !violations.is_empty() {
            bad += 1;
        }
        for v in violations {
            outln!("{}: {v}", e.origin);
        }
    }
    let n = entries.len();
    let noun = if n == 1 { "history" } else { "histories" };
    if bad == 0 {
        outln!("{n} {noun}: all valid");
        Ok(ExitCode::SUCCESS)
    } else {
        outln!("{n} {noun}: {bad} invalid");
        Ok(ExitCode::from(1))
    }
}
