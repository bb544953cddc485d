// langchaingo v0.1.14, memory.ConversationWindowBuffer: a history the model
// cannot take.
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
// clause valid-output): an assistant message calling c1, the tool message
// with its result and the assistant's answer, in a window of 1 (k*2 = 2 messages).
//
// Exits 0 when the view is no valid history: a ToolChatMessage that does not
// answer a call of the assistant message before its run of tool messages (the
// rule result-follows-call of the validator, the rule of the Chat Completions
// API that a tool message responds to a preceding tool_calls entry; the
// clause valid-output fails), 1 otherwise.
//
// Run: go -C compat/go run ../repro/langchaingo-window-buffer/valid-output.go
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
	calls := map[string]bool{} // the calls of the assistant message before the current run of tool messages
	broken := ""
	for i, m := range view {
		fmt.Printf("%s %+v\n", m.GetType(), m)
		switch v := m.(type) {
		case llms.AIChatMessage:
			calls = map[string]bool{}
			for _, c := range v.ToolCalls {
				calls[c.ID] = true
			}
		case llms.ToolChatMessage:
			if !calls[v.ID] && broken == "" {
				broken = fmt.Sprintf("message %d: a tool message for %q follows no call of that id", i, v.ID)
			}
		default:
			calls = map[string]bool{}
		}
	}
	if broken != "" {
		fmt.Println("invalid: " + broken)
		os.Exit(0)
	}
	fmt.Println("a valid history")
	os.Exit(1)
}
