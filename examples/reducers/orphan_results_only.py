#!/usr/bin/env python3
"""Example sanitizer with a bug of the field: it removes orphan results and
approval responses (paired by position, spec/spec.md section 2, as a correct
sanitizer does) but keeps the calls that were never answered: a run
interrupted after its calls leaves them in, and the next model request is
rejected ("tool_use ids were found without tool_result blocks").
reducer-kit convicts it of `no-unanswered-call` (spec/spec.md 17.3) and
shrinks the failure to one message, an assistant message with a call:

    reducer-kit certify --policy repair --persistent -- python3 examples/reducers/orphan_results_only.py --persistent

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only:

    python3 orphan_results_only.py [--format canonical|openai|anthropic] [--persistent]
"""

from reducer_protocol import main


def select(history, budget):
    return history.remove_orphans(range(len(history.messages)))


if __name__ == "__main__":
    main(select)
