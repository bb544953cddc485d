#!/usr/bin/env node
// reducer-kit compat adapter: Mastra's history processors TokenLimiter and
// ToolCallFilter (@mastra/core/processors; they moved there from
// @mastra/memory/processors in Mastra v1).
//
// Configurations (--config), as Mastra's docs show them
// (dist/docs/references/docs-agents-processors.md, reference-processors-
// token-limiter-processor.md, reference-processors-tool-call-filter.md):
//   token-limiter      inputProcessors: [new TokenLimiter(limit)]
//   tool-call-filter   inputProcessors: [new ToolCallFilter()]
//
// The path: in their default modes both processors act in
// `processLLMRequest`, on the provider prompt the agent has built from its
// message list, right before the model call, and change only what that call
// receives. The adapter runs them through the agent's own runner,
// ProcessorRunner.runProcessLLMRequest, on the first step of a run (a fresh
// per-processor state, as a new run has), with the history as that prompt.
// The conversion an Agent makes from stored messages to the prompt
// (MessageList: it merges adjacent assistant messages and adjacent tool
// messages, drops calls without a result) is not part of what is certified.
//
// Wire format: canonical (the provider prompt is the AI SDK's model message
// shape: model_messages.mjs). System prompt: in band (system messages are
// part of the prompt; both processors keep every one in place).
//
// Budget:
//   TokenLimiter counts with its own estimator (tokenx on each message's
//   text, plus 3.8 per message and 24 per conversation, token-limiter.ts);
//   its `encoding` option is deprecated and ignored, and the `tokenCounter`
//   option only serves trimMode "memory-only". No request cost can be
//   charged, so the configuration declares `no-budget` and a request's N
//   messages set the limit to what the limiter itself counts for the
//   system messages, the conversation and the newest N messages of the
//   history (its countPromptMessageTokens): the limit at which the newest N
//   messages fit, so that each request makes it cut near N. Token budgets
//   are answered `unsupported`.
//   ToolCallFilter takes no budget (`no-budget`); token budgets are
//   answered `unsupported`.
//
// Both return the prompt's own message objects for what they keep, and
// ToolCallFilter a copy ({...message, content}) of a message it took parts
// out of, whose kept parts are the very part objects it was given.

import { serve, load, Unsupported } from "./wire.mjs";
import { toModelMessages } from "./model_messages.mjs";

const CONFIGS = ["token-limiter", "tool-call-filter"];

async function reduce(request) {
  const processors = await load("@mastra/core/processors");
  if (request.budgetKind !== "messages") {
    throw new Unsupported("the processors take no request costs (TokenLimiter counts with its own estimator)");
  }
  const { model, backToWire } = toModelMessages(request);
  let processor;
  if (request.config === "token-limiter") {
    const probe = new processors.TokenLimiter(Number.MAX_SAFE_INTEGER);
    const count = (x) => probe.countPromptMessageTokens(x);
    const systems = model.filter((x) => x.role === "system");
    const rest = model.filter((x) => x.role !== "system");
    const newest = rest.slice(Math.max(0, rest.length - request.budget));
    const limit = processors.TokenLimiter.TOKENS_PER_CONVERSATION
      + [...systems, ...newest].reduce((sum, x) => sum + count(x), 0);
    processor = new processors.TokenLimiter(limit);
  } else {
    processor = new processors.ToolCallFilter();
  }
  const runner = new processors.ProcessorRunner({ inputProcessors: [processor], agentName: "compat" });
  const { prompt } = await runner.runProcessLLMRequest({ prompt: model, stepNumber: 0, steps: [] });
  return prompt.map(backToWire);
}

serve({ format: "canonical", pkg: "@mastra/core", reduce, configs: CONFIGS, defaultConfig: "token-limiter" });
