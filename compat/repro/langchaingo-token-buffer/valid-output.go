// langchaingo v0.1.14, memory.ConversationTokenBuffer: a history the model
// cannot take.
//
// As langchaingo's docs show a memory used by a chain (docs/docs/modules/memory/index.mdx:
// the chain saves each exchange with SaveContext, chains/chains.go:62) and by
// hand ("Manual Memory Management": messages go into memory.ChatHistory, the
// only path for a tool call and its results, since SaveContext takes two
// strings, memory/buffer.go:75-99), read as a chat model's prompt gets it
// (LoadMemoryVariables with WithReturnMessages(true)). The buffer counts with
// llms.CountTokens("", buffer string) (token_buffer.go:108), the rune count
// / 4 (count_tokens.go:74-80); the constructor's LLM is never called, so a
// stand-in is passed.
//
// Input: the kit's minimal counterexample (corpus/compat/langchaingo-token-buffer/,
// clause valid-output): an assistant message calling c1, c2 and c3, the
// three tool messages with their results, then an exchange (a question and
// its answer) saved with SaveContext, whose pruning drops the oldest
// messages until the rest fits.
//
// Exits 0 when the view is no valid history: a ToolChatMessage that does not
// answer a call of the assistant message before its run of tool messages (the
// rule result-follows-call of the validator, the rule of the Chat Completions
// API that a tool message responds to a preceding tool_calls entry; the
// clause valid-output fails), 1 otherwise.
//
// Run: go -C compat/go run ../repro/langchaingo-token-buffer/valid-output.go
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
)

// standIn is the llms.Model the constructor takes; the buffer never calls it.
type standIn struct{}

func (standIn) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, errors.New("not called")
}

func (standIn) Call(context.Context, string, ...llms.CallOption) (string, error) {
	return "", errors.New("not called")
}

func call(id, city string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function",
		FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"` + city + `"}`}}
}

func main() {
	log.SetOutput(io.Discard) // CountTokens warns on every count (count_tokens.go:79)
	ctx := context.Background()
	mem := memory.NewConversationTokenBuffer(standIn{}, 15, memory.WithReturnMessages(true))
	steps := []llms.ChatMessage{
		llms.AIChatMessage{ToolCalls: []llms.ToolCall{call("c1", "Paris"), call("c2", "Rome"), call("c3", "Oslo")}},
		llms.ToolChatMessage{ID: "c1", Content: "Paris: sunny"},
		llms.ToolChatMessage{ID: "c2", Content: "Rome: rain"},
		llms.ToolChatMessage{ID: "c3", Content: "Oslo: snow"},
	}
	for _, m := range steps {
		if err := mem.ChatHistory.AddMessage(ctx, m); err != nil {
			panic(err)
		}
	}
	if err := mem.SaveContext(ctx, map[string]any{"input": "Which city is warmest?"}, map[string]any{"output": "Paris."}); err != nil {
		panic(err)
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
