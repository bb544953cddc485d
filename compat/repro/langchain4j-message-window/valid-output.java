// langchain4j 1.19.0, MessageWindowChatMemory: messages() is a history no
// chat model takes, a tool result that follows no call of its id.
//
// As langchain4j's docs show the memory (docs/tutorials/chat-memory.md:
// MessageWindowChatMemory "retaining the N most recent messages", orphan
// ToolExecutionResultMessages evicted with their AiMessage), fed the way an
// AI Service feeds it: the AiMessage with the model's parallel tool calls
// is added (ToolService.java:575), then each ToolExecutionResultMessage on
// its own (ToolService.java:639); the model is sent messages() on its next
// call (ToolService.java:657).
//
// Input: the kit's minimal counterexample (corpus/compat/
// langchain4j-message-window/, clause valid-output): an AiMessage calling
// c1 and c2, then the two results, with maxMessages 1.
//
// Run from the repository's root after compat/run built compat/jvm:
//     java -cp "$(cat compat/.cache/jvm/classpath.txt)" compat/repro/langchain4j-message-window/valid-output.java
// Exits 0 when messages() is no valid history: a ToolExecutionResultMessage
// that answers no ToolExecutionRequest of the AiMessage before its run of
// results (the validator's rule result-follows-call, the Chat Completions
// rule that a tool message responds to a preceding tool_calls entry; the
// clause valid-output fails), 1 otherwise.

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

class ValidOutput {
    public static void main(String[] args) {
        ChatMemory memory = MessageWindowChatMemory.withMaxMessages(1);
        ToolExecutionRequest c1 = ToolExecutionRequest.builder().id("c1").name("f").arguments("{}").build();
        ToolExecutionRequest c2 = ToolExecutionRequest.builder().id("c2").name("f").arguments("{}").build();
        memory.add(AiMessage.from(List.of(c1, c2)));
        memory.add(ToolExecutionResultMessage.from(c1, ""));
        memory.add(ToolExecutionResultMessage.from(c2, ""));

        List<ChatMessage> sent = memory.messages();
        System.out.println("messages(): " + sent);
        Set<String> calls = new HashSet<>(); // the calls of the AiMessage before the current run of results
        for (int i = 0; i < sent.size(); i++) {
            ChatMessage m = sent.get(i);
            if (m instanceof ToolExecutionResultMessage r) {
                if (!calls.contains(r.id())) {
                    System.out.println("invalid: message " + i + ", a result for \"" + r.id()
                            + "\" follows no call of that id");
                    System.exit(0);
                }
            } else if (m instanceof AiMessage a && a.hasToolExecutionRequests()) {
                calls = new HashSet<>();
                for (ToolExecutionRequest t : a.toolExecutionRequests()) {
                    calls.add(t.id());
                }
            } else {
                calls = new HashSet<>();
            }
        }
        System.out.println("a valid history");
        System.exit(1);
    }
}
