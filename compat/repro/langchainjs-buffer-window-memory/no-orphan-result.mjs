// @langchain/classic 1.0.50 (LangChain.js), BufferWindowMemory: a
// ToolMessage whose AIMessage fell out of the window.
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
// langchainjs-buffer-window-memory/, clause no-orphan-result): an AIMessage
// with a tool call, the ToolMessage that answers it and the AI's answer,
// and a window of k = 1 exchange (two messages).
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/langchainjs-buffer-window-memory/no-orphan-result.mjs
// Exits 0 when the view holds a ToolMessage whose tool_call_id no earlier
// AIMessage of the view calls (an orphan result: the clause no-orphan-result
// fails), 1 otherwise.
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { BufferWindowMemory } from "@langchain/classic/memory";

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
console.log("stored:", stored.map(show));
console.log("view:  ", view.map(show));
const called = new Set();
for (const m of view) {
  for (const c of m.tool_calls ?? []) called.add(c.id);
  if (m.getType() === "tool" && !called.has(m.tool_call_id)) {
    console.log(`orphan ToolMessage: no earlier AIMessage of the view calls ${JSON.stringify(m.tool_call_id)}`);
    process.exit(0);
  }
}
console.log("every ToolMessage has its call");
process.exit(1);
