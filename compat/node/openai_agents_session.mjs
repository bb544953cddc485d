#!/usr/bin/env node
// reducer-kit compat adapter: @openai/agents session history limit (JS).
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
// with callId and a text output, a `message` item); MemorySession hands back
// clones (structuredClone), matched to the stored items in order and checked
// equal, so a kept item is written back as the exact text it came as and an
// item the SDK changed is written as the SDK gave it, for the kit to judge.
//
// System prompt: out of band (`new Agent({ instructions })`); later system
// messages are session items with role system.
//
// Budget: N items, which under this format is N messages, the kit's own unit.
// Items only: a token budget is answered `unsupported`.
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

// The SDK's AgentInputItem for one wire item.
function toItem(m) {
  const d = m.data;
  if (d.type === "function_call") {
    return { type: "function_call", callId: d.call_id, name: d.name ?? "tool", arguments: d.arguments ?? "{}" };
  }
  if (d.type === "function_call_output") {
    return { type: "function_call_result", callId: d.call_id, name: "tool", status: "completed",
             output: { type: "text", text: textOf(d.output) } };
  }
  const role = ["user", "assistant", "system", "developer"].includes(d.role) ? d.role : "user";
  if (role === "assistant") {
    return { type: "message", role, status: "completed", content: [{ type: "output_text", text: textOf(d.content) }] };
  }
  return { type: "message", role, content: textOf(d.content) };
}

async function reduce(request) {
  const core = await load("@openai/agents-core");
  const file = path.join(here, "node_modules", "@openai", "agents-core", "dist", "runner", "sessionPersistence.mjs");
  const persistence = await import(pathToFileURL(file).href);
  if (request.budgetKind !== "messages") throw new Unsupported("the session limit counts items, not tokens");
  const N = request.budget;
  const stored = request.messages.filter((m) => m !== request.pinned);
  const items = stored.map(toItem);
  const session = new core.MemorySession();
  await session.addItems(items);
  const keepNewest = (history, newItems) => [...history.slice(-N), ...newItems];
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

serve({ format: "responses", pkg: "@openai/agents-core", reduce });
