package wire

import (
	"encoding/json"
	"strings"
)

// Helpers for adapters whose wire format is OpenAI Chat Completions
// (spec/spec.md §1.4): a message's text, calls and result id, as a library
// that keeps them as strings reads them.

// Text is the text of a message's `content`: a string, null, or an array of
// parts (the `text` of its `text` parts, joined by newlines).
func (m *Message) Text() string {
	raw := m.Fields["content"]
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []map[string]json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		var typ, text string
		if json.Unmarshal(p["type"], &typ) == nil && typ == "text" && json.Unmarshal(p["text"], &text) == nil {
			texts = append(texts, text)
		}
	}
	return strings.Join(texts, "\n")
}

// Call is one entry of an assistant message's `tool_calls`.
type Call struct {
	ID, Type, Name string
	Arguments      string // the arguments as the JSON text OpenAI sends ("" when absent)
}

// Calls are the entries of an assistant message's `tool_calls`.
func (m *Message) Calls() []Call {
	var raws []map[string]json.RawMessage
	if json.Unmarshal(m.Fields["tool_calls"], &raws) != nil {
		return nil
	}
	out := make([]Call, 0, len(raws))
	for _, r := range raws {
		var c Call
		_ = json.Unmarshal(r["id"], &c.ID)
		_ = json.Unmarshal(r["type"], &c.Type)
		var fn map[string]json.RawMessage
		_ = json.Unmarshal(r["function"], &fn)
		_ = json.Unmarshal(fn["name"], &c.Name)
		if json.Unmarshal(fn["arguments"], &c.Arguments) != nil && fn["arguments"] != nil {
			c.Arguments = string(fn["arguments"])
		}
		out = append(out, c)
	}
	return out
}

// ResultID is a tool message's `tool_call_id` ("" when it has none).
func (m *Message) ResultID() string {
	id, _ := m.String("tool_call_id")
	return id
}

// ResultText is a tool message's `content` as the text a library stores: a
// string as it is, any other value as its JSON text.
func (m *Message) ResultText() string {
	if s, ok := m.String("content"); ok {
		return s
	}
	if raw, ok := m.Fields["content"]; ok {
		return string(raw)
	}
	return ""
}
