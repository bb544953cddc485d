#!/usr/bin/env node
// reducer-kit compat adapter: Vercel AI SDK `pruneMessages` (package `ai`).
//
// pruneMessages({ messages, toolCalls: "before-last-N-messages",
// emptyMessages: "remove" }), as the SDK's docs show it in a route handler:
// it removes tool calls, tool results (and approval parts) from every
// message before the last N, and drops messages left empty. It has no
// message budget: N is the nearest knob it has, so the output is not
// bounded by N (text messages older than the last N all stay) and `budget`
// failures say exactly that.
//
// Wire format: canonical (ModelMessage is close to it: a role and a list of
// parts, `tool-call` parts in assistant messages, `tool-result` parts, one
// or several, in tool messages).
//
// A message pruneMessages changed comes back as a new object whose parts
// are the very part objects it was given; it is written as the original
// message with only the items behind the parts that came back, so the kit
// judges what was taken out (taking out calls is a fabrication, taking out
// results is allowed).

import { serve, load, withItems } from "./wire.mjs";

function toModel(m, partOf) {
  const d = m.data;
  const items = Array.isArray(d.contents) ? d.contents : [];
  const part = (item, p) => { partOf.set(p, item); return p; };
  const text = items.filter((i) => i?.$type === "text").map((i) => i.text ?? "").join("\n");
  switch (m.role) {
    case "system":
      return { role: "system", content: text };
    case "assistant":
      return {
        role: "assistant",
        content: items.flatMap((i, k) => {
          if (i?.$type === "text") return [part(k, { type: "text", text: i.text ?? "" })];
          if (i?.$type === "functionCall") {
            return [part(k, { type: "tool-call", toolCallId: i.callId, toolName: i.name ?? "tool", input: i.arguments ?? {} })];
          }
          return []; // approvals and opaque items have no counterpart here
        }),
      };
    case "tool":
      return {
        role: "tool",
        content: items.flatMap((i, k) => i?.$type === "functionResult"
          ? [part(k, {
              type: "tool-result", toolCallId: i.callId, toolName: "tool",
              output: typeof i.result === "string" ? { type: "text", value: i.result } : { type: "json", value: i.result ?? null },
            })]
          : []),
      };
    default: // user, and any other role
      return {
        role: "user",
        content: items.flatMap((i, k) => (i?.$type === "text" ? [part(k, { type: "text", text: i.text ?? "" })] : [])),
      };
  }
}

async function reduce(request) {
  const ai = await load("ai");
  const byObject = new Map(); // ModelMessage -> wire Message
  const partOf = new Map(); // part -> index of its item in the wire message
  const model = request.messages.map((m) => {
    const x = toModel(m, partOf);
    byObject.set(x, m);
    return x;
  });
  const N = request.budget;
  const pruned = ai.pruneMessages({ messages: model, toolCalls: `before-last-${N}-messages`, emptyMessages: "remove" });
  // the original message behind a changed copy: the first of its parts that we made
  const ownerOf = (msg) => {
    if (!Array.isArray(msg.content)) return undefined;
    for (const [x, m] of byObject) {
      if (Array.isArray(x.content) && msg.content.some((p) => x.content.includes(p))) return m;
    }
    return undefined;
  };
  return pruned.map((msg) => {
    const m = byObject.get(msg);
    if (m) return m;
    const owner = ownerOf(msg);
    if (!owner) throw new Error("pruneMessages returned a message it was not given");
    const keep = new Set(msg.content.map((p) => partOf.get(p)));
    // items the adapter did not hand to the library (opaque ones) stay
    owner.data.contents.forEach((item, k) => {
      if (!["text", "functionCall", "functionResult"].includes(item?.$type)) keep.add(k);
    });
    return withItems(owner, "contents", keep);
  });
}

serve({ format: "canonical", pkg: "ai", reduce });
