#!/usr/bin/env node
// reducer-kit compat adapter: LangChain.js `BufferWindowMemory`
// (@langchain/classic/memory), the memory n8n's "Simple Memory" (formerly
// "Window Buffer Memory") node and its chat memory nodes run.
//
// Certified as it is used: the memory is built as n8n's node builds it
// (BufferWindowMemory({ k, memoryKey: "chat_history", inputKey: "input",
// outputKey: "output", returnMessages: true })), the history is added to it
// message by message through its own chat history (chatHistory.addMessage,
// the path BaseChatMemory.saveContext takes for a human/AI pair; an agent
// that keeps tool calls adds those messages the same way), and the view an
// agent reads is loadMemoryVariables({}) (buffer_window_memory.js: the
// stored messages' slice(-k * 2)).
//
// Wire format: openai (LangChain messages, langchain_messages.mjs).
//
// System prompt: out of band, as in an agent, which passes its system prompt
// beside the memory: the pinned system message is held aside and put back in
// its place.
//
// Budget: `k` counts exchanges, a human message and an AI message each,
// and the view keeps the last 2k stored messages whatever they are. A
// request's N messages map to k = floor(N / 2), a window of 2k <= N
// messages; N = 1 has no window of whole exchanges (k = 0 is slice(-0), the
// whole history) and is answered `unsupported`, as are token budgets.
//
// The chat history stores the very objects it is given and the view is a
// slice of them, so kept messages are matched by identity.

import { serve, load, withPinned, Unsupported } from "./wire.mjs";
import { toLangChain } from "./langchain_messages.mjs";

async function reduce(request) {
  const lc = await load("@langchain/core/messages");
  const { BufferWindowMemory } = await load("@langchain/classic/memory");
  if (request.budgetKind !== "messages") {
    throw new Unsupported("BufferWindowMemory counts exchanges of messages (k), not tokens");
  }
  const k = Math.floor(request.budget / 2);
  if (k < 1) throw new Unsupported("a window of one message is no whole exchange (k counts pairs of messages)");
  const memory = new BufferWindowMemory({
    k, memoryKey: "chat_history", inputKey: "input", outputKey: "output", returnMessages: true,
  });
  const byObject = new Map();
  for (const m of request.messages) {
    if (m === request.pinned) continue;
    const x = toLangChain(m, lc, undefined);
    byObject.set(x, m);
    await memory.chatHistory.addMessage(x);
  }
  const vars = await memory.loadMemoryVariables({});
  const out = vars.chat_history.map((x) => {
    const m = byObject.get(x);
    if (!m) throw new Error("the memory returned a message it was not given");
    return m;
  });
  return withPinned(request, out);
}

serve({ format: "openai", pkg: "@langchain/classic", reduce });
