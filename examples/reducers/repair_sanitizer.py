#!/usr/bin/env python3
"""Example sanitizer that implements policy `repair` (spec/spec.md section 17):
run before a model request, it removes the calls, results and approval items
that a crash, a timeout, an interrupted stream, a retry or an earlier trimmer
left broken, and nothing else. It takes no budget (the request's maxMessages
is read, as every reducer must, and ignored).

Two steps (spec/spec.md 17.2):

1. Broken wherever they are: a call outside an assistant message and a result
   outside a tool message go; then, pairing what is left by position (section
   2), every result and approval response that answers nothing goes.
2. Broken where they are: a call stays when its result is in the tool
   messages right after its message (its call group in the Responses format)
   and no call of that message kept before it has its id; its result stays
   with it. An approval request stays when its response comes before the
   next question (turn start) and no request kept before it with its id is
   still waiting; its response stays with it. Everything else
   of those four kinds goes. A tool message that held results and keeps
   only the user's text beside them counts as a user message there (it is
   one on the Anthropic, Bedrock and Gemini wire).

A message left with no item goes, and a reasoning item goes with the item it
is attached to (section 14.6). reducer-kit certifies it at every level:

    reducer-kit certify --policy repair --persistent -- python3 examples/reducers/repair_sanitizer.py --persistent

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only
(the protocol and the six formats are in reducer_protocol.py):

    python3 repair_sanitizer.py [--format canonical|openai|anthropic|responses|gemini|bedrock] [--persistent]
"""

from reducer_protocol import (CALL, REQUEST, RESPONSE, RESULT, attached_reasoning, main,
                              pinned_index)

PAIRING = (CALL, RESULT, REQUEST, RESPONSE)


def pair_alive(views, alive):
    """Positional pairing (spec/spec.md section 2) of the items in `alive`:
    {(message, item): (message, item)} both ways."""
    partner = {}
    open_calls = {}
    open_requests = {}
    for m, v in enumerate(views):
        for k, (kind, item_id, _) in enumerate(v.items):
            if (m, k) in alive and kind in (RESULT, RESPONSE):
                stack = (open_calls if kind == RESULT else open_requests).get(item_id)
                if stack:
                    p = stack.pop()
                    partner[(m, k)] = p
                    partner[p] = (m, k)
        for k, (kind, item_id, _) in enumerate(v.items):
            if (m, k) in alive and kind in (CALL, REQUEST):
                table = open_calls if kind == CALL else open_requests
                table.setdefault(item_id, []).append((m, k))
    return partner


def select(history, budget):
    views = history.views()
    n = len(views)
    pinned = pinned_index(v.role for v in views)
    # Step 1.
    alive = set()
    for m, v in enumerate(views):
        for k, (kind, _, _) in enumerate(v.items):
            if kind == CALL and v.role != "assistant":
                continue
            if kind == RESULT and v.role != "tool":
                continue
            alive.add((m, k))
    partner = pair_alive(views, alive)
    alive = {(m, k) for (m, k) in alive
             if views[m].items[k][0] not in (RESULT, RESPONSE) or (m, k) in partner}
    present = [not v.items or any((m, k) in alive for k in range(len(v.items)))
               for m, v in enumerate(views)]
    # Step 2: calls answered in the tool messages right after their unit.
    def later(i):
        return (j for j in range(i + 1, n) if present[j])

    def keep_calls(as_user):
        keep = {(m, k) for (m, k) in alive if views[m].items[k][0] not in PAIRING}
        m = 0
        while m < n:
            v = views[m]
            if not (present[m] and v.role == "assistant"
                    and any(kind == CALL and (m, k) in alive
                            for k, (kind, _, _) in enumerate(v.items))):
                m += 1
                continue
            unit = [m]
            if v.call_item:
                for j in later(m):
                    if not views[j].call_item:
                        break
                    unit.append(j)
            last = unit[-1]
            run = []
            for j in later(last):
                if views[j].role != "tool" or j in as_user:
                    break
                run.append(j)
            kept_ids = set()
            for u in unit:
                for k, (kind, item_id, _) in enumerate(views[u].items):
                    if kind != CALL or (u, k) not in alive or (u, k) not in partner:
                        continue
                    p = partner[(u, k)]
                    if p[0] in run and item_id not in kept_ids:
                        kept_ids.add(item_id)
                        keep.add((u, k))
                        keep.add(p)
            m = last + 1
        return keep

    # What is left of message j once calls and results are decided.
    def left(j, keep):
        return [kind for k, (kind, _, _) in enumerate(views[j].items)
                if (j, k) in alive and ((j, k) in keep or kind not in (CALL, RESULT))]

    # A tool message that held results and keeps only the user's text
    # beside them is a user message on the Anthropic, Bedrock and Gemini
    # wire: it ends an answer run and may be a turn start (spec/spec.md
    # 17.2, "Text left beside results"). Run the call step again while that
    # makes a new one.
    as_user = set()
    while True:
        keep = keep_calls(as_user)
        new = {j for j in range(n)
               if present[j] and j not in as_user and views[j].role == "tool"
               and any(kind == RESULT for kind, _, _ in views[j].items)
               and left(j, keep) and RESULT not in left(j, keep)}
        if not new:
            break
        as_user |= new

    # Approval requests answered before the next turn start (read on what
    # step 1 left, calls and results as the call step leaves them).
    def turn_start(j):
        if not present[j] or j == pinned:
            return False
        if j in as_user:
            return any(kind != RESPONSE for kind in left(j, keep))
        if views[j].role != "user":
            return False
        rest = [views[j].items[k][0] for k in range(len(views[j].items)) if (j, k) in alive]
        return not views[j].items or not rest or any(kind != RESPONSE for kind in rest)

    # And no request kept before it with its id still waiting at it (rule
    # unique-pending-request): per id, the message of the latest kept
    # request's response.
    answered_at = {}
    for (q, k) in sorted(alive):
        kind, item_id, _ = views[q].items[k]
        if kind != REQUEST or (q, k) not in partner:
            continue
        s, t = partner[(q, k)]
        if (not any(turn_start(j) for j in range(q + 1, s + 1))
                and answered_at.get(item_id, 0) <= q):
            keep.add((q, k))
            keep.add((s, t))
            answered_at[item_id] = s
    # The messages kept; attached reasoning goes with its item.
    kept = [not v.items or any((m, k) in keep for k in range(len(v.items)))
            for m, v in enumerate(views)]
    for m in range(n - 1, -1, -1):
        if kept[m] and attached_reasoning(views, m) and not kept[m + 1]:
            kept[m] = False
    out = []
    for m in range(n):
        if kept[m]:
            drop = [k for k in range(len(views[m].items)) if (m, k) not in keep]
            msg = history.without_items(m, drop)
            if msg is not None:
                out.append(msg)
    return out


if __name__ == "__main__":
    main(select)
