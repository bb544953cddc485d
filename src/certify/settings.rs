//! How the reducer under test is run and judged ([`Settings`]): its
//! command, wire format, policy, provider profile, declarations, limits,
//! mode, workers and runner protocol. Plain data the run reads: the
//! sessions are made from it above, in [`super::session`]
//! ([`Settings::session`]).

use super::exchange::Session;
use super::process::{Limits, Reducer};
use super::result::RunCase;
use crate::formats::Format;
use crate::generate::knob::{self, Knob};
use crate::protocol::Protocol;
use crate::terms::{Clause, Declared, Policy, Provider};

/// How to run the reducer under test.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The command (run directly, never through a shell) and the run's id.
    pub reducer: Reducer,
    /// The wire format the reducer speaks.
    pub format: Format,
    /// The policy it claims to implement.
    pub policy: Policy,
    /// The provider profile it claims to honour (spec §15): the
    /// reference honours it and `provider-accepts` is judged.
    pub provider: Option<Provider>,
    /// Time and size limits per request.
    pub limits: Limits,
    /// JSON Lines to one long-lived process per worker instead of one
    /// process per request.
    pub persistent: bool,
    /// Parallel workers (each with its own process in persistent mode); ≥ 1.
    pub jobs: usize,
    /// Whether to send the extra requests (repeat, output again, smaller
    /// budget) that `deterministic`, `idempotent` and `budget-monotone`
    /// need; without them those clauses are not judged.
    pub extra_requests: bool,
    /// The runner protocol the reducer speaks (`--protocol`): protocol 1
    /// requests are those of version 1, byte for byte, and cases that need
    /// protocol 2 are skipped.
    pub protocol: Protocol,
    /// Whether summaries are allowed (`--summaries`, protocol 2 only):
    /// every request carries `"summary": true` and the summary clauses are
    /// judged (spec §12).
    pub summaries: bool,
    /// What the reducer declares of its contract (`--declare`, spec §16).
    pub declared: Declared,
    /// The knobs of `--without`, as given (spec §9.5): with the shapes a
    /// declaration leaves out ([`Settings::excluded_knobs`]) they bound
    /// the cases of the run, shrunk ones too ([`Settings::case_skipped`]).
    pub without: Vec<Knob>,
    /// The shapes outside the run (spec §9.5, [`knob::outside`] less
    /// `--with`): a case that shows one is skipped, with the reason
    /// ([`Settings::outside_shown`]).
    pub outside: Vec<Knob>,
    /// The sessions of an in-process reducer, made in place of reducer
    /// processes ([`Settings::session`]); `None`: the reducer is
    /// [`Settings::reducer`]'s command.
    pub sessions: Option<Sessions>,
}

/// What makes the sessions of a run whose reducer is not a process (a
/// binding's function, a test's fake): called by [`Settings::session`]
/// with the run's settings, once per worker and per shrinking worker,
/// possibly on another thread (the runner's workers, the shrinkers). The
/// session it gives is usually an
/// [`InProcessSession`](super::session::InProcessSession). Given to a
/// run with [`super::job::Job::with_sessions`].
#[derive(Clone)]
pub struct Sessions(pub std::sync::Arc<SessionFactory>);

/// The function behind [`Sessions`].
pub type SessionFactory = dyn Fn(&Settings) -> Box<dyn Session> + Send + Sync;

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sessions(in process)")
    }
}

impl Settings {
    /// The settings of a run of `reducer` in `format` under `policy` with
    /// every other setting at its default, the one place they are written:
    /// no provider profile, the default [`Limits`], one process per
    /// request, one worker, the extra requests sent, protocol 1, no
    /// summaries, no declaration, no knob turned off or outside the run,
    /// the reducer run as a process. A run made in code sets what it needs
    /// on this (`Settings { persistent: true, ..Settings::new(..) }`).
    pub fn new(reducer: Reducer, format: Format, policy: Policy) -> Settings {
        Settings {
            reducer,
            format,
            policy,
            provider: None,
            limits: Limits::default(),
            persistent: false,
            jobs: 1,
            extra_requests: true,
            protocol: Protocol::V1,
            summaries: false,
            declared: Declared::default(),
            without: Vec::new(),
            outside: Vec::new(),
            sessions: None,
        }
    }

    /// The definition of `clause` as this run's spec version reads it
    /// (spec v2's under protocol 2).
    pub fn definition(&self, clause: Clause) -> &'static str {
        match self.protocol {
            Protocol::V1 => clause.definition(),
            Protocol::V2 => clause.definition_v2(),
        }
    }

    /// The flags that make a `reducer-kit certify` command run the same
    /// contract as this run, as arguments: `--policy P --format F`, then
    /// `--protocol 2` (and `--summaries`), `--provider P`, `--declare
    /// D,...` (spec §16), `--persistent` (for a process reducer), the
    /// limits that are not the defaults (`--timeout MS`,
    /// `--startup-timeout MS`, `--max-output BYTES`), `--with K,...` and
    /// `--without K,...`. Every reproduce and replay line is made of them
    /// ([`Settings::flag_line`]).
    pub fn flags(&self) -> Vec<String> {
        let mut out: Vec<String> = vec![
            "--policy".into(),
            self.policy.to_string(),
            "--format".into(),
            self.format.to_string(),
        ];
        if self.protocol == Protocol::V2 {
            out.extend(["--protocol".into(), "2".into()]);
            if self.summaries {
                out.push("--summaries".into());
            }
        }
        if let Some(p) = self.provider {
            out.extend(["--provider".into(), p.to_string()]);
        }
        if !self.declared.is_empty() {
            out.extend(["--declare".into(), self.declared.to_string()]);
        }
        if self.persistent && self.sessions.is_none() {
            out.push("--persistent".into());
        }
        let defaults = Limits::default();
        let limits = [
            (
                "--timeout",
                self.limits.timeout.as_millis(),
                defaults.timeout.as_millis(),
            ),
            (
                "--startup-timeout",
                self.limits.startup_timeout.as_millis(),
                defaults.startup_timeout.as_millis(),
            ),
            (
                "--max-output",
                self.limits.max_output as u128,
                defaults.max_output as u128,
            ),
        ];
        for (flag, value, default) in limits {
            if value != default {
                out.extend([flag.to_string(), value.to_string()]);
            }
        }
        let with: Vec<&str> = knob::outside(self.format, self.provider)
            .into_iter()
            .filter(|k| !self.outside.contains(k))
            .map(|k| k.name())
            .collect();
        for (flag, names) in [
            ("--with", with),
            ("--without", self.without.iter().map(|k| k.name()).collect()),
        ] {
            if !names.is_empty() {
                out.extend([flag.to_string(), names.join(",")]);
            }
        }
        out
    }

    /// [`Settings::flags`] as one shell-quoted line:
    /// `--policy suffix --format openai --declare system-first-only`.
    pub fn flag_line(&self) -> String {
        let quoted: Vec<String> = self
            .flags()
            .iter()
            .map(|f| crate::terminal::shell_quote(f).into_owned())
            .collect();
        quoted.join(" ")
    }

    /// The knobs whose cases lie outside the run's contract, in
    /// [`Knob::ALL`] order: those of `--without`, `pinned-not-first` under
    /// `system-first-only` (spec §16.6), the breaks outside a declared
    /// scope of repairs (`repairs=`, spec §17.8). Generated cases are made
    /// without them.
    pub fn excluded_knobs(&self) -> Vec<Knob> {
        let mut out = self.without.clone();
        if self.declared.system_first_only && !out.contains(&Knob::PinnedNotFirst) {
            out.push(Knob::PinnedNotFirst);
        }
        let scope = super::repair_scope(&self.declared);
        if !scope.is_empty() {
            for &k in Knob::ALL {
                if k.as_break().is_some() && !scope.contains(&k) && !out.contains(&k) {
                    out.push(k);
                }
            }
        }
        out.sort_by_key(|k| Knob::ALL.iter().position(|x| x == k));
        out
    }

    /// Why the canonical history `messages` (its budget read as `budget`
    /// messages) lies outside the run's contract, or `None`
    /// ([`super::case_skipped`] with [`Settings::excluded_knobs`]): the
    /// cases the plan leaves out, and the candidates the shrinker never
    /// hands back.
    pub fn case_skipped(&self, messages: &[serde_json::Value], budget: usize) -> Option<String> {
        super::case_skipped(
            messages,
            budget,
            &self.excluded_knobs(),
            &super::repair_scope(&self.declared),
            &self.declared,
        )
    }

    /// How the reducer runs, as the reports name it: `in-process` (with
    /// [`Settings::sessions`]), `persistent` or `per-case`.
    pub fn mode(&self) -> &'static str {
        match (&self.sessions, self.persistent) {
            (Some(_), _) => "in-process",
            (None, true) => "persistent",
            (None, false) => "per-case",
        }
    }

    /// Why `case` is skipped as outside the run (spec §9.5), when it
    /// shows a knob of [`Settings::outside`]: `approval items (approvals):
    /// outside a default openai run; --with approvals runs it`.
    pub fn outside_shown(&self, case: &RunCase) -> Option<String> {
        if self.outside.is_empty() {
            return None;
        }
        let mut shown: Vec<Knob> = Vec::new();
        if self.outside.contains(&Knob::BudgetSpellings) {
            let b = &case.budget;
            if [&b.max_messages, &b.max_tokens]
                .into_iter()
                .flatten()
                .any(knob::budget_spelled)
            {
                shown.push(Knob::BudgetSpellings);
            }
        }
        let budget = crate::terms::Budget::parse(case.budget.max_messages_or_null())
            .map_or(1, |b| b.max_messages());
        shown.extend(knob::shown(&case.messages, budget, &self.outside));
        if shown.is_empty() {
            return None;
        }
        shown.sort_by_key(|k| Knob::ALL.iter().position(|x| x == k));
        let what: Vec<String> = shown
            .iter()
            .map(|k| format!("{} ({k})", k.shape_text()))
            .collect();
        let names: Vec<&str> = shown.iter().map(|k| k.name()).collect();
        Some(format!(
            "{}: outside a default {} run; --with {} runs it",
            what.join(", "),
            self.run_kind(),
            names.join(",")
        ))
    }

    /// `openai`, `openai --provider anthropic`, `in-process canonical`:
    /// the run a skip reason names.
    fn run_kind(&self) -> String {
        let mut s = String::new();
        if self.sessions.is_some() {
            s.push_str("in-process ");
        }
        s.push_str(self.format.name());
        if let Some(p) = self.provider {
            s.push_str(" --provider ");
            s.push_str(p.name());
        }
        s
    }

    /// The clauses the run judges ([`Clause::for_run`]), protocol clauses
    /// included: `reasoning-attached` in a format with reasoning items,
    /// `provider-accepts` with a provider profile.
    pub fn clauses(&self) -> Vec<Clause> {
        Clause::judged_in(
            self.policy,
            self.summaries,
            self.format.has_reasoning(),
            self.provider.is_some(),
            &self.declared,
        )
    }
}
