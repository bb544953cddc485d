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
// or several, in tool messages; model_messages.mjs).
//
// A message pruneMessages changed comes back as a new object whose parts
// are the very part objects it was given; it is written as the original
// message with only the items behind the parts that came back, so the kit
// judges what was taken out (taking out calls is a fabrication, taking out
// results is allowed).

import { serve, load } from "./wire.mjs";
import { toModelMessages } from "./model_messages.mjs";

async function reduce(request) {
  const ai = await load("ai");
  const { model, backToWire } = toModelMessages(request);
  const N = request.budget;
  const pruned = ai.pruneMessages({ messages: model, toolCalls: `before-last-${N}-messages`, emptyMessages: "remove" });
  return pruned.map(backToWire);
}

serve({ format: "canonical", pkg: "ai", reduce });
