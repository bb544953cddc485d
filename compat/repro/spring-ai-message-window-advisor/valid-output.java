// spring-ai-model 2.0.1, MessageWindowChatMemory: get() is a history no
// chat model takes, a tool response that follows no call of its id.
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
// spring-ai-message-window-advisor/, clause valid-output): a user
// question, the AssistantMessage calling c1, the ToolResponseMessage with
// its response, with maxMessages 1.
//
// Run from the repository's root after compat/run built compat/jvm:
//     java -cp "$(cat compat/.cache/jvm/classpath.txt)" compat/repro/spring-ai-message-window-advisor/valid-output.java
// Exits 0 when get() is no valid history: a ToolResponse that answers no
// ToolCall of the AssistantMessage right before its ToolResponseMessage
// (the validator's rule result-follows-call, the providers' rule that a
// tool result responds to a call of the previous message; the clause
// valid-output fails), 1 otherwise.

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

class ValidOutput {
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
        Set<String> calls = new HashSet<>(); // the calls of the message right before
        for (int i = 0; i < prompt.size(); i++) {
            Message m = prompt.get(i);
            if (m instanceof ToolResponseMessage t) {
                for (ToolResponseMessage.ToolResponse r : t.getResponses()) {
                    if (!calls.contains(r.id())) {
                        System.out.println("invalid: message " + i + ", a response for \"" + r.id()
                                + "\" follows no call of that id");
                        System.exit(0);
                    }
                }
            }
            calls = new HashSet<>();
            if (m instanceof AssistantMessage a) {
                for (AssistantMessage.ToolCall c : a.getToolCalls()) {
                    calls.add(c.id());
                }
            }
        }
        System.out.println("a valid history");
        System.exit(1);
    }
}
