// @strands-agents/sdk 1.19.0 (Strands Agents TypeScript SDK),
// SlidingWindowConversationManager: more messages than windowSize after an
// invocation.
//
// An Agent with a tool and SlidingWindowConversationManager({ windowSize:
// 3 }), as the conversation management guide shows it
// (https://strandsagents.com/docs/user-guide/concepts/agents/conversation-management/;
// windowSize is documented as the "Maximum number of messages to keep in the
// conversation history", dist/src/conversation-manager/
// sliding-window-conversation-manager.d.ts:13-17). The model is a stand-in
// (a Model subclass, the SDK's provider interface, models/model.d.ts:224-263)
// that calls the tool twice and then answers: no network.
//
// Input: the shape of the kit's failing cases beyond the documented no-op
// (gen/1/186, gen/1/487, spec/batched-results-suffix; the kit's shrinker
// reduces them to histories the manager leaves whole, the adapter's
// `unchanged` difference): a user message, then only tool steps and an
// answer inside the window, here two tool steps and a window of 3
// messages. After the invocation the manager finds no user message without
// a toolResult inside the window, falls back to the newest complete tool
// pair and keeps the user message before it as an anchor
// (sliding-window-conversation-manager.js:183-208).
//
// Run from the repository's root after `npm ci` in compat/node (compat/run
// does it): node compat/repro/strands-js-sliding-window/budget.mjs
// Exits 0 when the agent's history holds more than windowSize messages
// after the manager trimmed it (the clause budget fails), 1 otherwise.
import { Agent, Model, SlidingWindowConversationManager, tool } from "@strands-agents/sdk";
import { z } from "zod";

const WINDOW = 3;

class StandIn extends Model {
  calls = 0;
  updateConfig() {}
  getConfig() { return {}; }
  async *stream() {
    this.calls += 1;
    yield { type: "modelMessageStartEvent", role: "assistant" };
    if (this.calls <= 2) {
      yield { type: "modelContentBlockStartEvent", start: { type: "toolUseStart", name: "lookup", toolUseId: `c${this.calls}` } };
      yield { type: "modelContentBlockDeltaEvent", delta: { type: "toolUseInputDelta", input: "{}" } };
      yield { type: "modelContentBlockStopEvent" };
      yield { type: "modelMessageStopEvent", stopReason: "toolUse" };
    } else {
      yield { type: "modelContentBlockStartEvent" };
      yield { type: "modelContentBlockDeltaEvent", delta: { type: "textDelta", text: "done" } };
      yield { type: "modelContentBlockStopEvent" };
      yield { type: "modelMessageStopEvent", stopReason: "endTurn" };
    }
  }
}

const lookup = tool({ name: "lookup", description: "Looks something up.", inputSchema: z.object({}), callback: () => "found" });
const agent = new Agent({
  model: new StandIn(), tools: [lookup], printer: false,
  conversationManager: new SlidingWindowConversationManager({ windowSize: WINDOW }),
});
await agent.invoke("Look it up twice.");
const show = (m) => `${m.role}: ${m.content.map((b) => b.type + (b.toolUseId ? ` ${b.toolUseId}` : "")).join(", ")}`;
console.log(`history after the invocation (windowSize ${WINDOW}):`);
for (const m of agent.messages) console.log("  " + show(m));
const over = agent.messages.length > WINDOW;
console.log(`${agent.messages.length} messages, ${over ? "more than" : "within"} windowSize ${WINDOW}`);
process.exit(over ? 0 : 1);
