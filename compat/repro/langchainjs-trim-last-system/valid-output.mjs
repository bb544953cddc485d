// @langchain/core 1.4.0 (LangChain.js), trimMessages with startOn at its
// default: a history no chat model takes, from one it takes.
//
// trimMessages as its JSDoc documents it (dist/messages/transformers.d.ts:
// 147-195 and the first example, 211-221): strategy "last", includeSystem
// true, and startOn left out, its default, with a tokenCounter that counts
// messages, (msgs) => msgs.length.
//
// Input: the kit's minimal counterexample (corpus/compat/
// langchainjs-trim-last-system/, clause valid-output): an AIMessage with a
// tool call and the ToolMessage that answers it (a valid history), and a
// budget of one message.
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/langchainjs-trim-last-system/valid-output.mjs
// Exits 0 when the input is a valid history (every ToolMessage answers a
// call of the AIMessage right before its run of ToolMessages) and the
// output is not (the clause valid-output fails: OpenAI answers 400 "messages
// with role 'tool' must be a response to a preceding message with
// 'tool_calls'"), 1 otherwise.
import { AIMessage, ToolMessage, trimMessages } from "@langchain/core/messages";

// The chat-completions rule: each ToolMessage answers a call still waiting
// from the AIMessage before its run of ToolMessages; the calls are answered
// before any other message.
function problem(messages) {
  let waiting = new Set();
  for (const [i, m] of messages.entries()) {
    if (m.getType() === "tool") {
      if (!waiting.delete(m.tool_call_id)) return `message ${i} answers ${JSON.stringify(m.tool_call_id)}, which no waiting call has`;
      continue;
    }
    if (waiting.size) return `message ${i} comes before the results of ${[...waiting]}`;
    waiting = new Set((m.tool_calls ?? []).map((c) => c.id));
  }
  return waiting.size ? `the calls ${[...waiting]} have no results` : null;
}

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
console.log("input: ", history.map(show), "->", problem(history) ?? "valid");
console.log("output:", out.map(show), "->", problem(out) ?? "valid");
process.exit(problem(history) === null && problem(out) !== null ? 0 : 1);
