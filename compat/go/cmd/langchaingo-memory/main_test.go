package main

import (
	"io"
	"log"
	"strings"
	"testing"

	"reducerkit/compat/wire"
)

// A history whose exchanges and tool steps take both of the adapter's paths:
// q1 and the call, its result and a1 go in through ChatHistory.AddMessage,
// q2 and a2 through SaveContext (which prunes, in the token buffer).
var history = `[{"role":"system","content":"S"},{"role":"user","content":"q1"},` +
	`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
	`{"role":"tool","tool_call_id":"c1","content":"r"},{"role":"assistant","content":"a1"},` +
	`{"role":"user","content":"q2"},{"role":"assistant","content":"a2"}]`

func kept(texts ...string) string {
	return `{"messages":[` + strings.Join(texts, ",") + `]}`
}

const (
	sys  = `{"role":"system","content":"S"}`
	call = `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	tool = `{"role":"tool","tool_call_id":"c1","content":"r"}`
	a1   = `{"role":"assistant","content":"a1"}`
	q2   = `{"role":"user","content":"q2"}`
	a2   = `{"role":"assistant","content":"a2"}`
)

func TestAnswers(t *testing.T) {
	log.SetOutput(io.Discard)
	adapter := wire.Adapter{Reduce: reduce, Format: "openai", Module: module}
	cases := []struct {
		config, request, want string
	}{
		// SaveContext(q2, a2) drops q1 (cost 1), the call (2) and the result
		// (1): a1, q2 and a2 cost 3
		{"token", `{"maxTokens":3,"tokens":[5,1,2,1,1,1,1],"messages":` + history + `}`, kept(sys, a1, q2, a2)},
		// countPinned: B = 8 - 5, the same
		{"token", `{"maxTokens":8,"tokens":[5,1,2,1,1,1,1],"countPinned":true,"messages":` + history + `}`, kept(sys, a1, q2, a2)},
		// the call costs 0: dropping q1 leaves 4 > 3, dropping the free call
		// still 4, dropping the result 3
		{"token", `{"maxTokens":3,"tokens":[0,1,0,1,1,1,1],"messages":` + history + `}`, kept(sys, a1, q2, a2)},
		// a message budget: 1 per message
		{"token", `{"maxMessages":4,"messages":` + history + `}`, kept(sys, tool, a1, q2, a2)},
		// everything fits: nothing is dropped
		{"token", `{"maxTokens":7,"tokens":[5,1,2,1,1,1,1],"messages":` + history + `}`,
			kept(sys, `{"role":"user","content":"q1"}`, call, tool, a1, q2, a2)},
		// the window: k = 3/2 = 1, the last 2 messages; k = 2 for 4 and 5
		{"window", `{"id":1,"maxMessages":3,"messages":` + history + `}`, `{"id":1,` + kept(sys, q2, a2)[1:]},
		{"window", `{"maxMessages":5,"messages":` + history + `}`, kept(sys, tool, a1, q2, a2)},
		{"window", `{"id":2,"maxMessages":1,"messages":` + history + `}`,
			`{"id":2,"unsupported":"ConversationWindowBuffer keeps k*2 messages; a window of 1 cannot be set (0 is taken for the default 5)"}`},
		{"window", `{"id":3,"maxTokens":3,"tokens":[5,1,2,1,1,1,1],"messages":` + history + `}`,
			`{"id":3,"unsupported":"ConversationWindowBuffer keeps a number of messages, not tokens"}`},
	}
	for _, c := range cases {
		if got := wire.Answer([]byte(c.request), adapter, c.config); got != c.want {
			t.Errorf("%s %s\n got %s\nwant %s", c.config, c.request[:40], got, c.want)
		}
	}
}
