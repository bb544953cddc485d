#!/usr/bin/env node
// reducer-kit compat adapter: @langchain/core `trimMessages` (LangChain.js).
//
// Wire format: openai (SystemMessage, HumanMessage, AIMessage with
// tool_calls, ToolMessage with tool_call_id).
//
// Configurations (--config), as LangChain.js's docs show them:
//   last                strategy "last"
//   last-system         strategy "last", includeSystem true: the docs'
//                       configuration without startOn, whose default lets
//                       the kept run start at any message
//   last-human-system   strategy "last", startOn "human", includeSystem true
//   first               strategy "first"
//
// Budget: maxTokens = the request's budget with a tokenCounter that charges
// each message its cost from the request (1 per message under protocol v1,
// the request's `tokens` under v2) and the pinned system message 0, so that
// maxTokens means the kit's budget (counting messages with a length counter
// would charge the kept SystemMessage one slot under includeSystem).
//
// trimMessages works on copies of the messages it is given (it rebuilds each
// one from its fields), so identity is carried by LangChain's own message
// `id`: each message gets the id "compat-<i>", and a returned message with
// that id whose content and tool calls are those of message i is message i.
// Anything else is a message LangChain made or changed, written from its
// fields.

import { serve, load } from "./wire.mjs";
import { toLangChain, fromLangChain } from "./langchain_messages.mjs";

const CONFIGS = {
  last: { strategy: "last" },
  "last-system": { strategy: "last", includeSystem: true },
  "last-human-system": { strategy: "last", startOn: "human", includeSystem: true },
  first: { strategy: "first" },
};

const same = (a, b) => JSON.stringify([a.content, a.tool_calls ?? []]) === JSON.stringify([b.content, b.tool_calls ?? []]);

async function reduce(request) {
  const lc = await load("@langchain/core/messages");
  const byId = new Map(); // id -> [wire message, the library object made from it]
  const history = request.messages.map((m, i) => {
    const x = toLangChain(m, lc, `compat-${i}`);
    byId.set(x.id, [m, x]);
    return x;
  });
  const original = (x) => {
    const hit = x ? byId.get(x.id) : undefined;
    return hit && same(hit[1], x) ? hit[0] : undefined;
  };
  const tokenCounter = (msgs) =>
    msgs.reduce((sum, x) => {
      const m = original(x);
      return sum + (m ? request.cost(m) : request.createdCost());
    }, 0);
  const kept = await lc.trimMessages(history, { maxTokens: request.budget, tokenCounter, ...CONFIGS[request.config] });
  // An entry that is not a message (trimMessages returns [undefined] for a
  // history that is only a system message, with includeSystem and startOn)
  // is written as JSON writes it, null, for the kit to judge.
  return kept.map((k) => original(k) ?? (k ? fromLangChain(k) : null));
}

serve({ format: "openai", pkg: "@langchain/core", reduce, configs: Object.keys(CONFIGS), defaultConfig: "last" });
