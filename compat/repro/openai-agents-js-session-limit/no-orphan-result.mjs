// @openai/agents-core 0.20.0, a session with sessionInputCallback: a
// function_call_result without its function_call goes to the model.
//
// As the sessions guide shows an application keeping the newest N items of a
// session (https://openai.github.io/openai-agents-js/guides/sessions/, the
// sessionInputCallback example; SessionInputCallback,
// dist/memory/session.d.ts:7): a MemorySession, run(agent, new input,
// { session, sessionInputCallback: (history, newItems) =>
// [...history.slice(-N), ...newItems] }). The model is a stand-in that
// records the input the runner hands it (the Model interface: getResponse)
// and answers one message: no network.
//
// Input: the kit's minimal counterexample (corpus/compat/
// openai-agents-js-session-limit/, clause no-orphan-result): the session
// holds a function_call and its result; the callback keeps the newest N = 1
// item; the application's new input is a user message.
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/openai-agents-js-session-limit/no-orphan-result.mjs
// Exits 0 when the model input holds a function_call_result whose callId no
// earlier function_call has (an orphan result: the clause no-orphan-result
// fails; the Responses API rejects such an input, as it finds no tool call
// for the output), 1 otherwise.
import { Agent, MemorySession, Usage, run, setTracingDisabled } from "@openai/agents-core";

const N = 1;
const STORED = [
  { type: "function_call", callId: "c1", name: "f", arguments: "{}" },
  { type: "function_call_result", callId: "c1", name: "f", status: "completed", output: { type: "text", text: "" } },
];
const sent = [];
const model = {
  async getResponse(request) {
    sent.push(request.input);
    return {
      output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok" }] }],
      usage: new Usage(),
    };
  },
  async *getStreamedResponse() {
    throw new Error("this program does not stream");
  },
};

setTracingDisabled(true);
const session = new MemorySession();
await session.addItems(STORED);
await run(new Agent({ name: "assistant", instructions: "Be brief.", model }), "And tomorrow?", {
  session,
  sessionInputCallback: (history, newItems) => [...history.slice(-N), ...newItems],
});
const input = sent[0];
console.log("model input:", JSON.stringify(input, null, 1));
const called = new Set();
for (const item of input) {
  if (item.type === "function_call") called.add(item.callId);
  if (item.type === "function_call_result" && !called.has(item.callId)) {
    console.log(`orphan function_call_result for callId ${JSON.stringify(item.callId)}`);
    process.exit(0);
  }
}
console.log("every function_call_result has its function_call");
process.exit(1);
