#!/usr/bin/env python3
"""Example external summarizing reducer (spec/spec.md, section 12), policy
`turns` (default) or `suffix` (--policy), message or token budgets.

When the request allows a summary ("summary": true) and the history does not
fit, it puts one summary message (an assistant text) in place of what it
drops, right after the pinned system message, and keeps what token_reducer.py
keeps for the budget less the summary's cost S ("summaryTokens"; 1 under
maxMessages). A summary must stand for a prefix of the history
(summary-replaces-prefix), so it never summarizes in the overflow case of
`turns`, where the question stays and the middle of the turn goes.

  suffix  summarizes whenever something is dropped and S fits: the kept run
          is the newest run that fits beside the summary.
  turns   summarizes only in the room the whole turns leave: when the turns
          kept for B - S are those kept for B. Trading a whole turn for a
          summary would not be monotone (budget-monotone): at a budget just
          below, the summary no longer leaves room for the newest turn, the
          overflow case allows no summary, and the answer without one would
          keep more turns than the answer with one.

It answers without a summary when the history fits, when S alone is over
the budget, or when summaries are not allowed. The summary's text is a fixed
sentence naming how many messages it replaces (a real summarizer calls a
model here). It conforms, so reducer-kit should certify it up to the exact
level under `certify --protocol 2 --summaries`:

    python3 summarizing_reducer.py [--policy turns|suffix] [--format canonical|openai|anthropic] [--persistent]
"""

from reducer_protocol import main
from token_reducer import suffix_selection, turns_selection, with_pinned


def summarizing(selection, only_in_slack):
    def select(history, budget):
        room = history.available()
        pinned = history.pinned()
        rest = [i for i in range(len(history.messages)) if i != pinned]
        plain = selection(history, room)
        s = history.summary_tokens
        if history.summary and len(plain) < len(rest) and s <= room:
            kept = selection(history, room - s)
            kept_set = set(kept)
            dropped = [i for i in rest if i not in kept_set]
            prefix = not kept or max(dropped) < min(kept)
            if prefix and (not only_in_slack or kept == plain):
                out = history.remove_orphans(with_pinned(history, kept))
                summary = history.summary_message(
                    "Summary of the %d earlier messages of this conversation." % len(dropped))
                first_kept = min(kept) if kept else len(history.messages)
                at = 1 if pinned is not None and pinned < first_kept else 0
                return out[:at] + [summary] + out[at:]
        return history.remove_orphans(with_pinned(history, plain))
    return select


POLICIES = {"turns": summarizing(turns_selection, only_in_slack=True),
            "suffix": summarizing(suffix_selection, only_in_slack=False)}

if __name__ == "__main__":
    main(POLICIES, protocol=2)
