//! `reducer-kit validate`: the validator rules of spec §5.

use super::{Histories, ProviderArg};
use reducer_kit::formats::{read_history_raw, view_message, Format};
use reducer_kit::input::{parse_raw_entries, read_input, source_name};
use reducer_kit::terminal::show;
use reducer_kit::terms::provider::provider_violations;
use reducer_kit::terms::{MessageView, Provider};
use reducer_kit::validate::{validate_history, Options};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Calls and approval requests of the newest turn may be unanswered.
    #[arg(long)]
    pub allow_pending: bool,
    /// Also check a provider's acceptance rules (spec §15.3): would it
    /// accept the history?
    #[arg(long, value_enum)]
    pub provider: Option<ProviderArg>,
    #[command(flatten)]
    pub input: Histories,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // Read without building the messages' values (see `reduce`).
    let text = match read_input(&args.input.file, args.input.limit.max_input) {
        Ok(t) => t,
        Err(e) => return Ok(super::input_failure(&e)),
    };
    let entries = match parse_raw_entries(&text, source_name(&args.input.file)) {
        Ok(e) => e,
        Err(e) => return Ok(super::input_failure(&e)),
    };
    let mut bad = 0usize;
    let provider: Option<Provider> = args.provider.map(Into::into);
    let format = Format::from(args.input.format);
    or_exit!(super::refuse_other_format(
        format,
        entries
            .iter()
            .map(|e| (&e.origin, super::parsed(&e.messages)))
    ));
    // A top-level system prompt (Anthropic and Bedrock `system`, Gemini
    // `systemInstruction`) is message 0, the system pseudo-message, as
    // `check` and `certify` number messages.
    let pseudo: Vec<_> = entries
        .iter()
        .map(|e| super::system_pseudo(format, e))
        .collect();
    let entries = super::lead_with_pseudo(entries, &pseudo);
    for e in &entries {
        let history = match read_history_raw(format, &e.messages) {
            Ok(v) => v,
            Err(err) => {
                outln!(
                    "{}: {}",
                    show(&e.origin.to_string()),
                    show(&err.to_string())
                );
                bad += 1;
                continue;
            }
        };
        let violations = validate_history(
            &history,
            Options {
                allow_pending: args.allow_pending,
            },
        );
        // With a provider, the messages' views as written (role names as
        // the format spells them), for the provider's rules.
        let rejected = match provider {
            None => Vec::new(),
            Some(p) => {
                let views: Option<Vec<MessageView>> = e
                    .messages
                    .iter()
                    .enumerate()
                    .map(|(i, raw)| {
                        let v: serde_json::Value = serde_json::from_str(raw.get()).ok()?;
                        view_message(format, &v, i).ok()
                    })
                    .collect();
                views.map_or_else(Vec::new, |v| provider_violations(p, &v))
            }
        };
        if !violations.is_empty() || !rejected.is_empty() {
            bad += 1;
        }
        for v in violations {
            outln!("{}: {}", show(&e.origin.to_string()), show(&v.to_string()));
        }
        if let Some(p) = provider {
            for v in &rejected {
                outln!(
                    "{}: {p} rejects it: {}",
                    show(&e.origin.to_string()),
                    show(&v.to_string())
                );
            }
        }
    }
    let n = entries.len();
    let noun = if n == 1 { "history" } else { "histories" };
    let (ok, not_ok) = match provider {
        None => ("all valid".to_string(), "invalid".to_string()),
        Some(p) => (
            format!("all valid and accepted by {p}"),
            format!("invalid or rejected by {p}"),
        ),
    };
    if bad == 0 {
        outln!("{n} {noun}: {ok}");
        Ok(ExitCode::SUCCESS)
    } else {
        outln!("{n} {noun}: {bad} {not_ok}");
        Ok(ExitCode::from(1))
    }
}
