// langchain4j 1.19.0, TokenWindowChatMemory: messages() is a history no
// chat model takes, a tool result that follows no call of its id.
//
// As langchain4j's docs show the memory (docs/tutorials/chat-memory.md:
// TokenWindowChatMemory "keeping the N most recent tokens, evicting older
// messages as needed", with "a TokenCountEstimator to count the tokens in
// each ChatMessage" (here a stand-in that counts one token per message), orphan
// ToolExecutionResultMessages evicted with their AiMessage), fed the way an
// AI Service feeds it: the AiMessage with the model's parallel tool calls
// is added (ToolService.java:575), then each ToolExecutionResultMessage on
// its own (ToolService.java:639); the model is sent messages() on its next
// call (ToolService.java:657).
//
// Input: the kit's minimal counterexample (corpus/compat/
// langchain4j-token-window/, clause valid-output): an AiMessage calling
// c1 and c2, then the two results, with maxTokens 1 and one token per message.
//
// Run from the repository's root after compat/run built compat/jvm:
//     java -cp "$(cat compat/.cache/jvm/classpath.txt)" compat/repro/langchain4j-token-window/valid-output.java
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
import dev.langchain4j.memory.chat.TokenWindowChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

class ValidOutput {
    public static void main(String[] args) {
        TokenCountEstimator onePerMessage = new TokenCountEstimator() {
            @Override
            public int estimateTokenCountInText(String text) {
                return 1;
            }

            @Override
            public int estimateTokenCountInMessage(ChatMessage message) {
                return 1;
            }

            @Override
            public int estimateTokenCountInMessages(Iterable<ChatMessage> messages) {
                int n = 0;
                for (ChatMessage m : messages) {
                    n += estimateTokenCountInMessage(m);
                }
                return n;
            }
        };
        ChatMemory memory = TokenWindowChatMemory.builder().maxTokens(1, onePerMessage).build();
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
