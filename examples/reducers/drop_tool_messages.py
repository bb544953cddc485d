#!/usr/bin/env python3
"""Example external reducer that is safe but loses context, after the manner
of Microsoft.Extensions.AI's MessageCountingChatReducer.

Drops every message that carries a tool call or a tool result, and (to stay
safe) every message that carries an approval request or an approval
response; then keeps the pinned system message (the first `system` or
`developer` message) plus the last maxMessages remaining messages. Its output
never holds a tool exchange, so it passes every safety clause of reducer-kit,
but it fails the policy level (`identity-when-fits`, `whole-turns`, ...) on
any history with tool use: the model no longer sees what its tools returned.

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only
(the protocol and the formats are in reducer_protocol.py):

    python3 drop_tool_messages.py [--format canonical|openai|anthropic] [--persistent]
"""

from reducer_protocol import main, pinned_index


def select(history, budget):
    roles = history.roles()
    pinned = pinned_index(roles)
    rest = [i for i in range(len(roles))
            if i != pinned and not history.carries_tool_traffic(i)]
    kept = rest[max(0, len(rest) - budget):]
    if pinned is not None:
        kept.append(pinned)
    return history.take(sorted(kept))


if __name__ == "__main__":
    main(select)
