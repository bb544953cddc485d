// @langchain/core 1.4.0 (LangChain.js), trimMessages: the system message is
// lost.
//
// The configuration of trimMessages' documented example "including system
// message, ... start on HumanMessage" (its JSDoc, dist/messages/
// transformers.d.ts:429-437: strategy "last", includeSystem true, startOn
// "human"), with a tokenCounter that counts messages, (msgs) =>
// msgs.length. includeSystem is documented to keep the SystemMessage at
// index 0 (transformers.d.ts:191).
//
// Input: the kit's minimal counterexample (corpus/compat/
// langchainjs-trim-last-human-system/, clause system-pinned): the history
// holds the system message alone, and a budget of one message, which it
// fits.
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/langchainjs-trim-last-human-system/system-pinned.mjs
// Exits 0 when the output has lost the SystemMessage (the clause
// system-pinned fails), 1 when it kept it.
import { SystemMessage, trimMessages } from "@langchain/core/messages";

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
const lost = !out.some((m) => m instanceof SystemMessage);
console.log(`the SystemMessage is ${lost ? "lost" : "kept"}`);
process.exit(lost ? 0 : 1);
