// @langchain/core 1.4.0 (LangChain.js), trimMessages: an entry that is no
// message.
//
// The configuration of trimMessages' documented example "including system
// message, ... start on HumanMessage" (its JSDoc, dist/messages/
// transformers.d.ts:429-437: strategy "last", includeSystem true, startOn
// "human"), with a tokenCounter that counts messages, (msgs) =>
// msgs.length. includeSystem is documented to keep the SystemMessage at
// index 0 (transformers.d.ts:191).
//
// Input: the kit's minimal counterexample (corpus/compat/
// langchainjs-trim-last-human-system/, clause no-fabrication): the history
// holds the system message alone, and a budget of one message, which it
// fits.
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/langchainjs-trim-last-human-system/no-fabrication.mjs
// Exits 0 when the output holds an entry that is none of the messages it was
// given (here `undefined`: the clause no-fabrication fails), 1 otherwise.
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
const made = out.filter((m) => !history.some((h) => h === m || (h?.getType?.() === m?.getType?.() && h?.content === m?.content)));
console.log(made.length ? `entries that are no input message: ${made.map(String).join(", ")}` : "every entry is an input message");
process.exit(made.length ? 0 : 1);
