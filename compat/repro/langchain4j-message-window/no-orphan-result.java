// langchain4j 1.19.0, MessageWindowChatMemory: a ToolExecutionResultMessage
// whose AiMessage the window evicted stays in messages().
//
// As langchain4j's docs show the memory (docs/tutorials/chat-memory.md:
// MessageWindowChatMemory "retaining the N most recent messages", and
// "If an AiMessage containing ToolExecutionRequests is evicted, the
// following orphan ToolExecutionResultMessage(s) are also automatically
// evicted"), fed the way an AI Service feeds it: the AiMessage with the
// model's parallel tool calls is added (ToolService.java:575), then each
// ToolExecutionResultMessage on its own (ToolService.java:639); the model
// is sent messages() on its next call (ToolService.java:657).
//
// Input: the kit's minimal counterexample (corpus/compat/
// langchain4j-message-window/, clause no-orphan-result): an AiMessage
// calling c1 and c2, then the two results, with maxMessages 1.
//
// Run from the repository's root after compat/run built compat/jvm:
//     java -cp "$(cat compat/.cache/jvm/classpath.txt)" compat/repro/langchain4j-message-window/no-orphan-result.java
// Exits 0 when messages() holds a ToolExecutionResultMessage whose id no
// earlier ToolExecutionRequest has (an orphan result: the clause
// no-orphan-result fails; OpenAI rejects it, "messages with role 'tool'
// must be a response to a preceeding message with 'tool_calls'"), 1
// otherwise.

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

class NoOrphanResult {
    public static void main(String[] args) {
        ChatMemory memory = MessageWindowChatMemory.withMaxMessages(1);
        ToolExecutionRequest c1 = ToolExecutionRequest.builder().id("c1").name("f").arguments("{}").build();
        ToolExecutionRequest c2 = ToolExecutionRequest.builder().id("c2").name("f").arguments("{}").build();
        memory.add(AiMessage.from(List.of(c1, c2)));
        memory.add(ToolExecutionResultMessage.from(c1, ""));
        memory.add(ToolExecutionResultMessage.from(c2, ""));

        List<ChatMessage> sent = memory.messages();
        System.out.println("messages(): " + sent);
        Set<String> called = new HashSet<>();
        for (ChatMessage m : sent) {
            if (m instanceof ToolExecutionResultMessage r && !called.contains(r.id())) {
                System.out.println("orphan ToolExecutionResultMessage for id \"" + r.id() + "\"");
                System.exit(0);
            }
            if (m instanceof AiMessage a && a.hasToolExecutionRequests()) {
                a.toolExecutionRequests().forEach(t -> called.add(t.id()));
            }
        }
        System.out.println("no orphan result");
        System.exit(1);
    }
}
