//! Each clause's place in the contract (`spec/spec.md`, built into the
//! kit): the section that defines it and the text that says when it
//! holds, for a report that links each clause to its definition.

/// The contract, as this kit was built with it.
pub const SPEC: &str = include_str!("../../../spec/spec.md");

/// The section that defines clause `id` (`6.3`), as the clause index at
/// the end of the spec lists it (its row `| \`id\` | level | §6.3 | ...`,
/// the one place the spec writes it); `6` (clauses by level) for an id
/// the index does not have.
pub fn section(id: &str) -> &'static str {
    let row = format!("| `{id}` |");
    SPEC.lines()
        .rfind(|l| l.starts_with(&row))
        .and_then(|l| l.split('|').nth(3))
        .and_then(|cell| cell.trim().strip_prefix('§'))
        .filter(|n| !n.is_empty())
        .unwrap_or("6")
}

/// The title of section `number` (`6.3` → `Safety level (every
/// policy)`), when the spec has it.
pub fn title(number: &str) -> Option<&'static str> {
    SPEC.lines().find_map(|l| {
        let rest = l.trim_start_matches('#');
        if rest.len() == l.len() {
            return None;
        }
        let rest = rest.trim_start();
        let after = rest.strip_prefix(number)?;
        let after = after.strip_prefix('.').unwrap_or(after);
        after
            .starts_with(' ')
            .then(|| after.trim())
            .filter(|t| !t.is_empty())
    })
}

/// The text of section `number`: from its heading to the next heading of
/// the same or a higher level.
fn section_text(number: &str) -> Option<&'static str> {
    let mut start = None;
    let mut depth = 0;
    let mut offset = 0;
    for line in SPEC.split_inclusive('\n') {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes > 0 {
            let rest = line[hashes..].trim_start();
            let opens = rest
                .strip_prefix(number)
                .is_some_and(|a| a.starts_with(' ') || a.starts_with(". "));
            match start {
                None if opens => {
                    start = Some(offset);
                    depth = hashes;
                }
                Some(s) if hashes <= depth => return Some(&SPEC[s..offset]),
                _ => {}
            }
        }
        offset += line.len();
    }
    start.map(|s| &SPEC[s..])
}

/// When clause `id` holds, as its row of its section's table says it
/// (the "holds when" cell, Markdown as written, `\|` read as `|`); for a
/// clause with no row there, its row anywhere in the spec; `None` when
/// there is none.
pub fn holds_when(id: &str) -> Option<String> {
    let row = format!("| `{id}` |");
    let find = |text: &'static str| text.lines().find(|l| l.starts_with(&row));
    let line = section_text(section(id))
        .and_then(find)
        .or_else(|| find(SPEC))?;
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    cells.get(2).map(|c| c.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::Clause;

    #[test]
    fn every_clause_has_its_section_and_its_text() {
        for c in Clause::ALL {
            let number = section(c.id());
            assert_ne!(number, "6", "{} has no row in the clause index", c.id());
            assert!(title(number).is_some(), "{}: no section {number}", c.id());
            let text = section_text(number).unwrap();
            assert!(
                text.contains(&format!("`{}`", c.id())),
                "{}: section {number} does not name it",
                c.id()
            );
        }
        assert_eq!(section("budget"), "6.3");
        assert_eq!(section("protocol-budget"), "6.2");
        assert_eq!(section("reasoning-attached"), "14.6");
        assert_eq!(section("completes-calls"), "17.4");
        assert_eq!(section("no-such-clause"), "6");
    }

    #[test]
    fn a_clause_reads_as_its_table_says() {
        assert_eq!(title("6.3"), Some("Safety level (every policy)"));
        assert_eq!(title("14.6"), Some("Attached reasoning"));
        assert_eq!(
            holds_when("no-orphan-result").as_deref(),
            Some("pairing the output, no result is an orphan")
        );
        // An escaped pipe is a pipe.
        assert!(holds_when("maximal-suffix")
            .unwrap()
            .contains("under a message budget, |M| − N"));
        assert_eq!(holds_when("no-such-clause"), None);
    }
}
