//! The compatibility matrix (`docs/compat/matrix.json`, written by
//! `compat/run`) as one page (`docs/compat/index.html`, by `reducer-kit
//! show --matrix`): a grid of reducers × levels of each reducer's first
//! run (the policy it claims, else `turns`), each level passed, failed, or
//! failed with defects, and each defect cell a link to its section: the
//! library's cause and source line (the adapter's finding) and the
//! clause's minimal counterexample drawn ([`super::saved::Saved`]), with
//! a link to its case file under `corpus/compat/`.
//!
//! Read as JSON values, member by member: a matrix that lacks a member
//! draws without it.

use super::html::{conversation, esc, page};
use super::saved::Saved;
use crate::formats::Format;
use crate::terms::Policy;
use serde_json::Value;
use std::fmt::Write as _;

/// The levels, in grid order.
const LEVELS: [&str; 4] = ["protocol", "safety", "policy", "exact"];

/// The string member `k` of `v`, or "".
fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// The array member `k` of `v`, or none.
fn arr<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The anchor of a defect: `<adapter>--<clause>`, made of the characters
/// of ids and names only.
fn anchor(adapter: &str, clause: &str) -> String {
    format!("{adapter}--{clause}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What a finding on a failing clause is (spec §9.3): a defect (a
/// protocol or safety clause failing on a valid input), or a fact about
/// the claimed policy (a policy or exact clause: the library does not
/// implement the policy it claims), never drawn in a defect's colour.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Defect,
    Policy,
}

/// One finding of a reducer: a clause its first run fails on a valid
/// input, with the adapter's finding for it.
struct Found<'a> {
    clause: &'a str,
    level: &'a str,
    kind: Kind,
    cases: usize,
    finding: &'a Value,
}

/// The findings of `adapter`'s first run: each clause of its `findings`
/// that the run's `defects` (failures on valid input) name, a defect when
/// the clause is at the protocol or safety level.
fn findings<'a>(adapter: &'a Value, run: &'a Value) -> Vec<Found<'a>> {
    let failing = run.get("defects").and_then(Value::as_object);
    let mut out: Vec<Found> = Vec::new();
    for f in arr(run, "findings").iter().chain(arr(adapter, "findings")) {
        let clause = s(f, "clause");
        if out.iter().any(|d| d.clause == clause) {
            continue;
        }
        let Some(cases) = failing.and_then(|m| m.get(clause)) else {
            continue;
        };
        let level = run
            .get("clauses")
            .and_then(|c| c.get(clause))
            .map_or("", |c| s(c, "level"));
        out.push(Found {
            clause,
            level,
            kind: if matches!(level, "protocol" | "safety") {
                Kind::Defect
            } else {
                Kind::Policy
            },
            cases: cases.as_array().map_or(0, Vec::len),
            finding: f,
        });
    }
    out
}

/// The public reports of the same bug a finding records (`upstream`:
/// address, state, the version that fixed it), as a line of the page.
fn upstream(finding: &Value) -> String {
    let Some(list) = finding.get("upstream").and_then(Value::as_array) else {
        return "<p class=\"up\"><b>known upstream:</b> not searched</p>".to_string();
    };
    if list.is_empty() {
        return "<p class=\"up\"><b>known upstream:</b> none found: new</p>".to_string();
    }
    let links: Vec<String> = list
        .iter()
        .map(|u| {
            let url = s(u, "url");
            let parts: Vec<&str> = url.trim_end_matches('/').split('/').collect();
            let name = if url.starts_with("https://github.com/") && parts.len() >= 7 {
                format!("{}/{}#{}", parts[3], parts[4], parts[parts.len() - 1])
            } else {
                url.to_string()
            };
            let mut state = s(u, "state").to_string();
            if let Some(v) = u.get("fixedIn").and_then(Value::as_str) {
                let _ = write!(state, ", fixed in {v}");
            }
            let note = s(u, "note");
            format!(
                "<a href=\"{}\">{}</a> ({}){}",
                esc(url),
                esc(&name),
                esc(&state),
                if note.is_empty() {
                    String::new()
                } else {
                    format!(": {}", esc(note))
                }
            )
        })
        .collect();
    format!(
        "<p class=\"up\"><b>known upstream:</b> {}</p>",
        links.join("; ")
    )
}

/// Whether an adapter is a sanitizer (it claims policy `repair`, spec §17).
fn is_sanitizer(a: &Value) -> bool {
    s(a, "claims") == "repair"
}

/// The headline: how many reducers and sanitizers have defects (spec
/// §9.3: defects only; a policy the library does not implement is no
/// defect).
fn headline(adapters: &[Value]) -> String {
    let mut counts = [(0usize, 0usize); 2];
    for a in adapters {
        let Some(run) = arr(a, "runs").first() else {
            continue;
        };
        if run.get("levels").is_none() {
            continue;
        }
        let i = usize::from(is_sanitizer(a));
        counts[i].1 += 1;
        if findings(a, run).iter().any(|f| f.kind == Kind::Defect) {
            counts[i].0 += 1;
        }
    }
    format!(
        "<p class=\"headline\"><b>{} of {} reducers</b> and <b>{} of {} sanitizers</b> have defects on \
         valid input.</p>",
        counts[0].0, counts[0].1, counts[1].0, counts[1].1
    )
}

/// The page of `matrix` (the JSON `compat/run` writes). Links to case
/// files are relative to `docs/compat/` (`../../corpus/compat/...`).
pub fn render(matrix: &Value) -> String {
    let adapters = arr(matrix, "adapters");
    let mut body = String::from("<main>\n");
    let _ = writeln!(
        body,
        "<header class=\"banner\"><h1>Compatibility matrix: real chat-history reducers</h1>\
         <p class=\"facts\">Generated by <code>compat/run</code> with {} (spec v{}); \
         {} generated cases per run (seed {}) besides the kit's corpus. \
         <a href=\"matrix.md\">matrix.md</a> has every run in full; each reducer's adapter is in \
         <code>compat/</code>.</p>{}</header>",
        esc(s(matrix, "kit")),
        matrix.get("spec").and_then(Value::as_u64).unwrap_or(1),
        matrix
            .get("settings")
            .and_then(|x| x.get("cases"))
            .and_then(Value::as_u64)
            .unwrap_or(0),
        matrix
            .get("settings")
            .and_then(|x| x.get("seed"))
            .and_then(Value::as_u64)
            .unwrap_or(0),
        headline(adapters),
    );
    body.push_str(
        "<h2>Verdicts</h2><p class=\"facts\">Each reducer's first run: under the policy its \
         documentation promises (<i>claims</i>), else under <code>turns</code>. A level is \
         <b>pass</b>, <b>fails</b> (on clauses that are no defect: a policy the reducer does \
         not claim, a level below that failed, a difference the kit reads apart), lists its \
         <b>defects</b> in red (protocol and safety clauses that fail on a valid input, each \
         with the library's line that does it), or, in grey, the clauses of the claimed policy \
         it <b>does not implement</b> (no defect: spec §9.3). Click a clause for its cause and \
         its minimal counterexample.</p>\n\
         <table class=\"grid\"><tr><th>reducer</th><th>library</th><th>format</th><th>run</th>",
    );
    for l in LEVELS {
        let _ = write!(body, "<th>{l}</th>");
    }
    body.push_str("</tr>\n");
    let mut defect_sections = String::new();
    let mut policy_sections = String::new();
    for a in adapters {
        grid_row(a, &mut body, &mut defect_sections, &mut policy_sections);
    }
    body.push_str("</table>\n<h2>Defects</h2>\n");
    if defect_sections.is_empty() {
        body.push_str("<p class=\"facts\">None.</p>\n");
    }
    body.push_str(&defect_sections);
    if !policy_sections.is_empty() {
        body.push_str(
            "<h2>Does not implement the claimed policy</h2>\n<p class=\"facts\">Failures on valid \
             input of the policy level and of <code>matches-reference</code> under the policy the \
             library claims: what it keeps differs from what that policy keeps. No defect \
             (spec §9.3).</p>\n",
        );
        body.push_str(&policy_sections);
    }
    body.push_str("</main>");
    page("Compatibility matrix: real chat-history reducers", &body)
}

/// `adapter`'s row of the grid, and the sections of its findings: defects
/// in `defects`, the claimed policy's clauses it fails in `policy`.
fn grid_row(a: &Value, grid: &mut String, defects: &mut String, policy: &mut String) {
    let name = s(a, "name");
    let _ = write!(
        grid,
        "<tr id=\"{}\"><td><b>{}</b></td><td>{} {}</td><td>{}</td>",
        anchor(name, ""),
        esc(name),
        esc(s(a, "library")),
        esc(a
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or(s(a, "pinned"))),
        esc(s(a, "format"))
    );
    let Some(run) = arr(a, "runs").first() else {
        let why = a
            .get("why")
            .and_then(Value::as_str)
            .unwrap_or("not run (not installed)");
        let _ = writeln!(
            grid,
            "<td></td><td colspan=\"4\" class=\"nj\">{}</td></tr>",
            esc(why)
        );
        return;
    };
    let claims = s(a, "claims");
    let _ = write!(
        grid,
        "<td>{}{}</td>",
        esc(s(run, "policy")),
        if run.get("claimed").and_then(Value::as_bool) == Some(true) {
            " (claimed)".to_string()
        } else {
            format!(" (claims {})", esc(claims))
        }
    );
    let found = findings(a, run);
    let links = |kind: Kind, level: &str| -> Vec<String> {
        found
            .iter()
            .filter(|f| f.kind == kind && f.level == level)
            .map(|f| {
                format!(
                    "<a href=\"#{}\">{} ({})</a>",
                    anchor(name, f.clause),
                    esc(f.clause),
                    f.cases
                )
            })
            .collect()
    };
    for level in LEVELS {
        let (bad, unmet) = (links(Kind::Defect, level), links(Kind::Policy, level));
        let passed = run
            .get("levels")
            .and_then(|l| l.get(level))
            .and_then(Value::as_bool);
        if !bad.is_empty() {
            let _ = write!(grid, "<td class=\"c x\">{}</td>", bad.join("<br>"));
        } else if !unmet.is_empty() {
            let _ = write!(
                grid,
                "<td class=\"c pl\">does not implement:<br>{}</td>",
                unmet.join("<br>")
            );
        } else {
            let (class, text) = match passed {
                Some(true) => ("p", "pass"),
                Some(false) => ("nj", "fails"),
                None => ("nj", "—"),
            };
            let _ = write!(grid, "<td class=\"c {class}\">{text}</td>");
        }
    }
    grid.push_str("</tr>\n");
    let format: Format = s(a, "format").parse().unwrap_or(Format::Canonical);
    let run_policy = match s(run, "policy") {
        "suffix" => Policy::Suffix,
        "repair" => Policy::Repair,
        _ => Policy::Turns,
    };
    for f in &found {
        let out = match f.kind {
            Kind::Defect => &mut *defects,
            Kind::Policy => &mut *policy,
        };
        finding_section(a, run, f, format, run_policy, out);
    }
}

/// The section of one finding: its cause, source and known upstream
/// reports, and the clause's counterexample drawn (the first on a valid
/// input).
fn finding_section(
    a: &Value,
    run: &Value,
    d: &Found,
    format: Format,
    policy: Policy,
    out: &mut String,
) {
    let name = s(a, "name");
    let (badge, what) = match d.kind {
        Kind::Defect => ("fail", "defect"),
        Kind::Policy => ("info", "does not implement the claimed policy"),
    };
    let _ = write!(
        out,
        "<section class=\"cx\" id=\"{}\"><h3>{} <code>{}</code> <span class=\"lv {badge}\">{} · {what}</span></h3>\
         <p class=\"sub\">{} {} · format {} · policy {} · {} failing cases on a valid input</p>\
         <p class=\"finding\"><b>cause:</b> {}</p><p class=\"src\"><b>source:</b> <code>{}</code></p>",
        anchor(name, d.clause),
        esc(name),
        esc(d.clause),
        esc(d.level),
        esc(s(a, "library")),
        esc(a
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or(s(a, "pinned"))),
        format,
        policy,
        d.cases,
        esc(s(d.finding, "cause")),
        esc(s(d.finding, "source"))
    );
    if d.kind == Kind::Defect {
        out.push_str(&upstream(d.finding));
    }
    let cx = arr(run, "counterexamples").iter().find(|c| {
        s(c, "clause") == d.clause && c.get("validInput").and_then(Value::as_bool) != Some(false)
    });
    match cx.map(|c| (c, Saved::counterexample(format, policy, c))) {
        Some((c, Ok(saved))) => {
            let drawing = saved.draw();
            if let Some(f) = &saved.failure {
                let _ = write!(
                    out,
                    "<p class=\"def\"><b>clause:</b> {}</p><p class=\"failure\"><b>failure:</b> {}</p>",
                    esc(&f.definition),
                    esc(&f.detail)
                );
            }
            out.push_str(&conversation(&drawing));
            let file = s(c, "file");
            if !file.is_empty() {
                let _ = write!(
                    out,
                    "<p class=\"src\">case file: <a href=\"../../{f}\"><code>{f}</code></a> \
                     (<code>reducer-kit show {f}</code>)</p>",
                    f = esc(file)
                );
            }
        }
        Some((_, Err(e))) => {
            let _ = write!(
                out,
                "<p class=\"facts\">counterexample unreadable: {}</p>",
                esc(&e)
            );
        }
        None => out.push_str("<p class=\"facts\">no counterexample saved for this clause</p>"),
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn matrix() -> Value {
        json!({
            "kit": "reducer-kit 0.1.0", "spec": 2,
            "settings": {"cases": 500, "seed": 1},
            "adapters": [{
                "name": "lib-window", "library": "lib", "version": "1.0", "format": "canonical",
                "claims": "suffix",
                "findings": [
                    {"clause": "no-orphan-result", "cause": "cuts <anywhere>", "source": "lib/w.py:7 (lib 1.0)",
                     "upstream": [{"url": "https://github.com/o/lib/issues/12", "state": "open", "fixedIn": null,
                                   "note": "the same orphan"}]},
                    {"clause": "matches-reference", "cause": "keeps N items", "source": "lib/w.py:9 (lib 1.0)"}
                ],
                "runs": [{
                    "policy": "suffix", "claimed": true,
                    "levels": {"protocol": true, "safety": false, "policy": false, "exact": false},
                    "clauses": {"no-orphan-result": {"level": "safety"}, "matches-reference": {"level": "exact"}},
                    "defects": {"no-orphan-result": ["gen/1/3", "gen/1/9"], "matches-reference": ["gen/1/4"]},
                    "counterexamples": [{
                        "clause": "no-orphan-result", "maxMessages": 1, "validInput": true,
                        "detail": "output message 0: result \"c1\" has no call earlier in the output",
                        "input": [
                            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "c1", "name": "f"}]},
                            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": "r"}]}
                        ],
                        "expected": {"messages": []},
                        "actual": {"messages": [{"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": "r"}]}]},
                        "file": "corpus/compat/lib-window/suffix-0.json"
                    }]
                }]
            }, {"name": "absent", "library": "x", "pinned": "2", "format": "openai", "runs": [], "why": "install failed"},
            {
                "name": "lib-other", "library": "lib", "version": "1.0", "format": "openai", "claims": "suffix",
                "findings": [{"clause": "contiguous-suffix", "cause": "starts at a tool note", "source": "lib/o.py:3 (lib 1.0)"}],
                "runs": [{
                    "policy": "suffix", "claimed": true,
                    "levels": {"protocol": true, "safety": true, "policy": false, "exact": false},
                    "clauses": {"contiguous-suffix": {"level": "policy"}},
                    "defects": {"contiguous-suffix": ["gen/1/5"]},
                    "counterexamples": []
                }]
            }]
        })
    }

    #[test]
    fn a_defect_cell_links_to_its_cause_and_drawn_counterexample() {
        let page = render(&matrix());
        assert!(page.contains("<td class=\"c x\"><a href=\"#lib-window--no-orphan-result\">no-orphan-result (2)</a></td>"), "{page}");
        assert!(page.contains("<td class=\"c p\">pass</td>"));
        assert!(page.contains("<td class=\"c nj\">fails</td>"));
        assert!(page.contains("<section class=\"cx\" id=\"lib-window--no-orphan-result\">"));
        assert!(page.contains("<b>cause:</b> cuts &lt;anywhere&gt;"));
        assert!(page.contains("<code>lib/w.py:7 (lib 1.0)</code>"));
        assert!(page.contains("orphan: no call earlier in the answer"));
        assert!(page.contains("<a href=\"../../corpus/compat/lib-window/suffix-0.json\">"));
        assert!(page.contains("<td colspan=\"4\" class=\"nj\">install failed</td>"));
        assert!(!page.contains("<script"));
        assert!(page.contains(
            "<b>known upstream:</b> <a href=\"https://github.com/o/lib/issues/12\">o/lib#12</a> (open): the same orphan"
        ));
    }

    #[test]
    fn a_policy_the_reducer_does_not_implement_is_no_defect() {
        let page = render(&matrix());
        // the headline counts defects only: lib-other fails its claimed
        // policy's clauses but has no defect
        assert!(
            page.contains("<b>1 of 2 reducers</b> and <b>0 of 0 sanitizers</b> have defects"),
            "{page}"
        );
        // grey cells, never a defect's red
        assert!(page.contains(
            "<td class=\"c pl\">does not implement:<br><a href=\"#lib-other--contiguous-suffix\">contiguous-suffix (1)</a></td>"
        ));
        assert!(page.contains(
            "<td class=\"c pl\">does not implement:<br><a href=\"#lib-window--matches-reference\">matches-reference (1)</a></td>"
        ));
        assert!(!page.contains("<td class=\"c x\"><a href=\"#lib-other"));
        let (defects, policy) = page
            .split_once("<h2>Does not implement the claimed policy</h2>")
            .expect("a section for the claimed policy's clauses");
        assert!(defects.contains("id=\"lib-window--no-orphan-result\""));
        assert!(!defects.contains("id=\"lib-other--contiguous-suffix\""));
        assert!(policy.contains(
            "<span class=\"lv info\">policy · does not implement the claimed policy</span>"
        ));
        assert!(policy.contains("id=\"lib-window--matches-reference\""));
    }
}
