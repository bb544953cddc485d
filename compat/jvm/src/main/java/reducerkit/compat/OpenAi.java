package reducerkit.compat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reading the kit's OpenAI Chat Completions messages (spec/spec.md §1.4)
 * for mapping them into a library's message types: the text of a message,
 * the calls of an assistant message, the call id of a tool message. What
 * is read here only builds the library's objects; a message the library
 * keeps is written back from its exact text (see {@link Wire}).
 */
final class OpenAi {

    private OpenAi() {}

    /** One entry of an assistant message's {@code tool_calls}. */
    record Call(String id, String name, String arguments) {}

    /**
     * The text of a message's {@code content}: a string as it is; an array
     * of parts, its {@code text} parts' texts joined (other parts, images,
     * usage or vendor parts, carry no text); null when {@code content} is
     * null or missing.
     */
    static String text(Wire.Message m) {
        Object c = m.raw.get("content");
        if (c instanceof String) {
            return (String) c;
        }
        if (c instanceof List) {
            StringBuilder b = new StringBuilder();
            for (Object part : (List<?>) c) {
                if (part instanceof Map && "text".equals(((Map<?, ?>) part).get("type"))
                        && ((Map<?, ?>) part).get("text") instanceof String) {
                    b.append((String) ((Map<?, ?>) part).get("text"));
                }
            }
            return b.toString();
        }
        if (c == null || c == Json.NULL) {
            return null;
        }
        return Json.toText(c);
    }

    /** A string member as it is, any other value as its JSON text, a missing or null one as null. */
    static String string(Object v) {
        if (v == null || v == Json.NULL) {
            return null;
        }
        return v instanceof String ? (String) v : Json.toText(v);
    }

    /** The calls of an assistant message ({@code tool_calls}), in order. */
    static List<Call> calls(Wire.Message m) {
        List<Call> out = new ArrayList<>();
        Object calls = m.raw.get("tool_calls");
        if (calls instanceof List) {
            for (Object c : (List<?>) calls) {
                if (!(c instanceof Map)) {
                    continue;
                }
                Map<?, ?> call = (Map<?, ?>) c;
                Object f = call.get("function");
                Map<?, ?> fn = f instanceof Map ? (Map<?, ?>) f : Map.of();
                out.add(new Call(string(call.get("id")), string(fn.get("name")), string(fn.get("arguments"))));
            }
        }
        return out;
    }

    /** A tool message's {@code tool_call_id}. */
    static String callId(Wire.Message m) {
        return string(m.raw.get("tool_call_id"));
    }

    /**
     * The tool name of each tool message, by message index: the name of the
     * most recent earlier call with its {@code tool_call_id} (a Chat
     * Completions tool message has no name, but both libraries' result types
     * carry one). Null for a result whose call is not in the history.
     */
    static Map<Integer, String> toolNames(List<Wire.Message> messages) {
        Map<String, String> byId = new HashMap<>();
        Map<Integer, String> out = new HashMap<>();
        for (Wire.Message m : messages) {
            if (m.role.equals("tool")) {
                out.put(m.index, byId.get(callId(m)));
            }
            for (Call c : calls(m)) {
                if (c.id() != null) {
                    byId.put(c.id(), c.name());
                }
            }
        }
        return out;
    }
}
