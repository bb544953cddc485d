// The kit's openai wire messages as LangChain.js messages (@langchain/core),
// shared by the LangChain.js adapters (langchain_trim.mjs,
// langchain_buffer_window.mjs).
//
//   toLangChain(m, lc, id)  the request's Message `m` as the LangChain message
//                           an application stores: SystemMessage,
//                           HumanMessage, AIMessage with tool_calls (their
//                           arguments parsed as LangChain keeps them),
//                           ToolMessage with tool_call_id, ChatMessage for
//                           any other role; `lc` is the loaded
//                           "@langchain/core/messages" module, `id` the
//                           message's LangChain id (or undefined)
//   fromLangChain(msg)      a message LangChain made or changed, written in
//                           the openai wire format for the kit to judge

function content(c) {
  return typeof c === "string" || Array.isArray(c) ? c : "";
}

// A call's `arguments` text as the args object LangChain keeps; text that is
// no JSON object is kept whole under `__arguments__`.
function parseArgs(text) {
  if (typeof text !== "string") return { __arguments__: text ?? null };
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : { __arguments__: text };
  } catch {
    return { __arguments__: text };
  }
}

export function toLangChain(m, lc, id) {
  const d = m.data;
  switch (m.role) {
    case "system":
      return new lc.SystemMessage({ id, content: content(d.content) });
    case "user":
      return new lc.HumanMessage({ id, content: content(d.content) });
    case "assistant":
      return new lc.AIMessage({
        id,
        content: content(d.content),
        tool_calls: (d.tool_calls ?? []).map((c) => ({
          id: c.id, name: c.function?.name ?? "tool", args: parseArgs(c.function?.arguments), type: "tool_call",
        })),
      });
    case "tool":
      return new lc.ToolMessage({ id, content: content(d.content), tool_call_id: d.tool_call_id });
    default:
      return new lc.ChatMessage({ id, content: content(d.content), role: d.role });
  }
}

export function fromLangChain(msg) {
  const type = msg._getType ? msg._getType() : msg.getType();
  const role = { system: "system", human: "user", ai: "assistant", tool: "tool" }[type] ?? msg.role ?? "user";
  const out = { role, content: msg.content };
  if (type === "tool") out.tool_call_id = msg.tool_call_id;
  if (type === "ai" && msg.tool_calls?.length) {
    out.tool_calls = msg.tool_calls.map((c) => ({
      id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
    }));
  }
  return out;
}
