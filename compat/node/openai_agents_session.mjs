#!/usr/bin/env node
// reducer-kit compat adapter: @openai/agents session history limit (JS).
//
// The Agents SDK for JavaScript keeps a conversation in a Session whose
// getItems(limit) "returns the most recent `limit` items in chronological
// order"; the runner replays them into the next turn. Certified here on the
// SDK's MemorySession (from @openai/agents-core, which @openai/agents
// re-exports).
//
// Wire format: openai. A session holds Responses API items: a text message is
// one `message` item, each tool call of an assistant message its own
// `function_call` item, a tool message a `function_call_output` item. A wire
// message is kept when all its items come back; when only some do, it is
// written with those items, so the kit sees what the next turn would see.
//
// System prompt: out of band (`new Agent({ instructions })`); later system
// messages are session items with role system.
//
// Budget: limit = N items (every wire message is at least one item).
// MemorySession returns clones (structuredClone); they are matched to the
// items stored by position (the newest N) and checked equal.

import { serve, load, withPinned } from "./wire.mjs";
import { isDeepStrictEqual } from "node:util";

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.filter((p) => p?.type === "text" && typeof p.text === "string").map((p) => p.text).join("\n");
  }
  return "";
}

function toItems(m) {
  const d = m.data;
  if (m.role === "tool") {
    return [{ type: "function_call_output", callId: d.tool_call_id, output: textOf(d.content) }];
  }
  const calls = Array.isArray(d.tool_calls) ? d.tool_calls : [];
  const text = textOf(d.content);
  const out = [];
  if (text || calls.length === 0) {
    const role = d.role.toLowerCase() === "developer" ? "developer" : ["user", "assistant", "system"].includes(m.role) ? m.role : "user";
    out.push({ type: "message", role, content: text });
  }
  for (const c of calls) {
    out.push({ type: "function_call", callId: c.id, name: c.function?.name ?? "tool", arguments: c.function?.arguments ?? "{}" });
  }
  return out;
}

function fromItems(m, kept) {
  const out = { role: m.data.role };
  const text = kept.find((i) => i.type === "message");
  out.content = text ? text.content : null;
  const calls = kept.filter((i) => i.type === "function_call");
  if (calls.length) {
    out.tool_calls = calls.map((c) => ({ id: c.callId, type: "function", function: { name: c.name, arguments: c.arguments } }));
  }
  return out;
}

async function reduce(request) {
  const core = await load("@openai/agents-core");
  if (request.budgetKind !== "messages") throw new Error("the session limit counts items, not tokens");
  const pinned = request.pinned;
  const stored = [];
  for (const m of request.messages) {
    if (m !== pinned) for (const item of toItems(m)) stored.push([m, item]);
  }
  const session = new core.MemorySession();
  await session.addItems(stored.map(([, item]) => item));
  const got = await session.getItems(request.budget);
  const base = stored.length - got.length;
  const groups = [];
  got.forEach((item, j) => {
    const [m, original] = stored[base + j];
    if (!isDeepStrictEqual(item, original)) throw new Error(`item ${base + j} came back changed`);
    const last = groups[groups.length - 1];
    if (last && last[0] === m) last[1].push(item);
    else groups.push([m, [item]]);
  });
  const answer = groups.map(([m, items]) => (items.length === toItems(m).length ? m : fromItems(m, items)));
  return withPinned(request, answer);
}

serve({ format: "openai", pkg: "@openai/agents-core", reduce });
