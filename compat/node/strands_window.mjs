#!/usr/bin/env node
// reducer-kit compat adapter: the Strands Agents TypeScript SDK's
// `SlidingWindowConversationManager` (@strands-agents/sdk), the conversation
// manager a Strands Agent runs by default (agent.js: windowSize 40).
//
// Wire format: anthropic (Strands messages are Bedrock Converse messages:
// roles user and assistant, TextBlock, ToolUseBlock and ToolResultBlock,
// tool results in a user message; the system prompt lives outside the
// messages).
//
// System prompt: out of band, as in Strands (`new Agent({ systemPrompt })`):
// the request's top-level `system` is held aside and given back.
//
// The path: the manager registers its hooks on the agent (initAgent) and
// applies its window in the AfterInvocationEvent callback, on the agent's
// message array, in place, when it holds more than windowSize messages
// (_applyManagement). The adapter hands initAgent a view of an agent (its
// messages and addHook) and fires the AfterInvocationEvent callbacks the
// manager registered, as an agent does at the end of every invocation.
// shouldTruncateResults is left at its default: it only acts on a
// context-overflow reduction, never on this routine management.
//
// Budget: windowSize = N (messages). Token budgets are answered
// `unsupported`.
//
// The manager splices the agent's array and keeps the very Message objects
// it was given, so kept messages are matched by identity.

import { serve, load, withPinned, Unsupported } from "./wire.mjs";

function resultBlocks(sdk, content) {
  if (typeof content === "string") return [new sdk.TextBlock(content)];
  if (Array.isArray(content)) {
    return content.filter((b) => b && b.type === "text").map((b) => new sdk.TextBlock(b.text ?? ""));
  }
  return [];
}

function toStrands(sdk, m) {
  const d = m.data;
  const blocks = [];
  if (typeof d.content === "string") blocks.push(new sdk.TextBlock(d.content));
  else if (Array.isArray(d.content)) {
    for (const b of d.content) {
      const t = b && typeof b === "object" ? b.type : undefined;
      if (t === "text") blocks.push(new sdk.TextBlock(b.text ?? ""));
      else if (t === "tool_use") {
        blocks.push(new sdk.ToolUseBlock({ name: b.name ?? "tool", toolUseId: b.id, input: b.input ?? {} }));
      } else if (t === "tool_result") {
        blocks.push(new sdk.ToolResultBlock({
          toolUseId: b.tool_use_id, status: b.is_error ? "error" : "success", content: resultBlocks(sdk, b.content),
        }));
      }
      // other blocks (approvals, images, ...) have no Strands counterpart here
    }
  }
  return new sdk.Message({ role: d.role === "assistant" ? "assistant" : "user", content: blocks });
}

async function reduce(request) {
  const sdk = await load("@strands-agents/sdk");
  if (request.budgetKind !== "messages") {
    throw new Unsupported("SlidingWindowConversationManager counts messages, not tokens");
  }
  const byObject = new Map();
  const messages = [];
  for (const m of request.messages) {
    if (m === request.pinned) continue;
    const x = toStrands(sdk, m);
    byObject.set(x, m);
    messages.push(x);
  }
  const hooks = [];
  const agent = { messages, addHook: (type, callback) => { hooks.push([type, callback]); return () => {}; } };
  const manager = new sdk.SlidingWindowConversationManager({ windowSize: request.budget });
  manager.initAgent(agent);
  for (const [type, callback] of hooks) {
    if (type === sdk.AfterInvocationEvent) await callback(new sdk.AfterInvocationEvent({ agent }));
  }
  const out = agent.messages.map((x) => {
    const m = byObject.get(x);
    if (!m) throw new Error("the manager returned a message it was not given");
    return m;
  });
  return withPinned(request, out);
}

serve({ format: "anthropic", pkg: "@strands-agents/sdk", reduce });
