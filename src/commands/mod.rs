//! Subcommands, one module each. Exit codes: [`EXIT_CODES`], the one rule
//! every command follows (its code path: [`usage`], [`input_failure`] for
//! unreadable input, [`invalid`] for a judged failure).

use clap::{Parser, Subcommand};
use reducer_kit::formats::sniff::format_mismatch;
use reducer_kit::formats::Format;
use reducer_kit::input::{Entry, InputError, NoBudget, Origin, RawEntry, DEFAULT_MAX_INPUT};
use reducer_kit::terms::budget::text_length_cost;
use reducer_kit::terms::{Budget, BudgetFields, Policy, Provider};
use serde_json::value::RawValue;
use serde_json::Value;
use std::process::ExitCode;

/// Prints a line to stdout, control characters escaped
/// ([`reducer_kit::terminal::escape_lines`]; spec §8.9): text from a case
/// or a file cannot drive the terminal. Values that could hold a line
/// break of their own (ids, paths) are shown with
/// [`reducer_kit::terminal::show`]. A closed stdout (the output piped into
/// `head`) is not an error: the rest of the output is dropped, and the
/// command still finishes its work (reports, saved files) and exits as it
/// would.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!(
            std::io::stdout().lock(),
            "{}",
            reducer_kit::terminal::escape_lines(&line)
        );
    }};
}

/// Prints `reducer-kit: error: TEXT` to stderr, on one line: every control
/// character of `text` escaped ([`reducer_kit::terminal::escape`]).
pub fn print_error(text: impl std::fmt::Display) {
    eprintln!(
        "reducer-kit: error: {}",
        reducer_kit::terminal::escape(&text.to_string())
    );
}

/// The value of an `Ok`; for an `Err(code)`, returns `Ok(code)` from the
/// command (the error was reported where it was found).
macro_rules! or_exit {
    ($result:expr) => {
        match $result {
            Ok(v) => v,
            Err(code) => return Ok(code),
        }
    };
}

pub mod certify;
pub mod check;
pub mod corpus;
pub mod generate;
pub mod reduce;
pub mod serve;
pub mod show;
pub mod validate;

/// The exit-code rule every command follows, shown at the end of each
/// `--help` (and in docs/cli.md, "Exit codes"): 2 for usage and for input
/// that cannot be read as histories at all, 1 for a judged failure.
pub const EXIT_CODES: &str = "\
Exit codes:
  0  pass: everything judged passed (or the work is done)
  1  a judged failure: a clause failed, a history is invalid by the spec's
     rules (pairing, a malformed message or budget) or nested deeper than
     100 levels, a corpus case differs
  2  usage or unreadable input: a bad option, a file that cannot be read (not
     a regular file, larger than --max-input), is not UTF-8 or not JSON, is
     not a history, or whose messages are not in the chosen --format at all;
     an output path that cannot be written";

/// Conformance test kit, reference reducers and fuzzer for chat-history reducers.
#[derive(Parser, Debug)]
#[command(name = "reducer-kit", version, about, long_about = None, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Reduce histories with a reference reducer and print the result.
    #[command(after_help = EXIT_CODES)]
    Reduce(reduce::Args),
    /// Check histories against the validator rules (tool-call / result pairing).
    #[command(after_help = EXIT_CODES)]
    Validate(validate::Args),
    /// Judge a reducer's output for one input against every clause.
    #[command(after_help = EXIT_CODES)]
    Check(check::Args),
    /// Run a reference reducer as an external reducer (runner protocol 1, or 2 with --protocol 2).
    #[command(after_help = EXIT_CODES)]
    Serve(serve::Args),
    /// Certify an external reducer: run every case against it and grade it.
    #[command(after_help = certify::EXIT_CODES)]
    Certify(Box<certify::Args>),
    /// Write generated cases, one per line.
    #[command(after_help = EXIT_CODES)]
    Generate(generate::Args),
    /// Regression corpora: regen, check, add, min, seed-fuzz, trim-fuzz.
    #[command(after_help = EXIT_CODES)]
    Corpus(corpus::Args),
    /// Draw a case file, a report's counterexamples or the compatibility matrix as conversations.
    #[command(after_help = EXIT_CODES)]
    Show(show::Args),
}

/// `--format`: the wire formats as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// Microsoft.Extensions.AI `ChatMessage` JSON.
    #[value(
        help = "Microsoft.Extensions.AI ChatMessage JSON: role, contents of $type-tagged items"
    )]
    Canonical,
    /// OpenAI Chat Completions.
    #[value(
        name = "openai",
        help = "OpenAI Chat Completions: content, tool_calls, tool_call_id"
    )]
    OpenAi,
    /// Anthropic Messages.
    #[value(help = "Anthropic Messages: tool_use / tool_result blocks, top-level system")]
    Anthropic,
    /// OpenAI Responses input items.
    #[value(
        help = "OpenAI Responses input items: message, function_call, function_call_output, reasoning, MCP approvals"
    )]
    Responses,
    /// Gemini contents.
    #[value(
        help = "Gemini contents: user/model parts, functionCall / functionResponse, top-level systemInstruction"
    )]
    Gemini,
    /// Bedrock Converse messages.
    #[value(help = "Bedrock Converse: toolUse / toolResult blocks, top-level system")]
    Bedrock,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Canonical => Format::Canonical,
            FormatArg::OpenAi => Format::OpenAi,
            FormatArg::Anthropic => Format::Anthropic,
            FormatArg::Responses => Format::Responses,
            FormatArg::Gemini => Format::Gemini,
            FormatArg::Bedrock => Format::Bedrock,
        }
    }
}

/// The histories a command reads and their wire format: the arguments
/// `reduce` and `validate` share.
#[derive(clap::Args, Debug)]
pub struct Histories {
    /// The wire format of the messages.
    #[arg(long, value_enum, default_value_t = FormatArg::Canonical)]
    pub format: FormatArg,
    #[command(flatten)]
    pub limit: InputLimit,
    /// A bare array of messages, a request envelope, or JSON Lines of them; `-` for stdin.
    #[arg(default_value = "-")]
    pub file: String,
}

/// `--max-input BYTES`: the size limit of the input gate (spec §8.11),
/// on every command that reads a history or a case file.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct InputLimit {
    /// The largest file (or stdin) read, in bytes; a larger one is refused (exit 2).
    #[arg(long = "max-input", value_name = "BYTES", default_value_t = DEFAULT_MAX_INPUT,
          value_parser = parse_max_input)]
    pub max_input: u64,
}

/// `--max-input BYTES`: a whole number of bytes >= 1.
fn parse_max_input(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("the limit must be at least 1 byte".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("not a whole number of bytes".into()),
    }
}

/// `--protocol`: the runner protocols as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProtocolArg {
    /// Protocol 1: maxMessages.
    #[value(name = "1")]
    V1,
    /// Protocol 2: also token budgets and summaries (spec §13).
    #[value(name = "2")]
    V2,
}

impl From<ProtocolArg> for reducer_kit::protocol::Protocol {
    fn from(p: ProtocolArg) -> Self {
        match p {
            ProtocolArg::V1 => reducer_kit::protocol::Protocol::V1,
            ProtocolArg::V2 => reducer_kit::protocol::Protocol::V2,
        }
    }
}

/// `--policy`: the policies as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PolicyArg {
    /// Keep the newest whole turns that fit (spec §3).
    Turns,
    /// Keep the newest messages, never starting inside a tool group
    /// (spec §4).
    Suffix,
    /// Repair a broken history: remove the calls, results and approval
    /// items that are not whole and well placed, nothing else; the budget
    /// is read, not used (spec §17).
    Repair,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Policy {
        match p {
            PolicyArg::Turns => Policy::Turns,
            PolicyArg::Suffix => Policy::Suffix,
            PolicyArg::Repair => Policy::Repair,
        }
    }
}

/// `--provider`: the provider profiles of spec §15 as the command line
/// names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProviderArg {
    /// OpenAI Chat Completions.
    #[value(
        name = "openai-chat",
        help = "OpenAI Chat Completions: not-empty, results-right-after-calls"
    )]
    OpenAiChat,
    /// OpenAI Responses.
    #[value(
        name = "openai-responses",
        help = "OpenAI Responses: not-empty, results-right-after-calls, reasoning-followed"
    )]
    OpenAiResponses,
    /// Anthropic Messages.
    #[value(help = "Anthropic Messages: not-empty, first-is-user, results-right-after-calls")]
    Anthropic,
    /// Google Gemini.
    #[value(help = "Gemini: not-empty, call-after-user-or-response, response-count-matches-calls")]
    Gemini,
    /// Amazon Bedrock Converse.
    #[value(
        help = "Bedrock Converse: not-empty, first-is-user, roles-alternate, results-right-after-calls"
    )]
    Bedrock,
}

impl From<ProviderArg> for Provider {
    fn from(p: ProviderArg) -> Provider {
        match p {
            ProviderArg::OpenAiChat => Provider::OpenAiChat,
            ProviderArg::OpenAiResponses => Provider::OpenAiResponses,
            ProviderArg::Anthropic => Provider::Anthropic,
            ProviderArg::Gemini => Provider::Gemini,
            ProviderArg::Bedrock => Provider::Bedrock,
        }
    }
}

/// `--costs`: costs derived from the messages themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CostsArg {
    /// Each message costs ⌈characters of its compact JSON / 4⌉, at least 1.
    #[value(name = "text-length")]
    TextLength,
}

/// The budget options `reduce` and `check` share: a message budget
/// (`--max`) or a token budget (spec §11, §13.5).
#[derive(clap::Args, Debug, Clone)]
pub struct BudgetArgs {
    /// The budget: most messages kept besides the pinned system message, a
    /// whole number >= 1 as maxMessages allows it (3, 3.0, 3e0; beyond 2^64
    /// is no limit); overrides an envelope's maxMessages.
    #[arg(long = "max", value_name = "N", allow_negative_numbers = true, value_parser = parse_limit)]
    pub max: Option<Value>,
    /// A token budget: what the kept messages may cost together, a whole
    /// number >= 1 as for --max (overrides an envelope's maxTokens).
    #[arg(
        long = "max-tokens",
        value_name = "N",
        allow_negative_numbers = true,
        conflicts_with = "max",
        value_parser = parse_limit
    )]
    pub max_tokens: Option<Value>,
    /// The costs: a JSON array with one cost per message (for several histories, an array of such arrays);
    /// in a format with a top-level system prompt (anthropic, bedrock, gemini), that prompt's cost first.
    #[arg(long, value_name = "FILE", conflicts_with = "costs")]
    pub tokens: Option<String>,
    /// Derive the costs from the messages: text-length = ceil(characters of compact JSON / 4), at least 1.
    #[arg(long, value_enum)]
    pub costs: Option<CostsArg>,
    /// The pinned system message's cost counts against --max-tokens.
    #[arg(long)]
    pub count_pinned: bool,
}

/// `--max N`, `--max-tokens N`: a limit read by the one budget parser,
/// [`Budget::parse`] (spec §2, "what is a budget"): a JSON number denoting
/// a whole number >= 1 however written (`3`, `3.0`, `3e0`; beyond 64 bits is
/// no limit). Kept as the JSON number written, which the budget members
/// send and `reduce` echoes in an output envelope.
///
/// # Errors
///
/// The text clap shows after "invalid value 'N' for '--max <N>'" (exit 2):
/// not a JSON number, or not a whole number >= 1.
fn parse_limit(text: &str) -> Result<Value, String> {
    const RULE: &str = "a budget is a whole number >= 1 (3, 3.0 and 3e0 are all 3)";
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Number(_)) if Budget::parse(&v).is_ok() => Ok(v),
        Ok(Value::Number(_)) => Err(RULE.into()),
        _ => Err(format!("not a number; {RULE}")),
    }
}

/// What [`BudgetArgs::fields`] reads of an input entry: an [`Entry`]
/// (values) or a [`RawEntry`] (the streaming path of `reduce`).
pub trait BudgetSource {
    /// Where the entry came from.
    fn origin(&self) -> &Origin;
    /// How many messages it has (a top-level system prompt counted, as the
    /// system pseudo-message that leads them).
    fn message_count(&self) -> usize;
    /// An envelope member other than `messages`, as a value.
    fn member(&self, key: &str) -> Option<Value>;
    /// `--max` or the envelope's `maxMessages`.
    ///
    /// # Errors
    ///
    /// [`NoBudget`] when there is neither.
    fn max_messages_or(&self, max: Option<&Value>) -> Result<Value, NoBudget>;
    /// The `--costs text-length` cost of each message
    /// ([`text_length_cost`]).
    fn text_length_costs(&self) -> Value;
}

impl BudgetSource for Entry {
    fn origin(&self) -> &Origin {
        &self.origin
    }

    fn message_count(&self) -> usize {
        self.messages.len()
    }

    fn member(&self, key: &str) -> Option<Value> {
        self.envelope.as_ref().and_then(|o| o.get(key)).cloned()
    }

    fn max_messages_or(&self, max: Option<&Value>) -> Result<Value, NoBudget> {
        Entry::max_messages_or(self, max)
    }

    fn text_length_costs(&self) -> Value {
        self.messages
            .iter()
            .map(|m| Value::from(text_length_cost(m)))
            .collect()
    }
}

impl BudgetSource for RawEntry<'_> {
    fn origin(&self) -> &Origin {
        &self.origin
    }

    fn message_count(&self) -> usize {
        self.messages.len()
    }

    fn member(&self, key: &str) -> Option<Value> {
        let (_, raw) = self.envelope.as_ref()?.iter().find(|(k, _)| k == key)?;
        serde_json::from_str(raw.get()).ok()
    }

    fn max_messages_or(&self, max: Option<&Value>) -> Result<Value, NoBudget> {
        RawEntry::max_messages_or(self, max)
    }

    /// Each message is parsed for its compact JSON (only under
    /// `--costs text-length`); an unparsable one costs 1.
    fn text_length_costs(&self) -> Value {
        self.messages
            .iter()
            .map(|m| {
                let v: Option<Value> = serde_json::from_str(m.get()).ok();
                Value::from(v.map_or(1, |v| text_length_cost(&v)))
            })
            .collect()
    }
}

impl BudgetArgs {
    /// The envelope members the command line overrides, for an output
    /// envelope that says what budget was used: `--max N` sets `maxMessages`
    /// and drops `maxTokens` (the two cannot travel together, spec
    /// §11.2); `--max-tokens N` sets `maxTokens` and drops `maxMessages`.
    /// `None` is a member to drop. Empty without either option.
    pub fn envelope_overrides(&self) -> Vec<(&'static str, Option<Value>)> {
        match (&self.max, &self.max_tokens) {
            (Some(m), _) => vec![("maxMessages", Some(m.clone())), ("maxTokens", None)],
            (None, Some(t)) => vec![("maxTokens", Some(t.clone())), ("maxMessages", None)],
            (None, None) => Vec::new(),
        }
    }

    /// Whether a token option is given.
    fn tokens_asked(&self) -> bool {
        self.max_tokens.is_some()
            || self.tokens.is_some()
            || self.costs.is_some()
            || self.count_pinned
    }

    /// The budget members of each of `entries`: `--max` or the envelope's
    /// `maxMessages` (protocol 1), or a token budget when `--max-tokens` is
    /// given or the envelope has `maxTokens`: its costs from `--tokens`,
    /// `--costs`, or the envelope's `tokens`, and `countPinned` from
    /// `--count-pinned` or the envelope.
    ///
    /// # Errors
    ///
    /// Reported here, with exit code 2 (usage): an unreadable `--tokens`
    /// file (exit 1 when nested too deep, as any input), one that does not
    /// hold one array per history or whose array
    /// for a history has not one cost per message (named by the file and
    /// the history), `--max-tokens` with no costs at all (no `--tokens`,
    /// no `--costs`, no envelope `tokens`), an entry with no budget.
    pub fn fields<E: BudgetSource>(
        &self,
        entries: &[E],
        max_input: u64,
    ) -> Result<Vec<BudgetFields>, ExitCode> {
        let files = match &self.tokens {
            None => None,
            Some(path) => Some(read_cost_file(path, entries.len(), max_input)?),
        };
        let mut out = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let envelope = |k: &str| e.member(k);
            let tokens_budget = self.max_tokens.is_some()
                || (self.max.is_none() && envelope("maxTokens").is_some());
            if !tokens_budget {
                if self.tokens_asked() {
                    return Err(usage(format!(
                        "{}: --tokens, --costs and --count-pinned need a token budget (--max-tokens N or the envelope's maxTokens)",
                        e.origin()
                    )));
                }
                let max = e.max_messages_or(self.max.as_ref()).map_err(usage)?;
                out.push(BudgetFields::messages(max));
                continue;
            }
            let max_tokens = match &self.max_tokens {
                Some(n) => n.clone(),
                None => envelope("maxTokens").unwrap_or(Value::Null),
            };
            let tokens =
                match (&files, self.costs) {
                    (Some(f), _) => {
                        let (n, want) = (cost_count(&f[i]), e.message_count());
                        if n != Some(want) {
                            let path = self.tokens.as_deref().unwrap_or("--tokens");
                            let got = n.map_or_else(
                                || "not an array".to_string(),
                                |n| format!("{n} costs"),
                            );
                            return Err(usage(format!(
                            "{path}: {got} for the {want} messages of {} (one cost per message{})",
                            e.origin(),
                            if entries.len() > 1 { ", one array per history" } else { "" }
                        )));
                        }
                        Some(f[i].clone())
                    }
                    (None, Some(CostsArg::TextLength)) => Some(e.text_length_costs()),
                    (None, None) => envelope("tokens"),
                };
            if tokens.is_none() && self.max_tokens.is_some() {
                return Err(usage(format!(
                    "{}: --max-tokens needs the messages' costs: --tokens FILE, --costs text-length, or the envelope's tokens",
                    e.origin()
                )));
            }
            let count_pinned = if self.count_pinned {
                Some(Value::Bool(true))
            } else {
                envelope("countPinned")
            };
            out.push(BudgetFields::tokens(
                max_tokens,
                tokens.unwrap_or(Value::Null),
                count_pinned,
            ));
        }
        Ok(out)
    }
}

/// How many costs an array of costs holds (`None`: not an array).
fn cost_count(v: &Value) -> Option<usize> {
    v.as_array().map(Vec::len)
}

/// The `--tokens` file: one array of costs, or (for several histories) an
/// array of one array per history. Read through the input gate (at most
/// `max` bytes; nested at most [`reducer_kit::input::MAX_DEPTH`] levels).
fn read_cost_file(path: &str, histories: usize, max: u64) -> Result<Vec<Value>, ExitCode> {
    let text = reducer_kit::input::read_input(path, max).map_err(|e| input_failure(&e))?;
    match reducer_kit::input::check_text(&text, reducer_kit::input::Holds::Other) {
        Ok(()) => {}
        Err(e @ reducer_kit::input::TextError::TooDeep(_)) => {
            return Err(invalid(format!("{path}: {e}")))
        }
        Err(e) => return Err(usage(format!("{path}: {e}"))),
    }
    let v: Value =
        serde_json::from_str(&text).map_err(|e| usage(format!("{path}: not JSON: {e}")))?;
    let nested = matches!(&v, Value::Array(a) if a.first().is_some_and(Value::is_array));
    match v {
        Value::Array(a) if histories == 1 && !nested => Ok(vec![Value::Array(a)]),
        Value::Array(a) if nested && a.len() == histories => Ok(a),
        _ => Err(usage(format!(
            "{path}: expected {} (one cost per message)",
            if histories == 1 {
                "a JSON array of costs".to_string()
            } else {
                format!("a JSON array of {histories} arrays of costs, one per history")
            }
        ))),
    }
}

/// Prints a usage error and gives exit code 2 ([`EXIT_CODES`]).
pub fn usage(text: impl std::fmt::Display) -> ExitCode {
    print_error(text);
    ExitCode::from(2)
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Reduce(a) => reduce::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Check(a) => check::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Certify(a) => certify::run(*a),
        Command::Generate(a) => generate::run(a),
        Command::Corpus(a) => corpus::run(a),
        Command::Show(a) => show::run(a),
    }
}

/// Prints an input error and gives its exit code ([`EXIT_CODES`],
/// [`InputError::exit_code`]): input that cannot be read
/// ([`InputError::Io`]) and input that is not JSON or not a history
/// ([`InputError::Invalid`]) alike are unreadable input (2); a history
/// nested too deep is invalid input (1).
pub fn input_failure(e: &InputError) -> ExitCode {
    print_error(e);
    ExitCode::from(e.exit_code())
}

/// Refuses histories whose messages are not in `format` at all
/// ([`format_mismatch`]: none has the format's shape, some has another's):
/// prints the first, naming its place and the format its messages look
/// like, and gives exit code 2 (unreadable input, [`EXIT_CODES`]). The one
/// test `validate`, `reduce` and `check` make, on each history as read.
pub fn refuse_other_format<'a, V, I>(
    format: Format,
    histories: impl IntoIterator<Item = (&'a Origin, I)>,
) -> Result<(), ExitCode>
where
    V: std::borrow::Borrow<Value>,
    I: IntoIterator<Item = V>,
    I::IntoIter: Clone,
{
    for (origin, messages) in histories {
        if let Err(e) = format_mismatch(format, messages) {
            return Err(usage(format!("{origin}: {e}")));
        }
    }
    Ok(())
}

/// The system pseudo-message `{"role": "system", "content": <member>}` of
/// an entry whose envelope has the top-level system prompt of `format`
/// ([`Format::system_member`]), as [`reducer_kit::protocol::join_system`]
/// makes it: message 0 of the kit's list, as `check`, `certify` and the
/// spec (§13.1) number it; `reduce` and `validate` read it so.
pub fn system_pseudo(format: Format, e: &RawEntry) -> Option<Box<RawValue>> {
    let key = format.system_member()?;
    let (_, raw) = e.envelope.as_ref()?.iter().find(|(k, _)| k == key)?;
    RawValue::from_string(format!("{{\"role\":\"system\",\"content\":{}}}", raw.get())).ok()
}

/// `entries` with each one's system pseudo-message (`pseudo`, from
/// [`system_pseudo`], one per entry) leading its messages: the kit's list,
/// as `reduce` and `validate` read it.
pub fn lead_with_pseudo<'a>(
    entries: Vec<RawEntry<'a>>,
    pseudo: &'a [Option<Box<RawValue>>],
) -> Vec<RawEntry<'a>> {
    entries
        .into_iter()
        .zip(pseudo)
        .map(|(e, p)| RawEntry {
            messages: p.iter().map(|b| &**b).chain(e.messages).collect(),
            ..e
        })
        .collect()
}

/// Reads the entries of `path` through the input gate (at most `max`
/// bytes) as `reduce` reads them ([`parse_raw_entries`]: the text once,
/// each message a slice of it), then builds each message's value from its
/// slice and lets the text go: the entries
/// [`reducer_kit::input::read_entries_with`] gives, the text let go once
/// the values are built. Reports and gives the exit code on error.
pub fn load_values(path: &str, max: u64) -> Result<Vec<Entry>, ExitCode> {
    let text = reducer_kit::input::read_input(path, max).map_err(|e| input_failure(&e))?;
    let raw = reducer_kit::input::parse_raw_entries(&text, reducer_kit::input::source_name(path))
        .map_err(|e| input_failure(&e))?;
    // The gate refused what a value cannot hold (a lone surrogate escape,
    // nesting beyond the parser's limit), so every slice reads; one that
    // did not would be reported as the value reader reports it.
    let mut out = Vec::with_capacity(raw.len());
    for e in raw {
        let origin = e.origin;
        let value = |r: &RawValue| -> Result<Value, ExitCode> {
            serde_json::from_str(r.get()).map_err(|err| {
                input_failure(&InputError::Invalid {
                    origin: origin.clone(),
                    problem: format!("not JSON: {err}"),
                })
            })
        };
        let messages = e
            .messages
            .iter()
            .map(|m| value(m))
            .collect::<Result<_, _>>()?;
        let envelope = match e.envelope {
            None => None,
            Some(members) => Some(
                members
                    .into_iter()
                    .map(|(k, v)| Ok((k, value(v)?)))
                    .collect::<Result<_, ExitCode>>()?,
            ),
        };
        out.push(Entry {
            messages,
            max_messages: e.max_messages,
            envelope,
            origin,
        });
    }
    Ok(out)
}

/// Prints a judged failure of the input (a history the spec's rules refuse:
/// a malformed message, an invalid budget) and gives exit code 1
/// ([`EXIT_CODES`]).
pub fn invalid(text: impl std::fmt::Display) -> ExitCode {
    print_error(text);
    ExitCode::from(1)
}

/// The messages of a raw history as values, built one at a time as they
/// are asked for ([`refuse_other_format`] asks for one when the
/// history is in its format); one that is not JSON is `null`.
pub fn parsed<'a>(
    messages: &'a [&'a serde_json::value::RawValue],
) -> impl Iterator<Item = serde_json::Value> + Clone + 'a {
    messages
        .iter()
        .map(|m| serde_json::from_str(m.get()).unwrap_or(serde_json::Value::Null))
}
