//! A counterexample or a case drawn as a conversation: one row per input
//! message, the reference's answer and the reducer's side by side on the
//! rows of the input messages they kept, removed messages struck through,
//! messages that come from no input message on rows of their own, and a
//! link from each result (approval response) to its call (request).
//!
//! [`Conversation::of`] builds the drawing from an [`Exhibit`] with the
//! kit's own readers: each message read by its format
//! ([`gist::draw_message`]), each answer mapped onto the input as the
//! checker maps it ([`crate::check::align`], spec §7), each answer paired
//! as the checker pairs it ([`crate::terms::History::pairing`]), the
//! budget read by the one budget parser. [`html`] and [`text`] render it;
//! nothing there reads a format.
//!
//! | file | owns |
//! |------|------|
//! | `mod.rs` | [`Exhibit`] (what is drawn) and [`Conversation`] (the drawing: rows, cells, links, the budget) |
//! | [`gist`] | one message as drawn: role, items, each item's label and text |
//! | [`html`] | a conversation as HTML (inline CSS and SVG), and HTML escaping |
//! | [`text`] | a conversation as terminal text |
//! | [`saved`] | drawings of what is saved: a counterexample of a JSON report or of the compatibility matrix, a case file's case |
//! | [`show`] | what `reducer-kit show` draws from a file: a case file, a JSON report, the matrix |
//! | [`spec`] | each clause's section of `spec/spec.md` and its text there |
//! | [`matrix`] | the compatibility matrix (`docs/compat/matrix.json`) as a page |

pub mod gist;
pub mod html;
pub mod matrix;
pub mod saved;
pub mod show;
pub mod spec;
pub mod text;

use crate::check::align::{align, Alignment};
use crate::formats::{read_history_lenient, Format};
use crate::protocol::Response;
use crate::terms::{Budget, BudgetFields, ItemKind, Policy};
use gist::{draw_message, Drawn};
use serde_json::Value;

/// At most this many rows are drawn; a longer conversation shows the rows
/// around the failing message (else its last rows) and says how many it
/// leaves out.
pub const MAX_ROWS: usize = 40;

/// At most this many items of a message are drawn; the rest are counted
/// in one more line.
pub const MAX_ITEMS: usize = 12;

/// An answer as drawn.
#[derive(Clone, Copy, Debug)]
pub enum Answer<'a> {
    /// Messages (the kit's list, in the run's format).
    Messages(&'a [Value]),
    /// `{"error": ...}`.
    Error(&'a str),
    /// `{"unsupported": ...}` (protocol 2).
    Unsupported(&'a str),
    /// No answer the kit could judge.
    Missing,
}

impl<'a> Answer<'a> {
    /// The answer of a response (`None`: [`Answer::Missing`]).
    pub fn of(r: Option<&'a Response>) -> Answer<'a> {
        match r {
            Some(Response::Messages(m)) => Answer::Messages(m),
            Some(Response::Error(e)) => Answer::Error(e),
            Some(Response::Unsupported(u)) => Answer::Unsupported(u),
            None => Answer::Missing,
        }
    }

    /// `3 messages`, `1 message`, `an error: "..."`, `unsupported: "..."`
    /// or `no usable answer` (texts quoted as JSON strings, cut).
    pub fn summary(&self) -> String {
        let quoted = |s: &str| Value::String(gist::cut(s)).to_string();
        match self {
            Answer::Messages(m) if m.len() == 1 => "1 message".into(),
            Answer::Messages(m) => format!("{} messages", m.len()),
            Answer::Error(e) => format!("an error: {}", quoted(e)),
            Answer::Unsupported(u) => format!("unsupported: {}", quoted(u)),
            Answer::Missing => "no usable answer".into(),
        }
    }
}

/// The failure a drawing shows beside the failing message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The clause id (`no-orphan-result`).
    pub clause: String,
    /// Its one-line definition.
    pub definition: String,
    /// The failure's detail (`output message 0: result "c1" has no call
    /// earlier in the output`).
    pub detail: String,
    /// The first JSON path where the reducer's answer differs from the
    /// reference's (`$[0].role`), when known.
    pub first_difference: Option<String>,
}

/// What a drawing shows: an input, its budget, the reference's answer,
/// the reducer's (when there is one: a case file has none) and the
/// failure.
#[derive(Clone, Debug)]
pub struct Exhibit<'a> {
    /// The wire format of the input and of both answers.
    pub format: Format,
    /// The policy judged (it decides the mapping, spec §7 or §17.2).
    pub policy: Policy,
    /// The input, the kit's message list in `format` (a top-level system
    /// prompt as message 0).
    pub input: &'a [Value],
    /// The budget as sent.
    pub budget: &'a BudgetFields,
    /// The reference reducer's answer.
    pub reference: Answer<'a>,
    /// The reducer's answer; `None` draws the reference alone.
    pub reducer: Option<Answer<'a>>,
    /// The failure, for a counterexample.
    pub failure: Option<Failure>,
}

/// Which answer a column draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The reference reducer's.
    Reference,
    /// The reducer's under test.
    Reducer,
}

impl Side {
    /// `reference` or `reducer`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Reference => "reference",
            Side::Reducer => "reducer",
        }
    }
}

/// One answer's column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Whose answer.
    pub side: Side,
    /// [`Answer::summary`].
    pub summary: String,
    /// Its links, from each paired result or approval response to its
    /// call or request, as (row, item) positions in [`Conversation::rows`].
    pub links: Vec<Link>,
    /// What the answer uses of the budget (as clause `budget` counts it,
    /// spec §6.3), when it answered messages and the budget is valid.
    pub used: Option<u64>,
}

/// A result (approval response) and the call (request) it answers, in one
/// column: (row, item) positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// The result or approval response.
    pub from: (usize, usize),
    /// The call or approval request.
    pub to: (usize, usize),
    /// An approval pair (else a call and its result).
    pub approval: bool,
    /// Both messages are left out of this answer: the pair as the input
    /// has it, drawn faint.
    pub removed: bool,
}

/// What a column shows on a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// The answer keeps the row's input message (perhaps less some
    /// results or approval responses: [`Cell::removed`]).
    Kept,
    /// The answer leaves the row's input message out (drawn struck
    /// through).
    Dropped,
    /// A message of the answer that is no input message, on a row of its
    /// own.
    Fabricated,
    /// A message of the answer that is no input message but stands where
    /// the row's input message was, with its role and the same kinds and
    /// ids of items: the input message changed.
    Changed,
    /// Nothing (a row of another column's fabricated message).
    Empty,
}

/// How the reducer's cell differs from the reference's on the same row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Versus {
    /// The reducer keeps a message the reference leaves out.
    Extra,
    /// The reducer leaves out a message the reference keeps.
    Missing,
}

/// One column's cell on a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// What it shows.
    pub state: State,
    /// The answer's message index, for a kept, changed or fabricated
    /// message.
    pub out: Option<usize>,
    /// The message drawn (the input's for kept and dropped ones, the
    /// answer's own for changed and fabricated ones).
    pub message: Option<Drawn>,
    /// Items (positions in the message's items) the answer took out.
    pub removed: Vec<usize>,
    /// Items that are results or approval responses with no call or
    /// request earlier in the answer (orphans, spec §2).
    pub orphans: Vec<usize>,
    /// The reducer's cell against the reference's.
    pub versus: Option<Versus>,
    /// The failure names this message.
    pub failing: bool,
}

/// One row: an input message, or a message of an answer that is no input
/// message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The input message's index; `None` on a row of a fabricated message.
    pub input: Option<usize>,
    /// One cell per column.
    pub cells: Vec<Cell>,
}

/// The budget and what each column uses of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetUse {
    /// A token budget (else a message budget).
    pub tokens: bool,
    /// N.
    pub limit: u64,
    /// Per column, as [`Column::used`].
    pub used: Vec<Option<u64>>,
}

/// A conversation drawn: see the module doc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversation {
    /// The wire format.
    pub format: Format,
    /// The reference's column, then the reducer's (when drawn).
    pub columns: Vec<Column>,
    /// The rows drawn, in input order.
    pub rows: Vec<Row>,
    /// Rows left out before and after those drawn ([`MAX_ROWS`]).
    pub hidden: (usize, usize),
    /// The budget, when it is one.
    pub budget: Option<BudgetUse>,
    /// The budget as sent, in words (`maxMessages 1`, `maxTokens 9`).
    pub budget_text: String,
    /// The failure shown, and the row it is shown on (`None`: above the
    /// rows).
    pub failure: Option<(Failure, Option<usize>)>,
}

/// Where one answer's messages go: per input row, the output message
/// kept or changed there; the output messages on rows of their own; each
/// output message drawn; and the answer's pairing.
struct Placed {
    summary: String,
    messages: bool,
    alignment: Option<Alignment>,
    /// Per input message: the output message kept there, or changed there.
    at: Vec<Option<(usize, State)>>,
    /// Output messages on rows of their own: (before input row, output).
    inserted: Vec<(usize, usize)>,
    drawn: Vec<Drawn>,
    /// Each result and approval response of the answer: (output message,
    /// item), its partner (message, item) when paired, and whether it is
    /// an approval response.
    pairs: Vec<Pair>,
}

/// A (message, item) position.
type ItemAt = (usize, usize);

/// A result or approval response, its partner when paired, and whether it
/// is an approval response.
type Pair = (ItemAt, Option<ItemAt>, bool);

/// Per output message of one column: its row, and the drawn position of
/// each of its view's items.
type Positions = Vec<Option<(usize, Vec<usize>)>>;

impl Cell {
    /// A cell that shows nothing.
    fn empty() -> Cell {
        Cell {
            state: State::Empty,
            out: None,
            message: None,
            removed: Vec::new(),
            orphans: Vec::new(),
            versus: None,
            failing: false,
        }
    }
}

/// The rows of the placed answers: before each input row, the rows of the
/// messages of each column that come from no input message and stand
/// there; with each column's [`Positions`].
fn lay_out(placed: &[Placed], in_drawn: &[Drawn]) -> (Vec<Row>, Vec<Positions>) {
    let mut rows: Vec<Row> = Vec::new();
    let mut pos: Vec<Positions> = placed.iter().map(|p| vec![None; p.drawn.len()]).collect();
    for j in 0..=in_drawn.len() {
        for (c, p) in placed.iter().enumerate() {
            for &(_, k) in p.inserted.iter().filter(|(before, _)| *before == j) {
                let mut cells: Vec<Cell> = placed.iter().map(|_| Cell::empty()).collect();
                cells[c] = Cell {
                    state: State::Fabricated,
                    out: Some(k),
                    message: Some(p.drawn[k].clone()),
                    ..Cell::empty()
                };
                pos[c][k] = Some((rows.len(), (0..p.drawn[k].items.len()).collect()));
                rows.push(Row { input: None, cells });
            }
        }
        let Some(input_message) = in_drawn.get(j) else {
            break;
        };
        let mut cells = Vec::with_capacity(placed.len());
        for (c, p) in placed.iter().enumerate() {
            let cell = match p.at[j] {
                Some((k, State::Kept)) => {
                    let removed = p
                        .alignment
                        .as_ref()
                        .map_or_else(Vec::new, |a| a.removed[j].clone());
                    let kept: Vec<usize> = (0..input_message.items.len())
                        .filter(|t| !removed.contains(t))
                        .collect();
                    pos[c][k] = Some((rows.len(), kept));
                    Cell {
                        state: State::Kept,
                        out: Some(k),
                        message: Some(input_message.clone()),
                        removed,
                        ..Cell::empty()
                    }
                }
                Some((k, state)) => {
                    pos[c][k] = Some((rows.len(), (0..p.drawn[k].items.len()).collect()));
                    Cell {
                        state,
                        out: Some(k),
                        message: Some(p.drawn[k].clone()),
                        ..Cell::empty()
                    }
                }
                None => Cell {
                    state: State::Dropped,
                    message: Some(input_message.clone()),
                    ..Cell::empty()
                },
            };
            cells.push(cell);
        }
        if let [reference, reducer] = &mut cells[..] {
            let kept = |s: State| matches!(s, State::Kept | State::Changed);
            reducer.versus = match (kept(reference.state), kept(reducer.state)) {
                (false, true) => Some(Versus::Extra),
                (true, false) => Some(Versus::Missing),
                _ => None,
            };
        }
        rows.push(Row {
            input: Some(j),
            cells,
        });
    }
    (rows, pos)
}

impl Conversation {
    /// Draws `exhibit` (see the module doc).
    pub fn of(exhibit: &Exhibit) -> Conversation {
        let format = exhibit.format;
        let input = exhibit.input;
        let in_drawn: Vec<Drawn> = input
            .iter()
            .enumerate()
            .map(|(i, m)| draw_message(format, m, i))
            .collect();
        let mut sides = vec![(Side::Reference, exhibit.reference)];
        if let Some(r) = exhibit.reducer {
            sides.push((Side::Reducer, r));
        }
        let placed: Vec<Placed> = sides
            .iter()
            .map(|(_, a)| place(exhibit, &in_drawn, *a))
            .collect();
        let (mut rows, pos) = lay_out(&placed, &in_drawn);
        let mut columns = Vec::with_capacity(placed.len());
        for (c, (p, (side, _))) in placed.iter().zip(&sides).enumerate() {
            let mut links = link(p, &pos[c], &mut rows, c);
            links.extend(removed_links(format, input, &rows, c));
            columns.push(Column {
                side: *side,
                summary: p.summary.clone(),
                links,
                used: None,
            });
        }
        let budget = Budget::read(exhibit.budget, input.len()).ok().map(|b| {
            let used: Vec<Option<u64>> = placed.iter().map(|p| used(&b, p)).collect();
            for (col, u) in columns.iter_mut().zip(&used) {
                col.used = *u;
            }
            BudgetUse {
                tokens: b.is_tokens(),
                limit: b.limit(),
                used,
            }
        });
        let failure = exhibit.failure.clone().map(|f| {
            let row = failing_row(&f, &rows, placed.len());
            if let Some((r, c)) = row {
                rows[r].cells[c].failing = true;
            }
            (f, row.map(|(r, _)| r))
        });
        let mut drawing = Conversation {
            format,
            columns,
            rows,
            hidden: (0, 0),
            budget,
            budget_text: exhibit.budget_text(),
            failure,
        };
        drawing.window();
        drawing.cap_items();
        drawing
    }

    /// Keeps at most [`MAX_ROWS`] rows: those around the failing row, else
    /// the last ones; links with an end outside are dropped.
    fn window(&mut self) {
        let n = self.rows.len();
        if n <= MAX_ROWS {
            return;
        }
        let start = match self.failure.as_ref().and_then(|(_, r)| *r) {
            Some(r) => r.saturating_sub(MAX_ROWS / 2).min(n - MAX_ROWS),
            None => n - MAX_ROWS,
        };
        let end = start + MAX_ROWS;
        self.rows = self.rows.drain(start..end).collect();
        self.hidden = (start, n - end);
        for col in &mut self.columns {
            col.links = col
                .links
                .iter()
                .filter(|l| (start..end).contains(&l.from.0) && (start..end).contains(&l.to.0))
                .map(|l| Link {
                    from: (l.from.0 - start, l.from.1),
                    to: (l.to.0 - start, l.to.1),
                    ..*l
                })
                .collect();
        }
        if let Some((_, row)) = &mut self.failure {
            *row = row.filter(|r| (start..end).contains(r)).map(|r| r - start);
        }
    }
}

impl Conversation {
    /// Draws at most [`MAX_ITEMS`] items of a message, and one line that
    /// counts the others; links, orphans and removed items beyond are
    /// dropped.
    fn cap_items(&mut self) {
        for row in &mut self.rows {
            for cell in &mut row.cells {
                let Some(m) = &mut cell.message else { continue };
                let n = m.items.len();
                if n <= MAX_ITEMS {
                    continue;
                }
                m.items.truncate(MAX_ITEMS);
                m.items.push(gist::Gist {
                    kind: ItemKind::Opaque,
                    id: String::new(),
                    label: format!("… {} more items", n - MAX_ITEMS),
                    text: String::new(),
                });
                cell.removed.retain(|&t| t < MAX_ITEMS);
                cell.orphans.retain(|&t| t < MAX_ITEMS);
            }
        }
        for col in &mut self.columns {
            col.links
                .retain(|l| l.from.1 < MAX_ITEMS && l.to.1 < MAX_ITEMS);
        }
    }
}

impl Exhibit<'_> {
    /// The budget as sent, in words: `maxMessages 3`, `maxTokens 40`
    /// (each member as its JSON text).
    pub fn budget_text(&self) -> String {
        let b = self.budget;
        let mut parts = Vec::new();
        if let Some(m) = &b.max_messages {
            parts.push(format!("maxMessages {m}"));
        }
        if let Some(t) = &b.max_tokens {
            parts.push(format!("maxTokens {t}"));
        }
        if b.count_pinned.as_ref().and_then(Value::as_bool) == Some(true) {
            parts.push("countPinned".into());
        }
        if parts.is_empty() {
            "no budget".into()
        } else {
            parts.join(", ")
        }
    }
}

/// Maps one answer onto the input rows (module doc of [`Conversation`]).
fn place(exhibit: &Exhibit, in_drawn: &[Drawn], answer: Answer) -> Placed {
    let format = exhibit.format;
    let n = exhibit.input.len();
    let out: &[Value] = match answer {
        Answer::Messages(m) => m,
        _ => &[],
    };
    let drawn: Vec<Drawn> = out
        .iter()
        .enumerate()
        .map(|(k, m)| draw_message(format, m, k))
        .collect();
    let alignment = align(format, exhibit.policy, exhibit.input, out).ok();
    let map: Vec<Option<usize>> = alignment
        .as_ref()
        .map_or_else(|| vec![None; out.len()], |a| a.map.clone());
    let mut at: Vec<Option<(usize, State)>> = vec![None; n];
    for (k, j) in map.iter().enumerate() {
        if let Some(j) = j {
            at[*j] = Some((k, State::Kept));
        }
    }
    let mut inserted = Vec::new();
    for k in 0..out.len() {
        if map[k].is_some() {
            continue;
        }
        // The gap between the input messages of its mapped neighbours.
        let low = map[..k].iter().rev().find_map(|j| *j).map_or(0, |j| j + 1);
        let high = map[k + 1..].iter().find_map(|j| *j).unwrap_or(n).max(low);
        let same_shape = |j: usize| {
            let (a, b) = (&in_drawn[j], &drawn[k]);
            a.role_text == b.role_text
                && a.items.len() == b.items.len()
                && a.items
                    .iter()
                    .zip(&b.items)
                    .all(|(x, y)| x.kind == y.kind && x.id == y.id)
        };
        match (low..high).find(|&j| at[j].is_none() && same_shape(j)) {
            Some(j) => at[j] = Some((k, State::Changed)),
            None => inserted.push((low, k)),
        }
    }
    let h = read_history_lenient(format, out);
    let pairing = h.pairing();
    let mut pairs = Vec::new();
    for k in 0..h.len() {
        for (t, it) in h.items(k).iter().enumerate() {
            if matches!(it.kind, ItemKind::Result | ItemKind::ApprovalResponse) {
                pairs.push((
                    (k, t),
                    pairing.partner(&h, k, t),
                    it.kind == ItemKind::ApprovalResponse,
                ));
            }
        }
    }
    Placed {
        summary: answer.summary(),
        messages: matches!(answer, Answer::Messages(_)),
        alignment,
        at,
        inserted,
        drawn,
        pairs,
    }
}

/// The links of column `c` (positions of its output items: `pos`), and its
/// orphans marked on `rows`.
fn link(p: &Placed, pos: &[Option<(usize, Vec<usize>)>], rows: &mut [Row], c: usize) -> Vec<Link> {
    let at = |(k, t): (usize, usize)| -> Option<(usize, usize)> {
        let (row, items) = pos.get(k)?.as_ref()?;
        Some((*row, *items.get(t)?))
    };
    let mut links = Vec::new();
    for &(from, to, approval) in &p.pairs {
        let Some(from) = at(from) else { continue };
        match to.and_then(at) {
            Some(to) => links.push(Link {
                from,
                to,
                approval,
                removed: false,
            }),
            None if to.is_none() => rows[from.0].cells[c].orphans.push(from.1),
            None => {}
        }
    }
    links
}

/// The input's pairs (spec §2, positional pairing of the whole input)
/// whose two messages column `c` leaves out, as faint links.
fn removed_links(format: Format, input: &[Value], rows: &[Row], c: usize) -> Vec<Link> {
    let h = read_history_lenient(format, input);
    let pairing = h.pairing();
    let row_of: Vec<Option<usize>> = {
        let mut v = vec![None; input.len()];
        for (r, row) in rows.iter().enumerate() {
            if let Some(j) = row.input {
                v[j] = Some(r);
            }
        }
        v
    };
    let dropped = |j: usize| row_of[j].filter(|&r| rows[r].cells[c].state == State::Dropped);
    let mut out = Vec::new();
    for j in 0..h.len() {
        for (t, it) in h.items(j).iter().enumerate() {
            if !matches!(it.kind, ItemKind::Result | ItemKind::ApprovalResponse) {
                continue;
            }
            let Some((j2, t2)) = pairing.partner(&h, j, t) else {
                continue;
            };
            if let (Some(r), Some(r2)) = (dropped(j), dropped(j2)) {
                out.push(Link {
                    from: (r, t),
                    to: (r2, t2),
                    approval: it.kind == ItemKind::ApprovalResponse,
                    removed: true,
                });
            }
        }
    }
    out
}

/// What an answer uses of budget `b`, as clause `budget` counts it (spec
/// §6.3): under a message budget every output message but the pinned
/// system message counts 1; under a token budget each kept input message
/// its cost (the pinned one only with `countPinned`), any other message 0.
fn used(b: &Budget, p: &Placed) -> Option<u64> {
    if !p.messages {
        return None;
    }
    let pinned = p.alignment.as_ref().and_then(|a| a.pinned);
    let map: Vec<Option<usize>> = p
        .alignment
        .as_ref()
        .map_or_else(|| vec![None; p.drawn.len()], |a| a.map.clone());
    Some(map.iter().fold(0u64, |sum, j| {
        let cost = match j {
            Some(j) if Some(*j) == pinned => b.pinned_cost(pinned),
            Some(j) => b.cost(*j),
            None if b.is_tokens() => 0,
            None => 1,
        };
        sum.saturating_add(cost)
    }))
}

/// The number after the first `prefix` in `text`.
fn number_after(text: &str, prefix: &str) -> Option<usize> {
    let at = text.find(prefix)? + prefix.len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The (row, column) of the message a failure names: `output message N`
/// (or, in `the output breaks <rule>: message N`, output message N) in the
/// reducer's column, else `input message N`'s row, else the first
/// difference's `$[N]`; `None` when it names none that is drawn.
fn failing_row(f: &Failure, rows: &[Row], columns: usize) -> Option<(usize, usize)> {
    let c = columns.checked_sub(1)?;
    let out = number_after(&f.detail, "output message ")
        .or_else(|| {
            f.detail
                .contains("the output breaks")
                .then(|| number_after(&f.detail, ": message "))
                .flatten()
        })
        .or_else(|| {
            f.first_difference
                .as_deref()
                .and_then(|d| number_after(d, "$["))
                .filter(|_| !f.detail.contains("input message "))
        });
    if let Some(k) = out {
        if let Some(r) = rows.iter().position(|r| r.cells[c].out == Some(k)) {
            return Some((r, c));
        }
    }
    let j = number_after(&f.detail, "input message ")?;
    rows.iter().position(|r| r.input == Some(j)).map(|r| (r, c))
}

#[cfg(test)]
mod tests;
