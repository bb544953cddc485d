//! A [`Conversation`] as HTML: a grid of rows of fixed heights (one per
//! row, from its number of items), so that an inline SVG beside each
//! column can draw a line from each result to its call without a script.
//! Every text from a case or a reducer goes through [`esc`]: HTML's
//! special characters become entities and control characters their
//! escapes (`\x07`, `\u{202e}`, as [`crate::terminal::escape`] writes
//! them). A page ([`page`]) has its styles inline, no script, and a
//! content security policy that allows none.

use super::gist::Drawn;
use super::{Cell, Column, Conversation, State, Versus};
use crate::terms::{ItemKind, Role};
use std::fmt::Write as _;

/// Padding above and below a cell's content, in pixels.
const PAD: u32 = 6;
/// The cell's header line (role and marks), in pixels.
const HEAD: u32 = 20;
/// One item's line, in pixels.
const LINE: u32 = 20;
/// The gap between rows, in pixels.
const GAP: u32 = 4;
/// The width of the links' gutter left of each column, in pixels.
const GUTTER: u32 = 44;
/// A line of the note beside the failing message, in pixels, and the
/// characters it holds at most.
const NOTE_LINE: u32 = 16;
const NOTE_CHARS: usize = 30;

/// `text` safe inside HTML text or a quoted attribute: `&`, `<`, `>`,
/// `"` and `'` as entities, and every control or line-reordering
/// character escaped as [`crate::terminal::escape`] writes it.
///
/// # Examples
///
/// ```
/// use reducer_kit::certify::draw::html::esc;
/// assert_eq!(esc("<script>\u{7}\"&"), "&lt;script&gt;\\x07&quot;&amp;");
/// ```
pub fn esc(text: &str) -> String {
    let text = crate::terminal::escape(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The styles of every page the kit writes.
pub const CSS: &str = include_str!("page.css");

/// A whole page: `title` (escaped here) and `body` (HTML), with the
/// styles inline, no script, and a content security policy that allows
/// no script, no fetch and no frame (styles inline and `data:` images
/// only).
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n",
        esc(title)
    )
}

/// The legend of the drawings.
pub const LEGEND: &str = "<div class=\"legend\"><span style=\"--c:var(--s)\">system</span>\
<span style=\"--c:var(--u)\">user</span><span style=\"--c:var(--a)\">assistant</span>\
<span style=\"--c:var(--t)\">tool</span><span style=\"--c:#d97706\">line: a result to its call</span>\
<span style=\"--c:#7c3aed\">dashed line: an approval response to its request</span>\
<span style=\"--c:#9ca3af\">struck through, grey line: removed</span>\
<span style=\"--c:var(--bad)\">red frame: extra, changed or not in the input</span></div>\n";

/// The class of a role: `s` system, `u` user, `a` assistant, `t` tool,
/// `x` any other.
fn role_class(r: Role) -> &'static str {
    match r {
        Role::System => "s",
        Role::User => "u",
        Role::Assistant => "a",
        Role::Tool => "t",
        Role::Other => "x",
    }
}

/// The class of an item kind.
fn kind_class(k: ItemKind) -> &'static str {
    match k {
        ItemKind::Text => "tx",
        ItemKind::Call => "ca",
        ItemKind::Result => "re",
        ItemKind::ApprovalRequest => "aq",
        ItemKind::ApprovalResponse => "ar",
        ItemKind::Opaque => "op",
    }
}

/// The lines the note beside the failing message wraps to (words wrap;
/// a word longer than a line breaks, as `overflow-wrap: anywhere` does).
fn note_lines(text: &str) -> u32 {
    let mut lines = 1u32;
    let mut width = 0usize;
    for word in text.split_whitespace() {
        let mut w = word.chars().count();
        if width > 0 && width + 1 + w > NOTE_CHARS {
            lines += 1;
            width = 0;
        } else if width > 0 {
            width += 1;
        }
        while w > NOTE_CHARS {
            lines += 1;
            w -= NOTE_CHARS;
        }
        width += w;
    }
    lines
}

/// The height of each row, in pixels.
fn heights(c: &Conversation, note: Option<(usize, u32)>) -> Vec<u32> {
    c.rows
        .iter()
        .enumerate()
        .map(|(r, row)| {
            let items = row
                .cells
                .iter()
                .filter_map(|cell| cell.message.as_ref().map(|m| m.items.len()))
                .max()
                .unwrap_or(0)
                .max(1) as u32;
            let own = PAD * 2 + HEAD + LINE * items;
            match note {
                Some((nr, lines)) if nr == r => own.max(PAD * 2 + NOTE_LINE * lines),
                _ => own,
            }
        })
        .collect()
}

/// The conversation `c` as an HTML fragment: the budget bars, a header
/// naming each column's answer, the rows, the links, and the note beside
/// the failing message.
pub fn conversation(c: &Conversation) -> String {
    let mut out = String::new();
    budget(c, &mut out);
    if c.rows.is_empty() {
        out.push_str("<p class=\"empty\">no input messages</p>");
        return out;
    }
    let note_text = c
        .failure
        .as_ref()
        .map(|(f, _)| format!("{} {}", f.clause, f.definition));
    let note_row = c.failure.as_ref().and_then(|(_, r)| *r);
    let note = note_row.zip(note_text.as_deref().map(note_lines));
    let hs = heights(c, note);
    let tops: Vec<u32> = hs
        .iter()
        .scan(0u32, |top, h| {
            let t = *top;
            *top += h + GAP;
            Some(t)
        })
        .collect();
    let total = hs.iter().sum::<u32>() + GAP * (hs.len() as u32 - 1);
    let cols = c.columns.len();
    let template = format!(
        "34px{} 250px",
        format!(" {GUTTER}px minmax(0,1fr)").repeat(cols)
    );
    let _ = write!(
        out,
        "<div class=\"cvh\" style=\"grid-template-columns:{template}\"><span>#</span>"
    );
    for col in &c.columns {
        let _ = write!(
            out,
            "<span></span><span class=\"ch\"><b>{}</b> {}</span>",
            col.side.name(),
            esc(&col.summary)
        );
    }
    out.push_str("<span></span></div>");
    let rows_css: String = hs.iter().map(|h| format!("{h}px ")).collect();
    let _ = write!(
        out,
        "<div class=\"cv\" style=\"grid-template-columns:{template};grid-template-rows:{}\">",
        rows_css.trim_end()
    );
    for (ci, col) in c.columns.iter().enumerate() {
        gutter(c, col, ci, &tops, total, &mut out);
    }
    for (r, row) in c.rows.iter().enumerate() {
        match row.input {
            Some(j) => {
                let _ = write!(out, "<div class=\"n\">{j}</div>");
            }
            None => out.push_str("<div class=\"n\">+</div>"),
        }
        for cell in &row.cells {
            self::cell(cell, &mut out);
        }
        match (&c.failure, note_row) {
            (Some((f, _)), Some(nr)) if nr == r => {
                let _ = write!(
                    out,
                    "<div class=\"note\"><b>&#10007; {}</b> {}</div>",
                    esc(&f.clause),
                    esc(&f.definition)
                );
            }
            _ => out.push_str("<div></div>"),
        }
    }
    out.push_str("</div>");
    let (before, after) = c.hidden;
    if before + after > 0 {
        let _ = write!(
            out,
            "<p class=\"hid\">{before} rows before and {after} after these are not drawn</p>"
        );
    }
    out
}

/// The budget and a bar per column of what its answer uses.
fn budget(c: &Conversation, out: &mut String) {
    let Some(b) = &c.budget else {
        let _ = write!(
            out,
            "<div class=\"bud\"><span>budget: {} (not a valid budget)</span></div>",
            esc(&c.budget_text)
        );
        return;
    };
    let _ = write!(
        out,
        "<div class=\"bud\"><span>budget: <b>{}</b></span>",
        esc(&c.budget_text)
    );
    for (col, used) in c.columns.iter().zip(&b.used) {
        let Some(u) = used else {
            let _ = write!(
                out,
                "<span class=\"bl\">{}</span><span class=\"bar\"></span><span>no messages</span>",
                col.side.name()
            );
            continue;
        };
        let over = *u > b.limit;
        let pct = u
            .saturating_mul(100)
            .checked_div(b.limit)
            .map_or(100, |p| p.min(100));
        let _ = write!(
            out,
            "<span class=\"bl\">{}</span><span class=\"bar\"><i class=\"{}\" style=\"width:{pct}%\"></i></span><span>{u} of {}{}</span>",
            col.side.name(),
            if over { "over" } else { "ok" },
            b.limit,
            if over { " (over)" } else { "" }
        );
    }
    out.push_str("</div>");
}

/// The SVG of column `ci`'s links, in the gutter left of it.
fn gutter(c: &Conversation, col: &Column, ci: usize, tops: &[u32], total: u32, out: &mut String) {
    let y = |(r, t): (usize, usize)| tops[r] + PAD + HEAD + LINE * t as u32 + LINE / 2;
    let _ = write!(
        out,
        "<svg class=\"g\" style=\"grid-column:{};grid-row:1/-1\" width=\"{GUTTER}\" height=\"{total}\" data-side=\"{}\">",
        2 + 2 * ci,
        col.side.name()
    );
    let x = GUTTER;
    for (i, l) in col.links.iter().enumerate() {
        let (y0, y1) = (y(l.to), y(l.from));
        let depth = 18 + 8 * (i as u32 % 3);
        let class = match (l.approval, l.removed) {
            (_, true) => " rm",
            (true, false) => " ap",
            (false, false) => "",
        };
        let _ = write!(
            out,
            "<path class=\"ln{class}\" data-from=\"{}.{}\" data-to=\"{}.{}\" d=\"M{x} {y1}C{a} {y1} {a} {y0} {x} {y0}\"/><path class=\"ah{class}\" d=\"M{x} {y0}l-7 -4v8z\"/>",
            l.from.0,
            l.from.1,
            l.to.0,
            l.to.1,
            a = x - depth
        );
    }
    for (r, row) in c.rows.iter().enumerate() {
        for &t in &row.cells[ci].orphans {
            let yo = y((r, t));
            let _ = write!(
                out,
                "<path class=\"or\" data-from=\"{r}.{t}\" d=\"M{x} {yo}h-16\"/><text class=\"ox\" x=\"{}\" y=\"{}\">&#10007;</text>",
                x - 30,
                yo + 5
            );
        }
    }
    out.push_str("</svg>");
}

/// One cell.
fn cell(cell: &Cell, out: &mut String) {
    let Some(m) = &cell.message else {
        out.push_str("<div class=\"m e\"></div>");
        return;
    };
    let state = match cell.state {
        State::Kept => "k",
        State::Dropped => "d",
        State::Fabricated => "f",
        State::Changed => "c",
        State::Empty => "e",
    };
    let versus = match cell.versus {
        Some(Versus::Extra) => " vx",
        Some(Versus::Missing) => " vm",
        None => "",
    };
    let _ = write!(
        out,
        "<div class=\"m {} {state}{versus}{}\"><div class=\"h\"><b>{}</b>",
        role_class(m.role),
        if cell.failing { " bad" } else { "" },
        esc(&m.role_text)
    );
    if let Some(k) = cell.out {
        let _ = write!(out, "<i>out {k}</i>");
    }
    for tag in tags(cell, m) {
        let _ = write!(out, "<span class=\"tag {}\">{}</span>", tag.0, esc(&tag.1));
    }
    out.push_str("</div>");
    for (t, g) in m.items.iter().enumerate() {
        let removed = cell.removed.contains(&t);
        let orphan = cell.orphans.contains(&t);
        let _ = write!(
            out,
            "<p class=\"it {}{}{}\"><b>{}</b>",
            kind_class(g.kind),
            if removed { " rm" } else { "" },
            if orphan { " o" } else { "" },
            esc(&g.label)
        );
        if !g.id.is_empty() {
            let _ = write!(out, "<code>{}</code>", esc(&g.id));
        }
        if orphan {
            let _ = write!(
                out,
                "<em>orphan: no {} earlier in the answer</em>",
                if g.kind == ItemKind::Result {
                    "call"
                } else {
                    "request"
                }
            );
        }
        if removed {
            out.push_str("<em>removed</em>");
        }
        if g.text.is_empty() && g.kind == ItemKind::Text {
            out.push_str("<em>(empty)</em>");
        }
        let _ = write!(out, "{}</p>", esc(&g.text));
    }
    out.push_str("</div>");
}

/// The marks of a cell's header: (class, text).
fn tags(cell: &Cell, m: &Drawn) -> Vec<(&'static str, String)> {
    let mut tags = Vec::new();
    match cell.state {
        State::Dropped => tags.push(("dr", "removed".to_string())),
        State::Fabricated => tags.push(("bd", "not in the input".to_string())),
        State::Changed => tags.push(("bd", "changed: not the input message as sent".to_string())),
        State::Kept if !cell.removed.is_empty() => tags.push((
            "dr",
            match cell.removed.len() {
                1 => "1 item removed".to_string(),
                n => format!("{n} items removed"),
            },
        )),
        _ => {}
    }
    match cell.versus {
        Some(Versus::Extra) => tags.push(("bd", "extra: the reference removes it".into())),
        Some(Versus::Missing) => tags.push(("bd", "missing: the reference keeps it".into())),
        None => {}
    }
    if m.reasoning {
        tags.push(("in", "reasoning".into()));
    } else if m.call_item {
        tags.push(("in", "call item".into()));
    }
    if let Some(why) = &m.unreadable {
        tags.push(("bd", format!("unreadable: {why}")));
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            esc("<img src=x onerror='a()'>\u{202e}\n"),
            "&lt;img src=x onerror=&#39;a()&#39;&gt;\\u{202e}\\n"
        );
    }

    #[test]
    fn a_note_takes_as_many_lines_as_it_wraps_to() {
        assert_eq!(note_lines("short"), 1);
        assert_eq!(note_lines(&"word ".repeat(12)), 2);
        assert_eq!(note_lines(&"x".repeat(95)), 4);
    }
}
