package reducerkit.compat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.memory.chat.TokenWindowChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * langchain4j's chat memories (dev.langchain4j:langchain4j), certified the
 * way an AI Service uses them: the history is added message by message
 * through the memory's own {@code add} (DefaultAiServices.java:264-269 adds
 * the system message and the user message, ToolService.java:575 each
 * AiMessage, ToolService.java:639 each ToolExecutionResultMessage on its
 * own), then {@code messages()} is read, which is what the model is sent.
 *
 * <p>Configurations ({@code --config}):
 * <ul>
 * <li>{@code message-window}: {@code MessageWindowChatMemory.builder().maxMessages(M)},
 * the memory the docs show first (docs/tutorials/chat-memory.md). Its window
 * counts the SystemMessage it holds (MessageWindowChatMemory.java:124), the
 * kit's budget does not, so M is maxMessages + 1 when the pinned system
 * message is handed to the memory. A token budget is answered
 * {@code unsupported}.</li>
 * <li>{@code token-window}: {@code TokenWindowChatMemory.builder().maxTokens(N, estimator)}
 * with a TokenCountEstimator that charges each message its cost from the
 * request ({@link Wire.Request#cost}: 1 per message under a message budget,
 * the request's {@code tokens} under a token budget, the pinned system
 * message 0 unless {@code countPinned}); N is maxMessages or maxTokens.</li>
 * </ul>
 *
 * <p>Mapping (OpenAI Chat Completions): {@code user} to UserMessage (its text
 * parts as TextContents, an empty text when it has none), {@code assistant}
 * to AiMessage (text and one ToolExecutionRequest per {@code tool_calls}
 * entry: id, name, arguments), {@code tool} to ToolExecutionResultMessage
 * (its {@code tool_call_id}, the name of the call it answers, its content),
 * {@code system} and {@code developer} to SystemMessage. A SystemMessage
 * cannot be blank (SystemMessage.java:24), so a pinned system message whose
 * text is blank is held aside, as an application with no system prompt,
 * and put back at its place. A message the memory returns is mapped back by
 * identity to the wire message it was made from.
 */
final class Langchain4jMemory implements Wire.Adapter {

    @Override
    public String packageName() {
        return "langchain4j";
    }

    @Override
    public String version() throws IOException {
        return Main.mavenVersion(MessageWindowChatMemory.class, "dev.langchain4j", "langchain4j");
    }

    @Override
    public List<String> configs() {
        return List.of("message-window", "token-window");
    }

    static int clampInt(long v) {
        return (int) Math.min(v, Integer.MAX_VALUE);
    }

    @Override
    public List<Object> reduce(Wire.Request r) throws Exception {
        boolean tokens = r.config.equals("token-window");
        if (!tokens && r.budgetKind == Wire.BudgetKind.TOKENS) {
            throw new Wire.Unsupported("MessageWindowChatMemory counts messages (maxMessages); it takes no token"
                    + " budget");
        }
        Map<Integer, String> names = OpenAi.toolNames(r.messages);
        IdentityHashMap<ChatMessage, Wire.Message> back = new IdentityHashMap<>();
        List<ChatMessage> history = new ArrayList<>();
        boolean systemInMemory = false;
        for (Wire.Message m : r.messages) {
            if (m.pinned) {
                String text = OpenAi.text(m);
                if (text == null || text.isBlank()) {
                    continue; // held aside: langchain4j has no blank SystemMessage
                }
                systemInMemory = true;
            }
            ChatMessage c = toLibrary(m, names);
            back.put(c, m);
            history.add(c);
        }

        ChatMemory memory;
        if (tokens) {
            TokenCountEstimator estimator = new TokenCountEstimator() {
                @Override
                public int estimateTokenCountInText(String text) {
                    throw new IllegalStateException("the adapter's estimator counts messages, not texts");
                }

                @Override
                public int estimateTokenCountInMessage(ChatMessage message) {
                    Wire.Message m = back.get(message);
                    if (m == null) {
                        throw new IllegalStateException("a message the adapter did not give: " + message);
                    }
                    return clampInt(r.cost(m));
                }

                @Override
                public int estimateTokenCountInMessages(Iterable<ChatMessage> messages) {
                    long sum = 0;
                    for (ChatMessage message : messages) {
                        sum += estimateTokenCountInMessage(message);
                    }
                    return clampInt(sum);
                }
            };
            long max = r.budget;
            if (r.pinned != null && !systemInMemory && r.countPinned) {
                max -= r.pinned.tokens; // what is left beside the system prompt held aside
                if (max <= 0) {
                    throw new Wire.Unsupported("TokenWindowChatMemory takes maxTokens > 0, and the pinned system"
                            + " message (held aside: blank) leaves nothing of the budget");
                }
            }
            memory = TokenWindowChatMemory.builder().maxTokens(clampInt(max), estimator).build();
        } else {
            long max = r.budget == Long.MAX_VALUE ? r.budget : r.budget + (systemInMemory ? 1 : 0);
            memory = MessageWindowChatMemory.builder().maxMessages(clampInt(max)).build();
        }
        for (ChatMessage c : history) {
            memory.add(c);
        }
        List<Object> out = new ArrayList<>();
        for (ChatMessage c : memory.messages()) {
            Wire.Message m = back.get(c);
            out.add(m != null ? m : made(c));
        }
        if (r.pinned != null && !systemInMemory) {
            return r.withPinned(out);
        }
        return out;
    }

    /** The library's message for a wire message, as an AI Service would hold it. */
    static ChatMessage toLibrary(Wire.Message m, Map<Integer, String> names) throws Wire.BadRequest {
        String text = OpenAi.text(m);
        switch (m.role) {
            case "system":
                return SystemMessage.from(text == null ? "" : text);
            case "user": {
                List<dev.langchain4j.data.message.Content> contents = new ArrayList<>();
                Object c = m.raw.get("content");
                if (c instanceof List) {
                    for (Object part : (List<?>) c) {
                        if (part instanceof Map && "text".equals(((Map<?, ?>) part).get("type"))
                                && ((Map<?, ?>) part).get("text") instanceof String) {
                            contents.add(TextContent.from((String) ((Map<?, ?>) part).get("text")));
                        }
                    }
                } else {
                    contents.add(TextContent.from(text == null ? "" : text));
                }
                if (contents.isEmpty()) {
                    contents.add(TextContent.from(""));
                }
                return UserMessage.from(contents);
            }
            case "assistant": {
                List<ToolExecutionRequest> requests = new ArrayList<>();
                for (OpenAi.Call call : OpenAi.calls(m)) {
                    requests.add(ToolExecutionRequest.builder()
                            .id(call.id())
                            .name(call.name())
                            .arguments(call.arguments())
                            .build());
                }
                return AiMessage.builder().text(text).toolExecutionRequests(requests).build();
            }
            case "tool":
                return ToolExecutionResultMessage.from(OpenAi.callId(m), names.get(m.index), text == null ? "" : text);
            default:
                throw new Wire.BadRequest("message " + m.index + " has role " + Json.quote(m.role)
                        + ", which langchain4j has no message type for");
        }
    }

    /** The wire form of a message the memory made (never expected: these memories only evict). */
    static String made(ChatMessage c) {
        if (c instanceof SystemMessage) {
            return "{\"role\":\"system\",\"content\":" + Json.quote(((SystemMessage) c).text()) + "}";
        }
        if (c instanceof UserMessage) {
            UserMessage u = (UserMessage) c;
            return "{\"role\":\"user\",\"content\":" + Json.quote(u.hasSingleText() ? u.singleText() : "") + "}";
        }
        if (c instanceof ToolExecutionResultMessage) {
            ToolExecutionResultMessage t = (ToolExecutionResultMessage) c;
            return "{\"role\":\"tool\",\"tool_call_id\":" + Json.quote(String.valueOf(t.id())) + ",\"content\":"
                    + Json.quote(t.text()) + "}";
        }
        if (c instanceof AiMessage) {
            AiMessage a = (AiMessage) c;
            StringBuilder b = new StringBuilder("{\"role\":\"assistant\",\"content\":")
                    .append(a.text() == null ? "null" : Json.quote(a.text()));
            if (a.hasToolExecutionRequests()) {
                b.append(",\"tool_calls\":[");
                boolean first = true;
                for (ToolExecutionRequest t : a.toolExecutionRequests()) {
                    b.append(first ? "" : ",").append("{\"id\":").append(Json.quote(String.valueOf(t.id())))
                            .append(",\"type\":\"function\",\"function\":{\"name\":")
                            .append(Json.quote(String.valueOf(t.name()))).append(",\"arguments\":")
                            .append(Json.quote(t.arguments() == null ? "" : t.arguments())).append("}}");
                    first = false;
                }
                b.append(']');
            }
            return b.append('}').toString();
        }
        return "{\"role\":\"user\",\"content\":" + Json.quote(String.valueOf(c)) + "}";
    }
}
