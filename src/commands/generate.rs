//! `reducer-kit generate`: writes generated cases, one compact JSON case
//! (the format of `reducer_kit::case`) per line, with `expected` computed by
//! the reference reducer. The same seed and options print the same bytes on
//! every machine.

use super::{FormatArg, PolicyArg};
use anyhow::Context;
use reducer_kit::formats::Format;
use reducer_kit::generate::{seeded_case, seeded_case_without_shapes, Config, Shape};
use reducer_kit::terms::Policy;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `reducer-kit generate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Number of cases to write.
    #[arg(long, default_value_t = 100)]
    pub count: u64,
    /// Seed of the case stream; case n gets the id `gen/<seed>/<n>`. The
    /// default is `certify`'s, so that without `--config` one id names one
    /// case in both.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Generator config: a JSON object of `generate::Config` fields
    /// (e.g. `{"approvals": false, "pending": true}`); absent fields take
    /// their defaults. Without it, `certify`'s config (every shape of the
    /// format but those a default run leaves out, spec §9.5; pending tails
    /// included).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Wire format the histories must be carried in: a format turns off
    /// what it cannot carry (batched or non-string results for OpenAI,
    /// later system messages for Anthropic, approvals for Gemini and
    /// Bedrock, ...; see `Config::sanitize_for`) and, without `--config`,
    /// on the shapes only it has (reasoning items for `responses`; see
    /// `Config::with_native_shapes`), and budgets count its messages (a
    /// Responses item per call). Cases are written in the canonical case
    /// format either way; `--requests` writes them in this format.
    #[arg(long, value_enum, default_value_t = FormatArg::Canonical)]
    pub format: FormatArg,
    /// Print to stderr how often each shape occurs.
    #[arg(long)]
    pub stats: bool,
    /// The policy whose reference output becomes `expected`. Without
    /// `--config`, `repair` writes broken histories (spec §17.6), as
    /// `certify --policy repair` runs them.
    #[arg(long, value_enum, default_value_t = PolicyArg::Turns)]
    pub policy: PolicyArg,
    /// Write each case as the protocol request `certify` sends a reducer
    /// (`{"maxMessages": N, "messages": [...]}`, spec §8.1), its messages
    /// in `--format`, instead of a case in the canonical case format: lines
    /// to pipe into a reducer by hand
    #[arg(long)]
    pub requests: bool,
}

/// Runs the command: exit 0, or an error (exit 2) for an unreadable config
/// or an output error other than a closed pipe.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let format = Format::from(args.format);
    let cfg = match &args.config {
        Some(path) => {
            // Through the input gate: a regular file of at most the
            // default limit (spec §8.11), never a wait on a FIFO.
            let text =
                reducer_kit::input::read_regular(path, reducer_kit::input::DEFAULT_MAX_INPUT)
                    .and_then(reducer_kit::input::utf8)
                    .with_context(|| format!("cannot read config {}", path.display()))?;
            serde_json::from_str::<Config>(&text)
                .with_context(|| format!("config {} is not a generator config", path.display()))?
        }
        None => reducer_kit::certify::generator_config_for(
            Policy::from(args.policy),
            format,
            reducer_kit::protocol::Protocol::V1,
            &reducer_kit::generate::knob::outside(format, None),
        ),
    }
    .sanitize_for(format);
    let mut counts: BTreeMap<Shape, u64> = BTreeMap::new();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for n in 0..args.count {
        // Shapes are detected for --stats alone (a quarter of a draw).
        let generated = if args.stats {
            seeded_case(args.seed, n, &cfg)
        } else {
            seeded_case_without_shapes(args.seed, n, &cfg)
        };
        for s in &generated.shapes {
            *counts.entry(*s).or_default() += 1;
        }
        let id = format!("gen/{}/{n}", args.seed);
        let mut line = if args.requests {
            let wire = reducer_kit::formats::to_wire(format, &generated.messages)
                .with_context(|| format!("case {id} has no form in --format {format}"))?;
            reducer_kit::protocol::request(format, &generated.budget_fields(), None, &wire)
                .to_string()
        } else {
            let case = generated.to_case(id, Policy::from(args.policy));
            serde_json::to_string(&case).expect("a case always serializes")
        };
        line.push('\n');
        if let Err(e) = out.write_all(line.as_bytes()) {
            return closed_pipe_is_success(e);
        }
    }
    if let Err(e) = out.flush() {
        return closed_pipe_is_success(e);
    }
    if args.stats {
        eprint!("{}", stats_table(&counts, args.count));
    }
    Ok(ExitCode::SUCCESS)
}

fn closed_pipe_is_success(e: std::io::Error) -> anyhow::Result<ExitCode> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(e).context("cannot write to stdout")
    }
}

/// One line per shape, in [`Shape::ALL`] order: name, cases, percent.
fn stats_table(counts: &BTreeMap<Shape, u64>, total: u64) -> String {
    let mut s = format!("{:<24} {:>8} {:>7}\n", "shape", "cases", "%");
    for shape in Shape::ALL {
        let c = counts.get(shape).copied().unwrap_or(0);
        let pct = if total == 0 {
            0.0
        } else {
            100.0 * c as f64 / total as f64
        };
        s.push_str(&format!("{:<24} {:>8} {:>6.1}%\n", shape.name(), c, pct));
    }
    s.push_str(&format!("{:<24} {:>8}\n", "total", total));
    s
}
