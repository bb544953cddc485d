//! Text from outside the kit, made safe to print (spec §8.9): case ids,
//! file names, failure details and a reducer's stderr can hold anything,
//! and a terminal obeys control characters. Every printer of the kit shows
//! such text through [`escape`] (one line) or [`escape_lines`] (keeping
//! line breaks), and every command line it prints through
//! [`command_line`] / [`shell_quote`], so that what it prints can be
//! pasted back into a shell and means the same.
//!
//! Escaped: the C0 controls (U+0000–U+001F), DEL (U+007F), the C1
//! controls (U+0080–U+009F), and the characters that reorder or break
//! lines: U+061C, U+200E, U+200F, U+2028, U+2029, U+202A–U+202E and
//! U+2066–U+2069. `\n`, `\r` and `\t` are written so; other characters
//! below U+0080 as `\xHH`, the rest as `\u{HHHH}`. Backslashes are left as
//! they are.

use std::borrow::Cow;
use std::ffi::OsString;
use std::fmt;

/// Whether `c` is escaped by [`escape`] (see the module doc).
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

fn escape_where(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) && !keep(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` with every unsafe character escaped, line breaks included: one
/// line on any terminal.
///
/// # Examples
///
/// ```
/// use reducer_kit::terminal::escape;
/// assert_eq!(escape("a\nlevel safety pass\x1b[2J"), "a\\nlevel safety pass\\x1b[2J");
/// assert_eq!(escape("ab\u{202e}c"), "ab\\u{202e}c");
/// assert_eq!(escape("plain é"), "plain é");
/// ```
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_where(text, |_| false)
}

/// `text` with every unsafe character escaped except `\n`: for text that
/// is printed over several lines (a stderr tail, a report).
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| c == '\n')
}

/// A [`fmt::Display`] of text through [`escape`]: `format!("{}",
/// show(id))`.
#[derive(Clone, Copy, Debug)]
pub struct Shown<'a>(&'a str);

/// `text`, to be displayed escaped ([`escape`]).
pub fn show(text: &str) -> Shown<'_> {
    Shown(text)
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&escape(self.0))
    }
}

/// A path as text, escaped ([`escape`]).
pub fn show_path(path: &std::path::Path) -> String {
    escape(&path.to_string_lossy()).into_owned()
}

/// `word` as one word of a POSIX shell command line, meaning the same
/// when pasted back: unchanged when it is made only of
/// `A-Z a-z 0-9 - _ . / = : , + @` (and not empty); in `$'...'` with
/// escapes (`\n`, `\t`, `\r`, `\xHH` for each other byte of an unsafe
/// character, `\\`, `\'`) when it holds an unsafe character (bash, zsh,
/// ksh and recent POSIX shells read those; the result is one line); else
/// in single quotes, a `'` written `'\''`.
///
/// # Examples
///
/// ```
/// use reducer_kit::terminal::shell_quote;
/// assert_eq!(shell_quote("corpus/regressions"), "corpus/regressions");
/// assert_eq!(shell_quote("st ale"), "'st ale'");
/// assert_eq!(shell_quote("it's"), r"'it'\''s'");
/// assert_eq!(shell_quote(""), "''");
/// assert_eq!(shell_quote("a\nb"), r"$'a\nb'");
/// ```
pub fn shell_quote(word: &str) -> Cow<'_, str> {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@".contains(c))
    {
        return Cow::Borrowed(word);
    }
    if word.chars().any(is_unsafe) {
        let mut out = String::from("$'");
        for c in word.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                // Above U+007F: its UTF-8 bytes, `\xHH` each (whatever
                // the shell's locale).
                c if is_unsafe(c) && (c as u32) >= 0x80 => {
                    let mut bytes = [0u8; 4];
                    for b in c.encode_utf8(&mut bytes).bytes() {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                }
                c if is_unsafe(c) => push_escaped(&mut out, c),
                c => out.push(c),
            }
        }
        out.push('\'');
        return Cow::Owned(out);
    }
    Cow::Owned(format!("'{}'", word.replace('\'', "'\\''")))
}

/// A command line as a shell would take it back: each argument through
/// [`shell_quote`], joined by spaces.
pub fn command_line(argv: &[OsString]) -> String {
    argv.iter()
        .map(|a| shell_quote(&a.to_string_lossy()).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_character_is_escaped() {
        for c in (0u32..0x20).chain(0x7f..0xa0) {
            let c = char::from_u32(c).unwrap();
            let e = escape(&c.to_string()).into_owned();
            assert!(
                e.starts_with('\\') && !e.chars().any(is_unsafe),
                "{c:?}: {e}"
            );
        }
        for c in [
            '\u{61c}', '\u{200e}', '\u{200f}', '\u{2028}', '\u{2029}', '\u{202a}', '\u{202b}',
            '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ] {
            assert_eq!(
                escape(&c.to_string()),
                format!("\\u{{{:x}}}", c as u32),
                "{c:?}"
            );
        }
        assert_eq!(escape("\t\r\n\x00\x7f\u{85}"), "\\t\\r\\n\\x00\\x7f\\u{85}");
        for c in ['a', 'é', '€', '\u{202f}', '\u{2065}', '\u{206a}', '\\', '"'] {
            assert_eq!(escape(&c.to_string()), c.to_string(), "{c:?}");
        }
    }

    #[test]
    fn lines_keep_their_breaks_only() {
        assert_eq!(
            escape_lines("one\ntwo\r\n\x1b]0;title\x07"),
            "one\ntwo\\r\n\\x1b]0;title\\x07"
        );
        assert!(matches!(escape_lines("a\nb"), Cow::Borrowed(_)));
    }

    #[test]
    fn shell_words_round_trip_through_sh() {
        for word in [
            "plain",
            "st ale",
            "it's",
            "$HOME",
            "a;b|c&d",
            "*?[x]",
            "",
            "-n",
            "tab\there",
            "new\nline",
            "esc\x1b[2J",
            "back\\slash'quote",
            "bidi\u{202e}x",
        ] {
            let quoted = shell_quote(word);
            assert!(!quoted.chars().any(is_unsafe), "{word:?}: {quoted}");
            if which_bash().is_none() {
                continue;
            }
            let out = std::process::Command::new("bash")
                .args(["-c", &format!("printf '%s' {quoted}")])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), word, "{quoted}");
        }
        assert_eq!(shell_quote("a\u{202e}"), "$'a\\xe2\\x80\\xae'");
        assert_eq!(shell_quote("x\\u{41}\n"), "$'x\\\\u{41}\\n'");
        assert_eq!(
            command_line(&["reducer-kit".into(), "corpus".into(), "st ale".into()]),
            "reducer-kit corpus 'st ale'"
        );
    }

    fn which_bash() -> Option<()> {
        std::process::Command::new("bash")
            .arg("-c")
            .arg("true")
            .status()
            .ok()
            .filter(|s| s.success())
            .map(|_| ())
    }
}
