// spring-ai-model 2.0.1, MessageWindowChatMemory: a ToolResponseMessage
// whose AssistantMessage was evicted is the first message of get().
//
// As Spring AI's docs show the memory with tool calling (chat-memory.adoc,
// "Message Window Chat Memory", MessageWindowChatMemory.builder()
// .maxMessages(N); tools.adoc, "Memory and the Tool Loop", "Inside the
// Loop": MessageChatMemoryAdvisor inside ToolCallingAdvisor's loop), saved
// into as MessageChatMemoryAdvisor saves (spring-ai-client-chat 2.0.1,
// MessageChatMemoryAdvisor.java): before each model call the prompt's last
// UserMessage or ToolResponseMessage (lines 103-104), after it the
// response's AssistantMessage (line 146); get() is the history the advisor
// puts into the next prompt (line 78).
//
// Input: the kit's minimal counterexample (corpus/compat/
// spring-ai-message-window-advisor/, clause no-orphan-result): a user
// question, the AssistantMessage calling c1, the ToolResponseMessage with
// its response, with maxMessages 1.
//
// Run from the repository's root after compat/run built compat/jvm:
//     java -cp "$(cat compat/.cache/jvm/classpath.txt)" compat/repro/spring-ai-message-window-advisor/no-orphan-result.java
// Exits 0 when get() holds a ToolResponse whose id no earlier ToolCall has
// (an orphan result: the clause no-orphan-result fails; Anthropic rejects
// it, "Each tool_result block must have a corresponding tool_use block in
// the previous message"), 1 otherwise.

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

class NoOrphanResult {
    public static void main(String[] args) {
        ChatMemory memory = MessageWindowChatMemory.builder().maxMessages(1).build();
        String conversation = "007";
        // first model call: the advisor saves the user message, then the reply with the tool call
        memory.add(conversation, new UserMessage("What is the weather in Paris?"));
        memory.add(conversation, AssistantMessage.builder()
                .content("")
                .toolCalls(List.of(new AssistantMessage.ToolCall("c1", "function", "f", "{}")))
                .build());
        // second model call of the loop: the advisor saves the prompt's ToolResponseMessage
        memory.add(conversation, ToolResponseMessage.builder()
                .responses(List.of(new ToolResponseMessage.ToolResponse("c1", "f", "")))
                .build());

        List<Message> prompt = memory.get(conversation);
        System.out.println("get(): " + prompt);
        Set<String> called = new HashSet<>();
        for (Message m : prompt) {
            if (m instanceof ToolResponseMessage t) {
                for (ToolResponseMessage.ToolResponse r : t.getResponses()) {
                    if (!called.contains(r.id())) {
                        System.out.println("orphan ToolResponse for id \"" + r.id() + "\"");
                        System.exit(0);
                    }
                }
            }
            if (m instanceof AssistantMessage a) {
                a.getToolCalls().forEach(c -> called.add(c.id()));
            }
        }
        System.out.println("no orphan result");
        System.exit(1);
    }
}
