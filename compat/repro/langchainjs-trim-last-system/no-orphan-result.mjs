// @langchain/core 1.4.0 (LangChain.js), trimMessages with startOn at its
// default: a ToolMessage whose AIMessage was cut.
//
// trimMessages as its JSDoc documents it (dist/messages/transformers.d.ts:
// 147-195 and the first example, 211-221): strategy "last", includeSystem
// true, and startOn left out, its default ("If specified then every message
// before the first occurrence of this type is ignored", 182-188), with a
// tokenCounter that counts messages, (msgs) => msgs.length.
//
// Input: the kit's minimal counterexample (corpus/compat/
// langchainjs-trim-last-system/, clause no-orphan-result): an AIMessage
// with a tool call and the ToolMessage that answers it, and a budget of
// one message.
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/langchainjs-trim-last-system/no-orphan-result.mjs
// Exits 0 when the output holds a ToolMessage whose tool_call_id no
// earlier AIMessage of the output calls (an orphan result: the clause
// no-orphan-result fails), 1 otherwise.
import { AIMessage, ToolMessage, trimMessages } from "@langchain/core/messages";

const history = [
  new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "f", args: {}, type: "tool_call" }] }),
  new ToolMessage({ content: "", tool_call_id: "c1" }),
];
const out = await trimMessages(history, {
  maxTokens: 1,
  tokenCounter: (msgs) => msgs.length,
  strategy: "last",
  includeSystem: true,
});
const show = (m) => `${m.getType()}${m.tool_calls?.length ? ` calls ${m.tool_calls.map((c) => c.id)}` : ""}${m.tool_call_id ? ` answers ${m.tool_call_id}` : ""}`;
console.log("input: ", history.map(show));
console.log("output:", out.map(show));
const called = new Set();
for (const m of out) {
  for (const c of m.tool_calls ?? []) called.add(c.id);
  if (m.getType() === "tool" && !called.has(m.tool_call_id)) {
    console.log(`orphan ToolMessage: no earlier AIMessage of the output calls ${JSON.stringify(m.tool_call_id)}`);
    process.exit(0);
  }
}
console.log("every ToolMessage has its call");
process.exit(1);
