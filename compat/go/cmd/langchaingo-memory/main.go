// Command langchaingo-memory is the reducer-kit compat adapter of
// langchaingo's memory buffers (github.com/tmc/langchaingo/memory):
//
//	--config window   ConversationWindowBuffer (NewConversationWindowBuffer(k))
//	--config token    ConversationTokenBuffer (NewConversationTokenBuffer(llm, limit))
//
// Wire format: openai. langchaingo's llms.ChatMessage types hold what a
// Chat Completions message does: HumanChatMessage, AIChatMessage (its
// ToolCalls, one llms.ToolCall per `tool_calls` entry), ToolChatMessage (one
// result, its ID the `tool_call_id`) and SystemChatMessage; the agents turn
// them into the model's messages (agents/openai_functions_agent.go:104-149).
//
// How the history gets into the memory: the way an application's
// conversation stores it. A user message answered directly by an assistant
// text message (no tool calls) is one exchange, stored with
// memory.SaveContext({"input": question}, {"output": answer}), as the
// chains do after each call (chains/chains.go:62); every other message (a
// tool call, a tool result, a later system message, a question not
// answered by text) goes through the memory's chat history,
// memory.ChatHistory.AddMessage, the only path that can store it
// (SaveContext takes two strings, memory/buffer.go:75-99). Then the
// memory's view is read: LoadMemoryVariables with ReturnMessages, which is
// what a chain's prompt gets.
//
// The system prompt is out of band: langchaingo's chains and agents keep it
// in their prompt template, not in the memory, so the pinned system
// message is held aside and put back in its place; later system messages
// go into the memory as SystemChatMessage.
//
// Budgets:
//   - window: ConversationWindowSize k keeps the last k*2 messages
//     (window_buffer.go:92-97, defaultMessageSize 2: "ai and human"). A
//     budget of N messages is the window k = N/2 (rounded down: an odd N
//     keeps at most N-1 messages); N = 1 cannot be said (a size of 0 is
//     taken for the default 5, window_buffer.go:31-32) and a token budget
//     is not the window's unit: both are answered `unsupported`.
//   - token: MaxTokenLimit. The buffer does not count with its LLM: it
//     counts llms.CountTokens("", GetBufferString(messages, "Human", "AI"))
//     (token_buffer.go:108), and CountTokens, finding no encoding for the
//     model "" and none named "gpt2" (tiktoken-go v0.1.6 has no such
//     encoding, encoding.go:99-111), always returns the rune count of that
//     text divided by 4 (llms/count_tokens.go:74-80). So the adapter spells
//     each message's cost in its text: every message's line in the buffer
//     string ("Human: ..." and the newline after it) gets the same number
//     of runes P beside 4*S runes per unit of cost, with S large enough that
//     the overhead of any number of messages stays under one unit, and sets
//     MaxTokenLimit = S*B + S - 1: the buffer then holds messages whose
//     summed cost is at most B exactly when the library's count is at most
//     the limit. B is the request's budget (1 per message under a message
//     budget), less the pinned message's cost under countPinned. The LLM
//     the constructor takes is a stand-in that is never called.
//
// Both buffers only ever drop their oldest messages, so what the view
// holds is matched back to the stored messages from the end, each checked
// equal to the one stored; a view that is not such a suffix is an error.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"reflect"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"

	"reducerkit/compat/wire"
)

const module = "github.com/tmc/langchaingo"

func main() {
	// CountTokens logs a warning on every count (count_tokens.go:79): keep
	// the adapter's stderr readable.
	log.SetOutput(io.Discard)
	wire.Serve(wire.Adapter{Reduce: reduce, Format: "openai", Module: module,
		Configs: []string{"window", "token"}, DefaultConfig: "window"})
}

// stored is one message as it went into the memory.
type stored struct {
	wire *wire.Message
	lib  llms.ChatMessage
}

// toLib maps a wire message into langchaingo's type, with `text` as its
// content (the token configuration spells costs there).
func toLib(m *wire.Message, text string) llms.ChatMessage {
	switch m.Role {
	case "user":
		return llms.HumanChatMessage{Content: text}
	case "assistant":
		ai := llms.AIChatMessage{Content: text}
		for _, c := range m.Calls() {
			typ := c.Type
			if typ == "" {
				typ = "function"
			}
			ai.ToolCalls = append(ai.ToolCalls, llms.ToolCall{ID: c.ID, Type: typ,
				FunctionCall: &llms.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
		}
		return ai
	case "tool":
		return llms.ToolChatMessage{ID: m.ResultID(), Content: text}
	case "system":
		return llms.SystemChatMessage{Content: text}
	default:
		return llms.GenericChatMessage{Role: m.Role, Content: text}
	}
}

// prefix is the role a message has in the buffer string (llms.GetBufferString
// with the buffer's default prefixes "Human" and "AI").
func prefix(msg llms.ChatMessage) string {
	switch v := msg.(type) {
	case llms.HumanChatMessage:
		return "Human"
	case llms.AIChatMessage:
		return "AI"
	case llms.SystemChatMessage:
		return "system"
	case llms.ToolChatMessage:
		return "tool"
	case llms.GenericChatMessage:
		return v.Role
	}
	return ""
}

// wireText is a message's own text: a tool message's result, else its content's text.
func wireText(m *wire.Message) string {
	if m.Role == "tool" {
		return m.ResultText()
	}
	return m.Text()
}

// memoryOf is the configured memory and the text each history message gets.
func memoryOf(r *wire.Request, history []*wire.Message) (schemaMemory, []string, error) {
	texts := make([]string, len(history))
	switch r.Config {
	case "window":
		if r.BudgetKind != "messages" {
			return nil, nil, wire.Unsupported{Why: "ConversationWindowBuffer keeps a number of messages, not tokens"}
		}
		if r.Budget < 2 {
			return nil, nil, wire.Unsupported{Why: "ConversationWindowBuffer keeps k*2 messages; a window of 1 cannot be set (0 is taken for the default 5)"}
		}
		for i, m := range history {
			texts[i] = wireText(m)
		}
		k := r.Budget / 2
		if k > math.MaxInt/2 {
			k = math.MaxInt / 2
		}
		return memory.NewConversationWindowBuffer(int(k), memory.WithReturnMessages(true)), texts, nil
	case "token":
		limit, err := spellCosts(r, history, texts)
		if err != nil {
			return nil, nil, err
		}
		return memory.NewConversationTokenBuffer(standIn{}, limit, memory.WithReturnMessages(true)), texts, nil
	}
	return nil, nil, fmt.Errorf("unknown configuration %q", r.Config)
}

// schemaMemory is what both buffers are: a memory with its chat history.
type schemaMemory interface {
	SaveContext(ctx context.Context, inputs, outputs map[string]any) error
	LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error)
}

// maxRunes bounds the text the token configuration spells costs with.
const maxRunes = 64 << 20

// spellCosts fills texts with the filler that charges each message its cost
// (see the package comment) and returns MaxTokenLimit.
func spellCosts(r *wire.Request, history []*wire.Message, texts []string) (int, error) {
	n := int64(len(history))
	if n == 0 {
		return 1, nil
	}
	p := int64(0) // the runes of the longest "Role: " of the history
	for _, m := range history {
		if l := int64(len([]rune(prefix(toLib(m, ""))))) + 2; l > p {
			p = l
		}
	}
	// the non-cost runes of m messages: P per message and m-1 newlines,
	// (P+1)*m - 1; S keeps a quarter of that under one unit for every m <= n
	s := ((p+1)*n-1)/4 + 1
	total := int64(0)
	for _, m := range history {
		c := r.Cost(m)
		if c > maxRunes || total+c > maxRunes {
			return 0, wire.Unsupported{Why: "the costs are too large to spell as text for the buffer's character count"}
		}
		total += c
	}
	if total*4*s+p*n > maxRunes {
		return 0, wire.Unsupported{Why: "the costs are too large to spell as text for the buffer's character count"}
	}
	for i, m := range history {
		pad := p - int64(len([]rune(prefix(toLib(m, ""))))) - 2
		texts[i] = strings.Repeat("x", int(pad+4*s*r.Cost(m)))
	}
	b := r.Available()
	if b >= total {
		return math.MaxInt, nil // everything fits: the loop never runs
	}
	return int(s*b + s - 1), nil
}

// standIn is the llms.Model NewConversationTokenBuffer takes; the buffer
// never calls it (it counts with llms.CountTokens, token_buffer.go:108).
type standIn struct{}

func (standIn) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, errors.New("the stand-in model is not to be called")
}

func (standIn) Call(context.Context, string, ...llms.CallOption) (string, error) {
	return "", errors.New("the stand-in model is not to be called")
}

func reduce(r *wire.Request) ([]wire.Entry, error) {
	ctx := context.Background()
	history := r.Unpinned()
	mem, texts, err := memoryOf(r, history)
	if err != nil {
		return nil, err
	}
	hist := chatHistory(mem)
	var all []stored
	for i := 0; i < len(history); i++ {
		m := history[i]
		msg := toLib(m, texts[i])
		if m.Role == "user" && i+1 < len(history) && history[i+1].Role == "assistant" && len(history[i+1].Calls()) == 0 {
			// one exchange: the chain's save
			answer := toLib(history[i+1], texts[i+1])
			if err := mem.SaveContext(ctx, map[string]any{"input": texts[i]}, map[string]any{"output": texts[i+1]}); err != nil {
				return nil, err
			}
			all = append(all, stored{m, msg}, stored{history[i+1], answer})
			i++
			continue
		}
		if err := hist.AddMessage(ctx, msg); err != nil {
			return nil, err
		}
		all = append(all, stored{m, msg})
	}
	vars, err := mem.LoadMemoryVariables(ctx, map[string]any{})
	if err != nil {
		return nil, err
	}
	view, ok := vars["history"].([]llms.ChatMessage)
	if !ok {
		return nil, fmt.Errorf("LoadMemoryVariables gave %T under \"history\", not []llms.ChatMessage", vars["history"])
	}
	if len(view) > len(all) {
		return nil, fmt.Errorf("the memory returned %d messages, more than the %d stored", len(view), len(all))
	}
	out := make([]wire.Entry, 0, len(view)+1)
	start := len(all) - len(view)
	for i, msg := range view {
		if !reflect.DeepEqual(msg, all[start+i].lib) {
			return nil, fmt.Errorf("the memory's message %d (%#v) is not the stored message %d", i, msg, start+i)
		}
		out = append(out, wire.Entry{Kept: all[start+i].wire})
	}
	return wire.WithPinned(r, out), nil
}

// chatHistory is the memory's chat history (the ChatHistory field of the
// ConversationBuffer both buffers embed).
func chatHistory(mem schemaMemory) interface {
	AddMessage(ctx context.Context, message llms.ChatMessage) error
} {
	switch b := mem.(type) {
	case *memory.ConversationWindowBuffer:
		return b.ChatHistory
	case *memory.ConversationTokenBuffer:
		return b.ChatHistory
	}
	panic("no chat history")
}
