// langchaingo v0.1.14, memory.ConversationWindowBuffer: a tool result without
// its call.
//
// As langchaingo's memory docs show an application managing a memory by hand
// (docs/docs/modules/memory/index.mdx, "Manual Memory Management": messages go
// into memory.ChatHistory) and as a chain reads it (LoadMemoryVariables; with
// WithReturnMessages(true) the messages a chat model's prompt gets). A tool
// call and its result can only be stored through ChatHistory.AddMessage
// (SaveContext takes two strings, memory/buffer.go:75-99); the agents turn
// such messages into the model's tool messages (agents/openai_functions_agent.go:104-149).
//
// Input: the kit's minimal counterexample (corpus/compat/langchaingo-window-buffer/,
// clause no-orphan-result): an assistant message calling c1, the tool message
// with its result and the assistant's answer, in a window of 1 (k*2 = 2 messages).
//
// Exits 0 when the view holds a ToolChatMessage whose call (an AIChatMessage
// ToolCalls entry with its ID) is not earlier in the view: an orphan result
// (the clause no-orphan-result fails), 1 otherwise.
//
// Run: go -C compat/go run ../repro/langchaingo-window-buffer/no-orphan-result.go
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
)

func main() {
	ctx := context.Background()
	mem := memory.NewConversationWindowBuffer(1, memory.WithReturnMessages(true))
	history := []llms.ChatMessage{
		llms.AIChatMessage{ToolCalls: []llms.ToolCall{{ID: "c1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
		llms.ToolChatMessage{ID: "c1", Content: "sunny"},
		llms.AIChatMessage{Content: "It is sunny in Paris."},
	}
	for _, m := range history {
		if err := mem.ChatHistory.AddMessage(ctx, m); err != nil {
			panic(err)
		}
	}
	vars, err := mem.LoadMemoryVariables(ctx, map[string]any{})
	if err != nil {
		panic(err)
	}
	view := vars["history"].([]llms.ChatMessage)
	called := map[string]bool{}
	orphan := ""
	for _, m := range view {
		fmt.Printf("%s %+v\n", m.GetType(), m)
		if ai, ok := m.(llms.AIChatMessage); ok {
			for _, c := range ai.ToolCalls {
				called[c.ID] = true
			}
		}
		if t, ok := m.(llms.ToolChatMessage); ok && !called[t.ID] && orphan == "" {
			orphan = t.ID
		}
	}
	if orphan != "" {
		fmt.Printf("orphan result for call %q\n", orphan)
		os.Exit(0)
	}
	fmt.Println("every result has its call")
	os.Exit(1)
}
