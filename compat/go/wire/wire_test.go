package wire

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestParseBudget(t *testing.T) {
	cases := []struct {
		text string
		want int64 // 0: not a budget
	}{
		{"3", 3}, {"3.0", 3}, {"1e1", 10}, {"1.5e1", 15}, {"0.3e1", 3}, {"12E+0", 12},
		{"9223372036854775807", math.MaxInt64}, {"18446744073709551615", NoLimit}, {"2e99999999999999999999", NoLimit},
		{"0", 0}, {"-0", 0}, {"0.0", 0}, {"-3", 0}, {"2.5", 0}, {"1e-99999999999999999999", 0},
		{`"3"`, 0}, {"true", 0}, {"null", 0}, {"", 0}, {"01", 0}, {"1.", 0},
	}
	for _, c := range cases {
		var raw json.RawMessage
		if c.text != "" {
			raw = json.RawMessage(c.text)
		}
		got, err := ParseBudget(raw, "maxMessages")
		if c.want == 0 {
			if err == nil {
				t.Errorf("ParseBudget(%s) = %d, want an error", c.text, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseBudget(%s) = %d, %v; want %d", c.text, got, err, c.want)
		}
	}
}

func TestParseCount(t *testing.T) {
	for text, want := range map[string]int64{"0": 0, "-0": 0, "2.0": 2, "1e1": 10, "18446744073709551615": math.MaxInt64} {
		if got, err := ParseCount(json.RawMessage(text), "tokens[0]"); err != nil || got != want {
			t.Errorf("ParseCount(%s) = %d, %v; want %d", text, got, err, want)
		}
	}
	for _, text := range []string{"-1", "0.5", "18446744073709551616", `"1"`} {
		if got, err := ParseCount(json.RawMessage(text), "tokens[0]"); err == nil {
			t.Errorf("ParseCount(%s) = %d, want an error", text, got)
		}
	}
}

// keepLast keeps the last message that is not the pinned one, and puts the
// pinned one back.
func keepLast(r *Request) ([]Entry, error) {
	m := r.Unpinned()
	if len(m) == 0 {
		return WithPinned(r, nil), nil
	}
	return WithPinned(r, []Entry{{Kept: m[len(m)-1]}}), nil
}

func TestAnswerKeepsExactText(t *testing.T) {
	a := Adapter{Reduce: keepLast, Format: "openai"}
	line := `{"maxMessages": 1, "id": 7, "messages": [{"role":"user","content":"a"},` +
		`{"role":"Developer","content":"S"},{"z":1e400,"role":"assistant","n":123456789012345678901234567890}]}`
	want := `{"id":7,"messages":[{"role":"Developer","content":"S"},{"z":1e400,"role":"assistant","n":123456789012345678901234567890}]}`
	if got := Answer([]byte(line), a, ""); got != want {
		t.Errorf("Answer = %s\nwant     %s", got, want)
	}
}

func TestAnswerPinnedAfterEarlierMessages(t *testing.T) {
	a := Adapter{Reduce: func(r *Request) ([]Entry, error) {
		return WithPinned(r, []Entry{{Kept: r.Messages[0]}, {Kept: r.Messages[2]}}), nil
	}, Format: "openai"}
	line := `{"maxMessages": 2, "messages": [{"role":"user","content":"a"},{"role":"system","content":"S"},{"role":"assistant","content":"b"}]}`
	want := `{"messages":[{"role":"user","content":"a"},{"role":"system","content":"S"},{"role":"assistant","content":"b"}]}`
	if got := Answer([]byte(line), a, ""); got != want {
		t.Errorf("Answer = %s, want %s", got, want)
	}
}

func TestAnswerUnsupportedErrorsAndPanics(t *testing.T) {
	unsupported := Adapter{Reduce: func(*Request) ([]Entry, error) { return nil, Unsupported{"counts messages"} }, Format: "openai"}
	failing := Adapter{Reduce: func(*Request) ([]Entry, error) { return nil, errors.New("boom") }, Format: "openai"}
	panicking := Adapter{Reduce: func(*Request) ([]Entry, error) { panic("index out of range") }, Format: "openai"}
	cases := []struct {
		a    Adapter
		line string
		want string
	}{
		{unsupported, `{"id":"r1","maxTokens":3,"tokens":[1],"messages":[{"role":"user"}]}`, `{"id":"r1","unsupported":"counts messages"}`},
		{unsupported, `{"maxMessages":3,"messages":[]}`, `{"error":"counts messages"}`},
		{failing, `{"id":2,"maxMessages":3,"messages":[]}`, `{"id":2,"error":"the library failed: boom"}`},
		{panicking, `{"id":3,"maxMessages":3,"messages":[]}`, `{"id":3,"error":"the library panicked: index out of range"}`},
		{failing, `{"id":4,"maxMessages":0,"messages":[]}`, `{"id":4,"error":"maxMessages must be an integer >= 1, got 0"}`},
		{failing, `{"id":5,"maxMessages":2,"maxTokens":2,"messages":[]}`, `{"id":5,"error":"the request has both maxMessages and maxTokens (exactly one is allowed)"}`},
		{failing, `{"id":6,"maxTokens":9,"tokens":[10],"countPinned":true,"messages":[{"role":"system"}]}`,
			`{"id":6,"error":"countPinned: the pinned system message alone costs 10 > maxTokens 9"}`},
		{failing, `[1]`, `{"error":"the request is not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage"}`},
	}
	for _, c := range cases {
		if got := Answer([]byte(c.line), c.a, ""); got != c.want {
			t.Errorf("Answer(%s) = %s, want %s", c.line, got, c.want)
		}
	}
}

func TestCosts(t *testing.T) {
	var obj map[string]json.RawMessage
	line := `{"maxTokens":10,"tokens":[4,2,3],"countPinned":true,"messages":[{"role":"user"},{"role":"system"},{"role":"tool"}]}`
	if err := json.Unmarshal([]byte(line), &obj); err != nil {
		t.Fatal(err)
	}
	r, err := Parse(obj, "openai")
	if err != nil {
		t.Fatal(err)
	}
	if r.Pinned != r.Messages[1] || r.Cost(r.Messages[0]) != 4 || r.Cost(r.Pinned) != 2 || r.Available() != 8 {
		t.Errorf("pinned %v, costs %d %d, available %d", r.Pinned, r.Cost(r.Messages[0]), r.Cost(r.Pinned), r.Available())
	}
}
