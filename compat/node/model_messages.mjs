// The kit's canonical wire messages as AI SDK model messages (ModelMessage,
// and the provider prompt LanguageModelV2Prompt, which has the same shape),
// shared by the adapters of libraries built on the AI SDK's message types
// (ai_prune_messages.mjs, mastra_processors.mjs).
//
//   toModelMessages(request) -> { model, backToWire }
//
// `model` holds one message per request message: a system message with its
// text, a user message of text parts, an assistant message of text and
// `tool-call` parts, a tool message of `tool-result` parts (each named after
// the call it answers, "tool" when no earlier call has its id). Approvals
// and opaque items have no counterpart and are left out of the parts.
//
// `backToWire(msg)` maps a message the library returned back to the wire:
// one of `model` is its request message (written as its exact text); a new
// message whose parts include parts of one of `model` (a copy with some
// parts taken out) is that request message with only the items behind its
// kept parts, and every item the adapter did not hand over, each as its
// exact text (withItems), so the kit judges what was taken out; a copy that
// also holds a part the library made is written from its parts (fromModel),
// for the kit to judge as a message the library made. Anything else throws:
// the library returned a message it was not given.

import { withItems } from "./wire.mjs";

const HANDED = new Set(["text", "functionCall", "functionResult"]);

function toModel(m, partOf, callNames) {
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
            const toolName = i.name ?? "tool";
            callNames.set(i.callId, toolName);
            return [part(k, { type: "tool-call", toolCallId: i.callId, toolName, input: i.arguments ?? {} })];
          }
          return [];
        }),
      };
    case "tool":
      return {
        role: "tool",
        content: items.flatMap((i, k) => i?.$type === "functionResult"
          ? [part(k, {
              type: "tool-result", toolCallId: i.callId, toolName: callNames.get(i.callId) ?? "tool",
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

// A model message written in the canonical wire format.
function fromModel(msg) {
  const contents = (Array.isArray(msg.content) ? msg.content : [{ type: "text", text: String(msg.content ?? "") }]).map((p) => {
    if (p.type === "tool-call") return { $type: "functionCall", callId: p.toolCallId, name: p.toolName, arguments: p.input };
    if (p.type === "tool-result") return { $type: "functionResult", callId: p.toolCallId, result: p.output?.value ?? null };
    if (p.type === "text") return { $type: "text", text: p.text };
    return { $type: p.type };
  });
  return { role: msg.role, contents };
}

export function toModelMessages(request) {
  const byObject = new Map(); // model message -> wire Message
  const partOf = new Map(); // part -> index of its item in the wire message
  const callNames = new Map(); // call id -> the name of its latest call
  const model = request.messages.map((m) => {
    const x = toModel(m, partOf, callNames);
    byObject.set(x, m);
    return x;
  });
  const ownerOf = (msg) => {
    if (!Array.isArray(msg.content)) return undefined;
    for (const [x, m] of byObject) {
      if (Array.isArray(x.content) && msg.content.some((p) => x.content.includes(p))) return m;
    }
    return undefined;
  };
  const backToWire = (msg) => {
    const m = byObject.get(msg);
    if (m) return m;
    const owner = ownerOf(msg);
    if (!owner) throw new Error("the library returned a message it was not given");
    if (!msg.content.every((p) => partOf.has(p))) return fromModel(msg);
    const keep = new Set(msg.content.map((p) => partOf.get(p)));
    owner.data.contents.forEach((item, k) => { if (!HANDED.has(item?.$type)) keep.add(k); });
    return withItems(owner, "contents", keep);
  };
  return { model, backToWire };
}
