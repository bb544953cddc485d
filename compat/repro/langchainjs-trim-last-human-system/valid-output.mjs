// @langchain/core 1.4.0 (LangChain.js), trimMessages: a history no model
// can take.
//
// The configuration of trimMessages' documented example "including system
// message, ... start on HumanMessage" (its JSDoc, dist/messages/
// transformers.d.ts:429-437: strategy "last", includeSystem true, startOn
// "human"), with a tokenCounter that counts messages, (msgs) =>
// msgs.length. includeSystem is documented to keep the SystemMessage at
// index 0 (transformers.d.ts:191).
//
// Input: the kit's minimal counterexample (corpus/compat/
// langchainjs-trim-last-human-system/, clause valid-output): the history
// holds the system message alone, and a budget of one message, which it
// fits.
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/langchainjs-trim-last-human-system/valid-output.mjs
// Exits 0 when the output is no list of messages (an entry is not a
// BaseMessage, which no chat model's invoke takes: the clause valid-output
// fails), 1 otherwise.
import { BaseMessage, SystemMessage, trimMessages } from "@langchain/core/messages";

const history = [new SystemMessage("")];
const out = await trimMessages(history, {
  maxTokens: 1,
  tokenCounter: (msgs) => msgs.length,
  strategy: "last",
  startOn: "human",
  includeSystem: true,
});
console.log("input: ", history.map((m) => `${m.getType()} ${JSON.stringify(m.content)}`));
console.log("output:", out.map((m) => (m === undefined ? "undefined" : `${m.getType()} ${JSON.stringify(m.content)}`)));
const bad = out.findIndex((m) => !(m instanceof BaseMessage));
console.log(bad >= 0 ? `entry ${bad} is no message: ${String(out[bad])}` : "every entry is a message");
process.exit(bad >= 0 ? 0 : 1);
