// @langchain/classic 1.0.50 (LangChain.js), BufferWindowMemory: a view no
// chat model takes, of a history it takes.
//
// The memory as n8n's Simple Memory node builds it for its AI Agent
// (BufferWindowMemory({ k, memoryKey: "chat_history", inputKey: "input",
// outputKey: "output", returnMessages: true }); the class's JSDoc example,
// dist/memory/buffer_window_memory.d.ts:13-39, shows k and memoryKey), the
// agent's messages stored through the memory's chat history
// (chatHistory.addMessage, the store BaseChatMemory.saveContext writes to),
// and the view read as an agent reads it, loadMemoryVariables({}).
//
// Input: the kit's minimal counterexample (corpus/compat/
// langchainjs-buffer-window-memory/, clause valid-output): an AIMessage
// with a tool call, the ToolMessage that answers it and the AI's answer (a
// valid history), and a window of k = 1 exchange (two messages).
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/langchainjs-buffer-window-memory/valid-output.mjs
// Exits 0 when the stored history is valid (every ToolMessage answers a
// call of the AIMessage right before its run of ToolMessages) and the view
// is not (the clause valid-output fails: OpenAI answers 400 "messages with
// role 'tool' must be a response to a preceding message with 'tool_calls'",
// as n8n-io/n8n#34166 reports), 1 otherwise.
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { BufferWindowMemory } from "@langchain/classic/memory";

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

const memory = new BufferWindowMemory({
  k: 1, memoryKey: "chat_history", inputKey: "input", outputKey: "output", returnMessages: true,
});
const stored = [
  new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "f", args: {}, type: "tool_call" }] }),
  new ToolMessage({ content: "", tool_call_id: "c1" }),
  new AIMessage(""),
];
for (const m of stored) await memory.chatHistory.addMessage(m);
const view = (await memory.loadMemoryVariables({})).chat_history;
const show = (m) => `${m.getType()}${m.tool_calls?.length ? ` calls ${m.tool_calls.map((c) => c.id)}` : ""}${m.tool_call_id ? ` answers ${m.tool_call_id}` : ""}`;
console.log("stored:", stored.map(show), "->", problem(stored) ?? "valid");
console.log("view:  ", view.map(show), "->", problem(view) ?? "valid");
process.exit(problem(stored) === null && problem(view) !== null ? 0 : 1);
