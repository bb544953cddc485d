#!/usr/bin/env node
// reducer-kit compat adapter: @openai/agents sessions (JS), with a history
// limit (a reducer) or without one (the runner's sanitizer).
//
// The Agents SDK for JavaScript keeps a conversation in a Session. Its runner
// has no history limit of its own: before each turn it prepares the model
// input with `prepareInputItemsWithSession` (dist/run.mjs:305), which reads
// the whole session (dist/runner/sessionPersistence.mjs:1166), hands history
// and new input to the run's `sessionInputCallback` when there is one
// (sessionPersistence.mjs:1186), and then drops the call items of the
// history whose result is not there (`dropOrphanToolCalls`,
// sessionPersistence.mjs:1251, dist/runner/items.mjs:346). An application
// that replays the newest N items passes the callback
// `(history, newItems) => [...history.slice(-N), ...newItems]`
// (SessionInputCallback, dist/memory/session.d.ts:7). That runner path, on the
// SDK's MemorySession, is the reducer certified here, called as the runner
// calls it for a turn with no new input items.
//
// Wire format: responses. The kit's `responses` items are what a session
// stores, one item one message of the kit's list. Each is turned into the
// SDK's AgentInputItem (`function_call` with callId, `function_call_result`
// with callId and a text output, a `reasoning` item with the summary as
// content, a `message` item), tagged with its index; MemorySession hands
// back clones (structuredClone), matched to the stored items in order and
// checked equal, so a kept item is written back as the exact text it came as
// and an item the SDK changed is written as the SDK gave it, for the kit to
// judge.
//
// System prompt: out of band (`new Agent({ instructions })`); later system
// messages are session items with role system.
//
// Configurations (--config):
//   limit     (default) the callback above keeps the newest N items: the
//             reducer. Budget: N items, which under this format is N
//             messages, the kit's own unit; a token budget is answered
//             `unsupported`.
//   sanitize  no `sessionInputCallback` (the default): nothing is cut first,
//             so `dropOrphanToolCalls` (sessionPersistence.mjs:1174) over the
//             whole stored history, with the reasoning items right before a
//             dropped call (items.mjs:418-450), is a sanitizer: the repair
//             certified under `--policy repair`. Budget: none (spec §17.1).
import { serve, load, withPinned, Unsupported } from "./wire.mjs";
import { isDeepStrictEqual } from "node:util";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.filter((p) => typeof p?.text === "string").map((p) => p.text).join("\n");
  }
  return "";
}

// The SDK's AgentInputItem for one wire item. Each carries the wire item it
// came from in `providerData.compatWire` (providerData is the SDK's
// pass-through member, read by none of the session or pruning code), so that
// an item the SDK hands back unchanged is matched to exactly its wire item:
// the conversion drops members the SDK has no field for (a user message's
// authorName, ...) and two wire items could otherwise convert to the same
// SDK item.
function toItem(m, k) {
  const d = m.data;
  const tag = { compatWire: k };
  // A server id (msg_..., fc_...) is the item's `id`, as the SDK stores an
  // output item it got from the Responses API.
  const id = typeof d.id === "string" ? { id: d.id } : {};
  if (d.type === "function_call") {
    return { type: "function_call", ...id, callId: d.call_id, name: d.name ?? "tool", arguments: d.arguments ?? "{}",
             providerData: tag };
  }
  if (d.type === "function_call_output") {
    return { type: "function_call_result", callId: d.call_id, name: "tool", status: "completed",
             output: { type: "text", text: textOf(d.output) }, providerData: tag };
  }
  if (d.type === "reasoning") {
    // as the SDK's OpenAI provider reads a reasoning output item: the summary
    // texts as content, the rest (encrypted_content) in providerData
    const item = { type: "reasoning",
                   content: (Array.isArray(d.summary) ? d.summary : []).map((s) => ({ type: "input_text", text: s?.text ?? "" })),
                   providerData: { ...tag, ...(d.encrypted_content !== undefined ? { encrypted_content: d.encrypted_content } : {}) } };
    if (typeof d.id === "string") item.id = d.id;
    return item;
  }
  if (d.type !== undefined && d.type !== "message") {
    return { type: "unknown", providerData: { ...tag, item: d } }; // other item types: opaque to the session
  }
  const role = ["user", "assistant", "system", "developer"].includes(d.role) ? d.role : "user";
  if (role === "assistant") {
    return { type: "message", ...id, role, status: "completed", content: [{ type: "output_text", text: textOf(d.content) }],
             providerData: tag };
  }
  return { type: "message", role, content: textOf(d.content), providerData: tag };
}

async function reduce(request) {
  const core = await load("@openai/agents-core");
  const file = path.join(here, "node_modules", "@openai", "agents-core", "dist", "runner", "sessionPersistence.mjs");
  const persistence = await import(pathToFileURL(file).href);
  const limit = request.config === "limit";
  if (limit && request.budgetKind !== "messages") throw new Unsupported("the session limit counts items, not tokens");
  const N = request.budget;
  const stored = request.messages.filter((m) => m !== request.pinned);
  const items = stored.map((m, k) => toItem(m, k));
  const session = new core.MemorySession();
  await session.addItems(items);
  const keepNewest = limit ? (history, newItems) => [...history.slice(-N), ...newItems] : undefined;
  const { preparedInput } = await persistence.prepareInputItemsWithSession([], session, keepNewest, {});
  const out = [];
  let at = 0;
  for (const item of preparedInput) {
    let j = at;
    while (j < items.length && !isDeepStrictEqual(items[j], item)) j++;
    if (j < items.length) {
      out.push(stored[j]);
      at = j + 1;
    } else {
      out.push(item); // changed by the SDK: the kit judges it
    }
  }
  return withPinned(request, out);
}

serve({ format: "responses", pkg: "@openai/agents-core", reduce, configs: ["limit", "sanitize"], defaultConfig: "limit" });
