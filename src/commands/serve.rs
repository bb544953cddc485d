//! `reducer-kit serve`: a reference reducer speaking runner protocol v1
//! (spec §8) or, with `--protocol 2`, protocol 2 (spec §13), for
//! certifying the kit against itself and as a model for implementers.

use super::{FormatArg, PolicyArg, ProtocolArg, ProviderArg};
use reducer_kit::certify::session::ReferenceSession;
use reducer_kit::formats::Format;
use reducer_kit::terms::Policy;
use std::io::{BufRead, Read, Write};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The policy.
    #[arg(long, value_enum, default_value_t = PolicyArg::Turns)]
    pub policy: PolicyArg,
    /// JSON Lines: one request per line in, one response per line out.
    #[arg(long)]
    pub persistent: bool,
    /// The wire format of the messages.
    #[arg(long, value_enum, default_value_t = FormatArg::Canonical)]
    pub format: FormatArg,
    /// Honour a provider profile (spec §15.4): never answer an output
    /// the provider would reject when the input passes its rules.
    #[arg(long, value_enum)]
    pub provider: Option<ProviderArg>,
    /// The runner protocol to read: 1 (maxMessages) or 2 (also maxTokens,
    /// tokens, countPinned; spec §13). The reference never summarizes.
    #[arg(long, value_enum, default_value_t = ProtocolArg::V1)]
    pub protocol: ProtocolArg,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let reference = ReferenceSession {
        policy: Policy::from(args.policy),
        format: Format::from(args.format),
        provider: args.provider.map(Into::into),
        protocol: args.protocol.into(),
    };
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    if args.persistent {
        for line in stdin.lock().lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            let response = reference.answer(&line);
            writeln!(stdout, "{response}")?;
            stdout.flush()?;
        }
    } else {
        let mut text = String::new();
        stdin.lock().read_to_string(&mut text)?;
        writeln!(stdout, "{}", reference.answer(&text))?;
    }
    Ok(ExitCode::SUCCESS)
}
