//! A [`Conversation`] as terminal text: the same rows as the HTML form,
//! one line per message header and per item, the columns side by side,
//! each result followed by the row of its call (`→ 0`), ANSI colours when
//! asked. Every text from a case or a reducer is escaped
//! ([`crate::terminal::escape`]).

use super::gist::Drawn;
use super::{Cell, Conversation, State, Versus};
use crate::terms::{ItemKind, Role};
use std::fmt::Write as _;

/// The width of a column, in characters: two side by side, or one alone.
const WIDTH: usize = 46;
const WIDTH_ALONE: usize = 96;

/// A style of a piece of a line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Dim,
    Struck,
    Bad,
    Role(Role),
}

impl Style {
    fn code(self) -> &'static str {
        match self {
            Style::Plain => "",
            Style::Dim => "2",
            Style::Struck => "2;9",
            Style::Bad => "1;31",
            Style::Role(Role::System) => "1;35",
            Style::Role(Role::User) => "1;34",
            Style::Role(Role::Assistant) => "1;32",
            Style::Role(Role::Tool) => "1;33",
            Style::Role(Role::Other) => "1",
        }
    }
}

/// One line of a cell: pieces of text and their styles.
type Line = Vec<(String, Style)>;

/// The plain width of a line.
fn plain_width(line: &Line) -> usize {
    line.iter().map(|(t, _)| t.chars().count()).sum()
}

/// `line` cut to `w` characters (`…` at the end) and padded to `w`.
fn fit(line: &Line, w: usize, colour: bool) -> String {
    let mut out = String::new();
    let mut left = w;
    for (text, style) in line {
        if left == 0 {
            break;
        }
        let n = text.chars().count();
        let piece: String = if n > left {
            let mut s: String = text.chars().take(left.saturating_sub(1)).collect();
            s.push('…');
            s
        } else {
            text.clone()
        };
        left -= piece.chars().count().min(left);
        if colour && *style != Style::Plain {
            let _ = write!(out, "\x1b[{}m{piece}\x1b[0m", style.code());
        } else {
            out.push_str(&piece);
        }
    }
    out.push_str(&" ".repeat(left));
    out
}

/// The conversation `c` as text, one `\n`-ended line each; ANSI colours
/// when `colour`.
pub fn conversation(c: &Conversation, colour: bool) -> String {
    let width = if c.columns.len() == 1 {
        WIDTH_ALONE
    } else {
        WIDTH
    };
    let mut out = String::new();
    let mut budget = format!("budget: {}", escape(&c.budget_text));
    if let Some(b) = &c.budget {
        for (col, used) in c.columns.iter().zip(&b.used) {
            match used {
                Some(u) => {
                    let over = if *u > b.limit { " (over)" } else { "" };
                    let _ = write!(
                        budget,
                        "; {} uses {u} of {}{over}",
                        col.side.name(),
                        b.limit
                    );
                }
                None => {
                    let _ = write!(budget, "; {} answered no messages", col.side.name());
                }
            }
        }
    }
    if c.budget.is_none() {
        budget.push_str(" (not a valid budget)");
    }
    let _ = writeln!(out, "{budget}");
    let mut head = format!("{:>4}  ", "#");
    for col in &c.columns {
        let title = vec![(
            format!(
                "{} ({})",
                col.side.name().to_uppercase(),
                escape(&col.summary)
            ),
            Style::Plain,
        )];
        head.push_str(&fit(&title, width, false));
        head.push_str("  ");
    }
    let _ = writeln!(out, "{}", head.trim_end());
    if c.hidden.0 > 0 {
        let _ = writeln!(out, "{:>4}  ({} rows before not drawn)", "…", c.hidden.0);
    }
    for (r, row) in c.rows.iter().enumerate() {
        let cells: Vec<Vec<Line>> = row
            .cells
            .iter()
            .enumerate()
            .map(|(ci, cell)| lines(c, r, ci, cell))
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1).max(1);
        for i in 0..height {
            let mut line = if i == 0 {
                format!(
                    "{:>4}  ",
                    row.input.map_or("+".to_string(), |j| j.to_string())
                )
            } else {
                " ".repeat(6)
            };
            for cell in &cells {
                let empty = Line::new();
                line.push_str(&fit(cell.get(i).unwrap_or(&empty), width, colour));
                line.push_str("  ");
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        if let Some((f, Some(fr))) = &c.failure {
            if *fr == r {
                let note = vec![(
                    format!("✗ {}: {}", escape(&f.clause), escape(&f.definition)),
                    Style::Bad,
                )];
                let _ = writeln!(out, "      {}", fit(&note, plain_width(&note), colour));
            }
        }
    }
    if c.hidden.1 > 0 {
        let _ = writeln!(out, "{:>4}  ({} rows after not drawn)", "…", c.hidden.1);
    }
    out
}

/// The lines of column `ci`'s cell on row `r`.
fn lines(c: &Conversation, r: usize, ci: usize, cell: &Cell) -> Vec<Line> {
    let Some(m) = &cell.message else {
        return Vec::new();
    };
    let dropped = cell.state == State::Dropped;
    let mut head: Line = vec![(
        escape(&m.role_text),
        if dropped {
            Style::Struck
        } else {
            Style::Role(m.role)
        },
    )];
    if let Some(k) = cell.out {
        head.push((format!(" out {k}"), Style::Dim));
    }
    for (text, bad) in marks(cell, m) {
        head.push((
            format!("  {text}"),
            if bad { Style::Bad } else { Style::Dim },
        ));
    }
    let mut out = vec![head];
    let links = &c.columns[ci].links;
    for (t, g) in m.items.iter().enumerate() {
        let removed = cell.removed.contains(&t);
        let orphan = cell.orphans.contains(&t);
        let mut line: Line = vec![(
            format!("  {}", escape(&g.label)),
            if dropped || removed {
                Style::Struck
            } else {
                Style::Plain
            },
        )];
        if !g.id.is_empty() {
            line.push((format!(" #{}", escape(&g.id)), Style::Dim));
        }
        if let Some(l) = links.iter().find(|l| l.from == (r, t)) {
            line.push((format!(" → {}", row_name(c, l.to.0)), Style::Dim));
        }
        if orphan {
            let what = if g.kind == ItemKind::Result {
                "call"
            } else {
                "request"
            };
            line.push((format!(" ✗ orphan: no {what} earlier"), Style::Bad));
        }
        if removed {
            line.push((" removed".into(), Style::Dim));
        }
        if g.text.is_empty() && g.kind == ItemKind::Text {
            line.push((" (empty)".into(), Style::Dim));
        }
        if !g.text.is_empty() {
            line.push((
                format!(" {}", escape(&g.text)),
                if dropped || removed {
                    Style::Struck
                } else {
                    Style::Plain
                },
            ));
        }
        out.push(line);
    }
    out
}

/// The name of row `r` as its number column shows it: the input index,
/// or `+` and the row for a message of its own.
fn row_name(c: &Conversation, r: usize) -> String {
    match c.rows.get(r).and_then(|row| row.input) {
        Some(j) => j.to_string(),
        None => format!("row {}", r + 1 + c.hidden.0),
    }
}

/// The marks of a cell's header: (text, whether it is a fault).
fn marks(cell: &Cell, m: &Drawn) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    match cell.state {
        State::Dropped => out.push(("removed".to_string(), false)),
        State::Fabricated => out.push(("NOT IN THE INPUT".to_string(), true)),
        State::Changed => out.push(("CHANGED".to_string(), true)),
        State::Kept if !cell.removed.is_empty() => {
            out.push((format!("{} removed", cell.removed.len()), false))
        }
        _ => {}
    }
    match cell.versus {
        Some(Versus::Extra) => out.push(("EXTRA: the reference removes it".into(), true)),
        Some(Versus::Missing) => out.push(("MISSING: the reference keeps it".into(), true)),
        None => {}
    }
    if cell.failing {
        out.push(("✗".into(), true));
    }
    if m.reasoning {
        out.push(("reasoning".into(), false));
    }
    if let Some(why) = &m.unreadable {
        out.push((format!("unreadable: {}", escape(why)), true));
    }
    out
}

/// Text from a case or a reducer, one line, escaped.
fn escape(s: &str) -> String {
    crate::terminal::escape(s).into_owned()
}
