#!/usr/bin/env python3
"""langchain-core 1.8.3, trim_messages: the system message is lost.

The configuration LangChain's docs recommend for a chat history
(langchain_core/messages/utils.py, the docstring of trim_messages,
lines 1166-1181 and its first example): strategy="last",
start_on="human", include_system=True, with end_on=("human", "tool") as the
docs' example shows, and token_counter=len, the docs' way to count
messages. include_system=True is documented to keep the SystemMessage at
index 0 (utils.py:1237).

Input: the kit's minimal counterexample (corpus/compat/
langchain-trim-last-human-system-end/, clause system-pinned): the history
holds the system message alone, and a budget of one message, which it
fits.

Exits 0 when the output has lost the SystemMessage (the clause
system-pinned fails), 1 when it kept it.
"""

from langchain_core.messages import SystemMessage, trim_messages

history = [SystemMessage(content="")]
out = trim_messages(
    history,
    max_tokens=1,
    token_counter=len,
    strategy="last",
    start_on="human",
    end_on=("human", "tool"),
    include_system=True,
)
print("input: ", history)
print("output:", out)
lost = not any(isinstance(m, SystemMessage) for m in out)
print("the SystemMessage is %s" % ("lost" if lost else "kept"))
raise SystemExit(0 if lost else 1)
