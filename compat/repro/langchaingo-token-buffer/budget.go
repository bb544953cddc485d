// langchaingo v0.1.14, memory.ConversationTokenBuffer: a view over its
// MaxTokenLimit.
//
// As langchaingo's memory docs show an application managing a memory by hand
// (docs/docs/modules/memory/index.mdx, "Manual Memory Management":
// memory.ChatHistory.AddUserMessage / AddAIMessage, the path every message
// that SaveContext cannot store takes: a tool call, a tool result, a question
// before its answer exists) and as a chain reads the memory
// (LoadMemoryVariables with WithReturnMessages(true), what a chat model's
// prompt gets). The docs promise the token buffer "manages memory based on
// token count". It counts with llms.CountTokens("", buffer string)
// (token_buffer.go:108), which comes to the rune count / 4 (count_tokens.go:74-80);
// the constructor's LLM is never called, so a stand-in is passed.
//
// Input: the kit's minimal counterexample (corpus/compat/langchaingo-token-buffer/,
// clause budget): an assistant message then a user message, together over
// the limit.
//
// Exits 0 when the view LoadMemoryVariables returns costs more than
// MaxTokenLimit by the buffer's own count (the clause budget fails), 1
// otherwise.
//
// Run: go -C compat/go run ../repro/langchaingo-token-buffer/budget.go
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

func main() {
	log.SetOutput(io.Discard) // CountTokens warns on every count (count_tokens.go:79)
	ctx := context.Background()
	const limit = 8
	mem := memory.NewConversationTokenBuffer(standIn{}, limit, memory.WithReturnMessages(true))
	if err := mem.ChatHistory.AddAIMessage(ctx, "It is sunny in Paris today."); err != nil {
		panic(err)
	}
	if err := mem.ChatHistory.AddUserMessage(ctx, "And what about tomorrow?"); err != nil {
		panic(err)
	}
	vars, err := mem.LoadMemoryVariables(ctx, map[string]any{})
	if err != nil {
		panic(err)
	}
	view := vars["history"].([]llms.ChatMessage)
	for _, m := range view {
		fmt.Printf("%s %+v\n", m.GetType(), m)
	}
	text, err := llms.GetBufferString(view, mem.HumanPrefix, mem.AIPrefix)
	if err != nil {
		panic(err)
	}
	count := llms.CountTokens("", text) // the buffer's own count (token_buffer.go:108)
	fmt.Printf("the view counts %d tokens, MaxTokenLimit %d\n", count, mem.MaxTokenLimit)
	if count > mem.MaxTokenLimit {
		os.Exit(0)
	}
	os.Exit(1)
}
