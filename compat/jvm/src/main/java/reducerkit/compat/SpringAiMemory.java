package reducerkit.compat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * Spring AI's {@code MessageWindowChatMemory} (org.springframework.ai:spring-ai-model),
 * certified as {@code MessageChatMemoryAdvisor} saves into it when it sits
 * inside the tool loop, the placement Spring AI's docs give for keeping the
 * tool transcript in memory (tools.adoc, "Memory and the Tool Loop",
 * "Inside the Loop": {@code MessageChatMemoryAdvisor.builder(chatMemory).order(
 * BaseAdvisor.HIGHEST_PRECEDENCE + 400)}, default InMemoryChatMemoryRepository).
 *
 * <p>What the advisor saves, on each model call of the loop
 * (MessageChatMemoryAdvisor.java, spring-ai-client-chat 2.0.1): before the
 * call, the prompt's last UserMessage or ToolResponseMessage
 * ({@code chatMemory.add(conversationId, userMessage)}, lines 103-104);
 * after it, the response's AssistantMessage(s) (line 146). The tool loop
 * answers one AssistantMessage's calls with one ToolResponseMessage holding
 * every response. So the adapter adds, one {@code add} per message, in
 * history order: each user message, each assistant message (its text and
 * one ToolCall per {@code tool_calls} entry), and each run of consecutive
 * {@code tool} messages as one ToolResponseMessage (one ToolResponse per
 * message: its {@code tool_call_id}, the name of the call it answers, its
 * content); then reads {@code get(conversationId)}, the history the advisor
 * puts into the next prompt. A kept ToolResponseMessage is written back as
 * every wire message of its run.
 *
 * <p>The system prompt never enters the memory (the advisor saves only the
 * message types above; step 2.1, lines 88-95, moves the prompt's system
 * message first): the pinned system message is held aside and put back
 * first. The memory counts messages ({@code maxMessages} = the request's
 * maxMessages), a ToolResponseMessage as one; a token budget is answered
 * {@code unsupported}.
 */
final class SpringAiMemory implements Wire.Adapter {

    static final String CONVERSATION = "kit";

    @Override
    public String packageName() {
        return "spring-ai-model";
    }

    @Override
    public String version() throws IOException {
        return Main.mavenVersion(MessageWindowChatMemory.class, "org.springframework.ai", "spring-ai-model");
    }

    @Override
    public List<String> configs() {
        return List.of("message-window-advisor");
    }

    @Override
    public List<Object> reduce(Wire.Request r) throws Exception {
        if (r.budgetKind == Wire.BudgetKind.TOKENS) {
            throw new Wire.Unsupported("Spring AI's MessageWindowChatMemory counts messages (maxMessages); it takes"
                    + " no token budget");
        }
        Map<Integer, String> names = OpenAi.toolNames(r.messages);
        IdentityHashMap<Message, List<Wire.Message>> back = new IdentityHashMap<>();
        List<Message> saved = new ArrayList<>();
        List<Wire.Message> messages = r.unpinned();
        for (int i = 0; i < messages.size(); i++) {
            Wire.Message m = messages.get(i);
            String text = OpenAi.text(m);
            Message lib;
            List<Wire.Message> from = new ArrayList<>(List.of(m));
            switch (m.role) {
                case "user":
                    lib = new UserMessage(text == null ? "" : text);
                    break;
                case "assistant": {
                    List<AssistantMessage.ToolCall> calls = new ArrayList<>();
                    for (OpenAi.Call c : OpenAi.calls(m)) {
                        calls.add(new AssistantMessage.ToolCall(c.id(), "function", c.name(), c.arguments()));
                    }
                    lib = AssistantMessage.builder().content(text).toolCalls(calls).build();
                    break;
                }
                case "tool": {
                    List<ToolResponseMessage.ToolResponse> responses = new ArrayList<>();
                    from.clear();
                    int j = i;
                    for (; j < messages.size() && messages.get(j).role.equals("tool"); j++) {
                        Wire.Message t = messages.get(j);
                        String content = OpenAi.text(t);
                        responses.add(new ToolResponseMessage.ToolResponse(OpenAi.callId(t), names.get(t.index),
                                content == null ? "" : content));
                        from.add(t);
                    }
                    i = j - 1;
                    lib = ToolResponseMessage.builder().responses(responses).build();
                    break;
                }
                case "system":
                    throw new Wire.BadRequest("message " + m.index + " is a later system message, which"
                            + " MessageChatMemoryAdvisor never saves");
                default:
                    throw new Wire.BadRequest("message " + m.index + " has role " + Json.quote(m.role)
                            + ", which Spring AI has no message type for");
            }
            back.put(lib, from);
            saved.add(lib);
        }
        ChatMemory memory = MessageWindowChatMemory.builder()
                .maxMessages((int) Math.min(r.budget, Integer.MAX_VALUE))
                .build();
        for (Message lib : saved) {
            memory.add(CONVERSATION, lib);
        }
        List<Object> out = new ArrayList<>();
        for (Message lib : memory.get(CONVERSATION)) {
            List<Wire.Message> from = back.get(lib);
            if (from == null) {
                throw new IllegalStateException("the memory returned a message it was not given: " + lib);
            }
            out.addAll(from);
        }
        return r.withPinned(out);
    }
}
