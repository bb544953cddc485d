//! The HTML report (`--report-html FILE`): one self-contained page (styles
//! and drawings inline, no script, nothing fetched, a content security
//! policy that allows neither) with the certificate and the levels as a
//! banner, the clause table (each clause linked to its definition in the
//! spec, built into the page), each minimal counterexample drawn as a
//! conversation ([`crate::certify::draw`]) with the command that
//! reproduces it, and the first failing cases. Every text from a case or
//! the reducer is escaped ([`esc`]).
//!
//! Its size does not grow with the cases run: the page lists at most
//! [`super::text::SHOWN`] failing cases, and each drawing at most
//! [`crate::certify::draw::MAX_ROWS`] rows of items cut to
//! [`crate::certify::draw::gist::MAX_TEXT`] characters.

use super::text::{replay, reproduce, TextOptions, SHOWN};
use super::{certificate, plan_line, thousands, FirstFailure, Run};
use crate::certify::counterexample::Counterexample;
use crate::certify::draw::html::{conversation, esc, page, LEGEND};
use crate::certify::draw::{spec, Answer, Conversation, Exhibit, Failure};
use crate::certify::run::Settings;
use crate::terms::{Clause, Level};
use std::fmt::Write as _;

/// Counterexample `cx` of a run under `settings`, drawn: its input in the
/// run's wire format (canonical when it has no form there), the
/// reference's answer and the reducer's, its failure.
pub fn draw_counterexample(settings: &Settings, cx: &Counterexample) -> Conversation {
    let (format, input) = match crate::formats::to_wire(settings.format, &cx.case.messages) {
        Ok(wire) => (settings.format, wire),
        Err(_) => (crate::formats::Format::Canonical, cx.case.messages.to_vec()),
    };
    Conversation::of(&Exhibit {
        format,
        policy: settings.policy,
        input: &input,
        budget: &cx.case.budget,
        reference: Answer::of(Some(&cx.expected)),
        reducer: Some(Answer::of(cx.actual.as_ref())),
        failure: Some(Failure {
            clause: cx.clause.id().to_string(),
            definition: settings.definition(cx.clause).to_string(),
            detail: cx.detail.clone(),
            first_difference: cx.first_difference.clone(),
        }),
    })
}

/// The run as one HTML page (`--report-html`; see the module doc).
/// `options` says how a case is rerun, as for the text report.
pub fn render(run: &Run, options: &TextOptions) -> String {
    let mut body = String::from("<main>\n");
    banner(run, &mut body);
    hints(run, &mut body);
    clause_table(run, &mut body);
    counterexamples(run, options, &mut body);
    failing_cases(run, &mut body);
    definitions(run, &mut body);
    body.push_str("</main>");
    page(
        &format!(
            "reducer-kit certify: {}",
            crate::terminal::command_line(&run.settings.reducer.argv)
        ),
        &body,
    )
}

/// The hints the answers call for ([`super::text::hints`]), one
/// paragraph each, before the clause table; nothing without one.
fn hints(run: &Run, out: &mut String) {
    for h in &run.verdict().hints {
        let _ = writeln!(out, "<p class=\"facts hint\"><b>hint:</b> {}</p>", esc(h));
    }
}

/// The banner: the verdict, the reducer, how it ran, the levels and the
/// certificate line.
fn banner(run: &Run, out: &mut String) {
    let passed = run.passed() && run.interrupted.is_none();
    let s = run.settings;
    let _ = write!(
        out,
        "<header class=\"banner{}\"><h1>reducer-kit certify<span class=\"verdict\">{}</span></h1>\
         <div class=\"cmd mono\">reducer: {}</div>",
        if passed { "" } else { " failed" },
        match (run.gave_up.is_some(), passed) {
            (true, _) => "STOPPED",
            (false, true) => "PASS",
            (false, false) => "FAIL",
        },
        esc(&crate::terminal::command_line(&s.reducer.argv))
    );
    out.push_str("<div class=\"levels\">");
    let verdict = run.verdict();
    for level in &verdict.levels {
        let (class, said) = if level.not_judged() {
            ("nj", "not judged")
        } else if level.passed {
            ("pass", "pass")
        } else {
            ("fail", "FAIL")
        };
        let _ = write!(
            out,
            "<span class=\"lv {class}\">{} {said}</span>",
            level.level.name()
        );
    }
    out.push_str("</div>");
    let cert = match (&run.interrupted, run.gave_up) {
        (Some(_), _) => "certificate: none (interrupted)".to_string(),
        (None, Some(_)) => format!(
            "certificate: none (the reducer gave no usable answer to {} cases in a row)",
            crate::certify::collect::MAX_UNANSWERED
        ),
        (None, None) => certificate(run),
    };
    let _ = write!(out, "<p class=\"cert mono\">{}</p>", esc(&cert));
    let _ = writeln!(
        out,
        "<p class=\"facts\">policy <b>{}</b> · format <b>{}</b> · {} mode · {} · {} failed{}</p></header>",
        s.policy,
        s.format,
        if s.sessions.is_some() {
            "in-process"
        } else if s.persistent {
            "persistent"
        } else {
            "per-case"
        },
        esc(&plan_line(&run.plan)),
        thousands(verdict.failing),
        match &verdict.first {
            FirstFailure::Defect(case, t) => format!(
                " · first defect: case {} after {:.2} s",
                esc(case),
                t.as_secs_f64()
            ),
            // Policy and exact failures alone: no defect (spec §9.3).
            FirstFailure::Difference(case, t) => format!(
                " · no defect; first difference from the policy: case {} after {:.2} s",
                esc(case),
                t.as_secs_f64()
            ),
            FirstFailure::None => String::new(),
        }
    );
}

/// The clause table: per clause, its level, counts, and links to its
/// definition and its counterexamples.
fn clause_table(run: &Run, out: &mut String) {
    out.push_str(
        "<h2>Clauses</h2><table class=\"clauses\"><tr><th>clause</th><th>level</th>\
         <th class=\"num\">passed</th><th class=\"num\">defects</th>\
         <th class=\"num\">invalid input</th><th class=\"num\">not judged</th>\
         <th>counterexamples</th></tr>\n",
    );
    for (c, t) in &run.grade.clauses {
        let links: Vec<String> = run
            .counterexamples
            .iter()
            .enumerate()
            .filter(|(_, cx)| cx.clause == *c)
            .map(|(i, _)| format!("<a href=\"#cx-{}\">#{}</a>", i + 1, i + 1))
            .collect();
        let _ = writeln!(
            out,
            "<tr{}><td><a href=\"#spec-{id}\"><code>{id}</code></a></td><td>{}</td>\
             <td class=\"num\">{}</td><td class=\"num d\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td>{}</td></tr>",
            if t.defects > 0 { " class=\"f\"" } else { "" },
            c.level().name(),
            thousands(t.passed),
            thousands(t.defects),
            thousands(t.invalid_input),
            thousands(t.not_judged),
            links.join(" "),
            id = c.id()
        );
    }
    out.push_str("</table>\n");
}

/// Each counterexample, drawn, with the command that reruns it.
fn counterexamples(run: &Run, options: &TextOptions, out: &mut String) {
    if run.counterexamples.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<h2>Minimal counterexamples</h2><p class=\"facts\">Each failure shrunk to a minimal case \
         (spec §9): one row per input message; the reference reducer's answer and the reducer's \
         side by side on the rows of the messages they keep.</p>{LEGEND}"
    );
    let mut robustness = false;
    // One input failing several clauses is drawn once, with each clause
    // (spec §9.1); every counterexample keeps its anchor `cx-N`.
    for group in crate::certify::counterexample::grouped_by_input(run.counterexamples) {
        let i = group[0];
        let cx = &run.counterexamples[i];
        if !cx.valid_input && !robustness {
            robustness = true;
            out.push_str(
                "<h2>Counterexamples on invalid input</h2><p class=\"facts\">Robustness: the input \
                 breaks a validator rule (spec §9.2); these decide no level.</p>\n",
            );
        }
        // Too large to copy (spec §9.1): not drawn, its sizes said.
        let large = cx.too_large();
        let drawing = large
            .is_none()
            .then(|| draw_counterexample(run.settings, cx));
        let budget_text = drawing
            .as_ref()
            .map_or_else(|| cx.case.budget_text(), |d| d.budget_text.clone());
        let messages = match cx.case.messages.len() {
            1 => "1 message".to_string(),
            n => format!("{n} messages"),
        };
        let level = if cx.valid_input {
            cx.clause.level().name()
        } else {
            "invalid input"
        };
        let heading: Vec<String> = group
            .iter()
            .map(|&k| {
                let id = run.counterexamples[k].clause.id();
                format!("#{} <a href=\"#spec-{id}\"><code>{id}</code></a>", k + 1)
            })
            .collect();
        let anchors: String = group[1..]
            .iter()
            .map(|&k| format!("<a id=\"cx-{}\"></a>", k + 1))
            .collect();
        let _ = write!(
            out,
            "<section class=\"cx\" id=\"cx-{}\">{anchors}<h3>{} \
             <span class=\"lv {}\">{level}</span></h3>\
             <p class=\"sub\">{messages}, {}; shrunk from <code>{}</code> in {} tries{}</p>",
            i + 1,
            heading.join(", "),
            if cx.valid_input { "fail" } else { "nj" },
            esc(&budget_text),
            esc(&cx.original_id),
            cx.tries,
            if cx.out_of_time {
                ", stopped by --shrink-time"
            } else {
                ""
            },
        );
        // The first difference, said once: after the first failure, when
        // no failure of the input says it.
        let unsaid = cx
            .first_difference_unsaid()
            .filter(|p| {
                group
                    .iter()
                    .all(|&k| run.counterexamples[k].first_difference_unsaid() == Some(p))
            })
            .map_or(String::new(), |p| {
                format!(" (first difference at <code>{}</code>)", esc(p))
            });
        for (n, &k) in group.iter().enumerate() {
            let c = &run.counterexamples[k];
            let like = match c.cases {
                1 => "1 case like this".to_string(),
                n => format!("{} cases like this", thousands(n)),
            };
            let _ = write!(
                out,
                "<p class=\"def\"><b>clause:</b> {}{} <a href=\"#spec-{id}\">spec §{}</a>; {like}</p>\
                 <p class=\"failure\"><b>failure:</b> {}{}</p>",
                if group.len() > 1 {
                    format!("<code>{}</code>: ", c.clause.id())
                } else {
                    String::new()
                },
                esc(run.settings.definition(c.clause)),
                spec::section(c.clause.id()),
                esc(&c.detail),
                if n == 0 { unsaid.as_str() } else { "" },
                id = c.clause.id()
            );
        }
        match (&drawing, large) {
            (Some(d), _) => out.push_str(&conversation(d)),
            (None, Some(z)) => {
                let _ = write!(
                    out,
                    "<p class=\"facts\">Not drawn: its input is {} messages, {} bytes \
                     (over {} bytes); the reference answered {} messages, the reducer {}.</p>",
                    thousands(z.messages),
                    thousands(z.bytes as usize),
                    thousands(crate::certify::counterexample::COPY_LIMIT as usize),
                    thousands(z.expected_messages),
                    z.actual_messages
                        .map_or("no messages".to_string(), |m| format!(
                            "{} messages",
                            thousands(m)
                        )),
                );
            }
            (None, None) => {}
        }
        let command = match &cx.saved_to {
            Some(p) => format!(
                "saved: {}\nreplay: {}",
                crate::terminal::show_path(p),
                replay(run, options, p)
            ),
            None => format!("reproduce: {}", reproduce(run, options, &cx.original_id)),
        };
        let _ = writeln!(
            out,
            "<pre class=\"repro\">{}</pre></section>",
            esc_lines(&command)
        );
    }
}

/// `text` over several lines, each escaped ([`esc`]).
fn esc_lines(text: &str) -> String {
    text.lines().map(esc).collect::<Vec<_>>().join("\n")
}

/// The first [`SHOWN`] failing cases on a valid input, with their
/// failures.
fn failing_cases(run: &Run, out: &mut String) {
    let verdict = run.verdict();
    let failing = verdict.failing - verdict.failing_invalid;
    if failing == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "<h2>Failing cases</h2><p class=\"facts\">{} on a valid input{}.</p>\
         <table><tr><th>case</th><th>budget</th><th class=\"num\">messages</th><th>failures</th></tr>",
        thousands(failing),
        if failing > SHOWN {
            format!("; the first {SHOWN} (the JSON report has them all)")
        } else {
            String::new()
        }
    );
    for r in &verdict.shown {
        let failures: Vec<String> = r
            .failures
            .iter()
            .map(|(c, d)| {
                format!(
                    "<a href=\"#spec-{id}\"><code>{id}</code></a> {}",
                    esc(d),
                    id = c.id()
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td class=\"nw\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            esc(&r.id),
            esc(&r.budget_text()),
            r.messages,
            failures.join("<br>")
        );
    }
    out.push_str("</table>\n");
}

/// Each clause of the table as the spec defines it: its section and the
/// text of its row there.
fn definitions(run: &Run, out: &mut String) {
    out.push_str(
        "<h2>The clauses as the spec defines them</h2><p class=\"facts\">From \
         <code>spec/spec.md</code> as this kit was built with it.</p><dl class=\"spec\">\n",
    );
    for (c, _) in &run.grade.clauses {
        definition(*c, run.settings.definition(*c), out);
    }
    out.push_str("</dl>\n");
}

/// One clause's entry: `<dt id="spec-ID">` with its section, then its
/// one-line definition and the spec's text.
fn definition(c: Clause, one_line: &str, out: &mut String) {
    let number = spec::section(c.id());
    let _ = write!(
        out,
        "<dt id=\"spec-{id}\"><code>{id}</code> ({}) — spec §{number} {}</dt><dd>{}",
        match c.level() {
            Level::Protocol => "protocol",
            Level::Safety => "safety",
            Level::Policy => "policy",
            Level::Exact => "exact",
        },
        markdown_inline(spec::title(number).unwrap_or("")),
        esc(one_line),
        id = c.id()
    );
    if let Some(text) = spec::holds_when(c.id()) {
        let _ = write!(out, "<br><i>holds when:</i> {}", markdown_inline(&text));
    }
    out.push_str("</dd>\n");
}

/// A line of the spec's Markdown as HTML: code spans as `<code>`,
/// emphasis marks dropped, everything escaped.
pub fn markdown_inline(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", esc(part));
        } else {
            out.push_str(&esc(&part.replace('*', "")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_markdown_reads_as_html() {
        assert_eq!(
            markdown_inline("*(spec version 2)* the `<x>` & y"),
            "(spec version 2) the <code>&lt;x&gt;</code> &amp; y"
        );
    }
}
