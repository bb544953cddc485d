// @openai/agents-core 0.20.0, a session with sessionInputCallback: the model
// gets an input that is no valid history.
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
// openai-agents-js-session-limit/, clause valid-output): the session
// holds a function_call and its result; the callback keeps the newest N = 1
// item; the application's new input is a user message.
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/openai-agents-js-session-limit/valid-output.mjs
// Exits 0 when the model input is no valid history: a function_call_result
// that does not come after the run of function_call items it answers (the
// validator's rule result-follows-call; the clause valid-output fails; the
// Responses API rejects an output whose call it cannot find), 1 otherwise.
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
let calls = new Set(); // the calls of the run of call items before the current results
for (const [k, item] of input.entries()) {
  if (item.type === "function_call") calls.add(item.callId);
  else if (item.type === "function_call_result") {
    if (!calls.has(item.callId)) {
      console.log(`invalid: item ${k}, the result for ${JSON.stringify(item.callId)} follows no call of that id`);
      process.exit(0);
    }
  } else calls = new Set();
}
console.log("a valid history");
process.exit(1);
