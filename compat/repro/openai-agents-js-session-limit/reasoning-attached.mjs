// @openai/agents-core 0.20.0, a session with sessionInputCallback: an item
// goes to the model without the reasoning item it needs.
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
// openai-agents-js-session-limit/, clause reasoning-attached, the kind whose
// item carries a server id): the session holds a model output as the SDK
// stores it, a reasoning item and the assistant message after it, each with
// the id the Responses API gave it; N = 1; the application's new input is a
// user message.
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/openai-agents-js-session-limit/reasoning-attached.mjs
// Exits 0 when the model input holds an item with a server id whose
// reasoning item (the one before it in the stored session, with only the
// model's items between) is not in the input: the Responses API rejects
// such a request (the item was provided without its required reasoning
// item; the kit's openai-responses profile rule required-reasoning), and the
// clause reasoning-attached fails. 1 otherwise.
import { Agent, MemorySession, Usage, run, setTracingDisabled } from "@openai/agents-core";

const N = 1;
const STORED = [
  // as the SDK reads a reasoning output item: the summary texts as content,
  // encrypted_content in providerData
  { type: "reasoning", id: "rs_1", content: [{ type: "input_text", text: "weather order order" }],
    providerData: { encrypted_content: "gAAAAB-opaque" } },
  { type: "message", role: "assistant", id: "msg_2", status: "completed", content: [{ type: "output_text", text: "" }] },
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
const sentIds = input.map((item) => item.id);
for (const [k, item] of input.entries()) {
  if (item.type === "reasoning" || typeof item.id !== "string") continue;
  // its reasoning item: the nearest before it in the stored session, with
  // only the model's own items (assistant messages, calls) between
  const at = STORED.findIndex((s) => s.id === item.id);
  for (const s of STORED.slice(0, at).reverse()) {
    if (s.type === "reasoning") {
      if (!sentIds.includes(s.id)) {
        console.log(`item ${k} (${JSON.stringify(item.id)}) is sent without its reasoning item ${JSON.stringify(s.id)}`);
        process.exit(0);
      }
      break;
    }
    if (s.type === "function_call_result" || (s.role !== undefined && s.role !== "assistant")) break;
  }
}
console.log("every item with a server id is sent with its reasoning item");
process.exit(1);
