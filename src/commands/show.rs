//! `reducer-kit show FILE [--html OUT]`: draw a case file (the corpus, a
//! saved failure), the counterexamples of a JSON report, or the
//! compatibility matrix as conversations; the work is
//! [`reducer_kit::certify::draw::show`]'s.

use super::{usage, FormatArg};
use reducer_kit::case::file::read_case_text_with;
use reducer_kit::certify::draw::matrix;
use reducer_kit::certify::draw::show::{entries_html, entries_text, read_document_in, Document};
use reducer_kit::formats::Format;
use reducer_kit::terminal::show_path;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A case file (one case or an array: the corpus, a saved failure), a
    /// JSON report (--report-json: its counterexamples), or the
    /// compatibility matrix (docs/compat/matrix.json; with --html only).
    pub file: PathBuf,
    /// The wire format to draw a case file's cases in (default: a saved
    /// failure's run's format, else canonical; a JSON report and the
    /// matrix say their own).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Write one self-contained HTML page to OUT instead of printing text.
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub limit: super::InputLimit,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = match read_case_text_with(&args.file, args.limit.max_input) {
        Ok(t) => t,
        Err(e) => {
            super::print_error(&e);
            return Ok(ExitCode::from(e.exit_code()));
        }
    };
    let document = match read_document_in(&text, &args.file, args.format.map(Format::from)) {
        Ok(d) => d,
        Err(e) => {
            super::print_error(&e);
            return Ok(ExitCode::from(e.exit_code()));
        }
    };
    let title = format!("reducer-kit show {}", args.file.to_string_lossy());
    let page = match (&document, &args.html) {
        (Document::Matrix(m), Some(_)) => matrix::render(m),
        (Document::Matrix(_), None) => {
            return Ok(usage(format!(
                "{}: the compatibility matrix is drawn as a page: add --html OUT",
                show_path(&args.file)
            )))
        }
        (Document::Entries(e), Some(_)) => entries_html(e, &title),
        (Document::Entries(e), None) => {
            let colour = std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            // A closed stdout (piped into `head`) is not an error.
            let _ = std::io::stdout()
                .lock()
                .write_all(entries_text(e, colour).as_bytes());
            return Ok(ExitCode::SUCCESS);
        }
    };
    if let Some(out) = &args.html {
        if let Err(e) = reducer_kit::atomic::replace(out, page.as_bytes()) {
            return Ok(usage(format!("{}: {e}", show_path(out))));
        }
    }
    Ok(ExitCode::SUCCESS)
}
