// Package wire is what every Go compat adapter shares: runner protocol 1 of
// reducer-kit (spec/spec.md §8), protocol 2 (§13: token budgets, request
// ids, the `unsupported` answer), and the rule that kept messages go back
// exactly as they came (docs/compat/README.md, "How the adapters work").
// It is the Go counterpart of compat/python/compat_wire.py.
//
// An adapter defines one function and hands it to Serve:
//
//	func reduce(r *wire.Request) ([]wire.Entry, error) {
//		...                      // map r.Messages into the library's types
//		...                      // call the library's own reducer
//		return entries, nil      // what the library gave back, mapped back
//	}
//
//	func main() { wire.Serve(wire.Adapter{Reduce: reduce, Format: "openai", ...}) }
//
// An Entry is either a *Message of the request (the library kept it: it is
// written back as the exact JSON text it was read as, member order and
// number spelling included, since a json.RawMessage is never re-encoded) or
// a message the library made (Made: any value, written with encoding/json).
// Returning an error answers {"error": "..."}; returning an Unsupported
// error answers {"id": N, "unsupported": "why"} under protocol 2 ({"error"}
// without an id). A panic in the library is answered as an error, never a
// crash.
//
// Command line of every adapter:
//
//	adapter [--config NAME] [--persistent] [--probe]
//
// --persistent answers one JSON line per input line, flushed (spec §8.3);
// without it the whole of stdin is one request (§8.2). --probe prints
// {"package": ..., "version": ...} (the library's module version as linked
// into the binary) and exits 0. Exit status 2 for a bad command line.
// "Not installed" (exit 3) is the launcher's (compat/go/adapter): a Go
// adapter that runs has its library linked in.
package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strings"
)

// Unsupported is returned by a reduce function for a request its library
// cannot express (a token budget for a library that counts messages): the
// kit counts that case as skipped by the reducer (spec §13.7).
type Unsupported struct{ Why string }

func (u Unsupported) Error() string { return u.Why }

// BadRequest is a request the adapter cannot read (not the library's
// failure): answered {"error": "..."}.
type BadRequest struct{ Why string }

func (b BadRequest) Error() string { return b.Why }

// NoLimit is the budget of a request whose budget is too large for the
// machine (spec §2: a huge budget means no limit).
const NoLimit = math.MaxInt64

// Message is one message of a request.
type Message struct {
	Raw    json.RawMessage            // the message as read: written back if kept
	Fields map[string]json.RawMessage // its members (the last of duplicates wins, as in the kit)
	Index  int                        // its position in the request's `messages`
	Role   string                     // its role, ASCII-lowercased; `developer` reads as `system`
	Pinned bool                       // whether it is the pinned system message (the first system one)
	Tokens int64                      // its entry of `tokens` (protocol 2), 1 otherwise
}

// String returns the member `name` when it is a JSON string.
func (m *Message) String(name string) (string, bool) {
	raw, ok := m.Fields[name]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Request is a parsed request.
type Request struct {
	Messages      []*Message // every message, the pinned one included, in order
	Pinned        *Message   // the pinned system message, or nil
	BudgetKind    string     // "messages" (maxMessages) or "tokens" (maxTokens, protocol 2)
	Budget        int64      // maxMessages or maxTokens (NoLimit: no limit)
	CountPinned   bool       // a token budget's countPinned
	Summary       bool       // whether a summary is allowed (protocol 2)
	SummaryTokens int64      // what a summary costs (1 unless summaryTokens)
	Config        string     // the adapter's --config
}

// Cost is what a message costs against the budget: 1 per message under a
// message budget, its `tokens` entry under a token budget; the pinned
// system message 0 unless countPinned (spec §2, §11.1).
func (r *Request) Cost(m *Message) int64 {
	if m.Pinned && !r.CountPinned {
		return 0
	}
	return m.Tokens
}

// Unpinned is every message but the pinned system message, in order.
func (r *Request) Unpinned() []*Message {
	out := make([]*Message, 0, len(r.Messages))
	for _, m := range r.Messages {
		if !m.Pinned {
			out = append(out, m)
		}
	}
	return out
}

// Available is B, what the messages other than the pinned one may cost
// together: the budget, less the pinned message's cost under countPinned
// (spec §2; the request was refused when that is negative).
func (r *Request) Available() int64 {
	if r.Budget == NoLimit {
		return NoLimit
	}
	if r.Pinned != nil {
		return r.Budget - r.Cost(r.Pinned)
	}
	return r.Budget
}

// Entry is one message of an answer: Kept (a message of the request,
// written back as its exact text) or Made (a message the library made,
// written with encoding/json).
type Entry struct {
	Kept *Message
	Made any
}

// WithPinned puts the pinned system message back among the kept ones, at
// its original place (first, unless the history had messages before it; a
// message the library made counts as later), for a library that keeps the
// system prompt beside the history.
func WithPinned(r *Request, out []Entry) []Entry {
	if r.Pinned == nil {
		return out
	}
	at := 0
	for at < len(out) && out[at].Kept != nil && out[at].Kept.Index < r.Pinned.Index {
		at++
	}
	res := make([]Entry, 0, len(out)+1)
	res = append(res, out[:at]...)
	res = append(res, Entry{Kept: r.Pinned})
	return append(res, out[at:]...)
}

// Adapter describes one adapter binary.
type Adapter struct {
	Reduce        func(*Request) ([]Entry, error)
	Format        string   // the kit's wire format: "openai" (the only one read here so far)
	Module        string   // the library's Go module, for --probe
	Configs       []string // the values --config takes (nil: none)
	DefaultConfig string
}

// Serve runs an adapter from its command line (see the package comment).
func Serve(a Adapter) {
	os.Exit(run(a, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(a Adapter, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	persistent, probe := false, false
	config := a.DefaultConfig
	for i := 0; i < len(argv); i++ {
		switch {
		case argv[i] == "--persistent":
			persistent = true
		case argv[i] == "--probe":
			probe = true
		case argv[i] == "--config" && i+1 < len(argv):
			config = argv[i+1]
			i++
		default:
			fmt.Fprintf(stderr, "usage: adapter [--config %s] [--persistent] [--probe]\n", strings.Join(a.Configs, "|"))
			return 2
		}
	}
	if a.Configs != nil && !contains(a.Configs, config) {
		fmt.Fprintf(stderr, "unknown --config %q (one of %s)\n", config, strings.Join(a.Configs, ", "))
		return 2
	}
	if probe {
		version := ModuleVersion(a.Module)
		if version == "" {
			fmt.Fprintf(stderr, "%s is not linked into this adapter\n", a.Module)
			return 3
		}
		out, _ := json.Marshal(map[string]string{"package": a.Module, "version": version})
		fmt.Fprintln(stdout, string(out))
		return 0
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	if !persistent {
		body, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "cannot read stdin: %v\n", err)
			return 2
		}
		w.WriteString(Answer(body, a, config))
		w.WriteByte('\n')
		return 0
	}
	in := bufio.NewReader(stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			w.WriteString(Answer(line, a, config))
			w.WriteByte('\n')
			w.Flush()
		}
		if err != nil {
			return 0
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ModuleVersion is the version of `module` linked into this binary, or "".
func ModuleVersion(module string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range info.Deps {
		if d.Path == module {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}

// Answer is the response line (without its newline) for one request line,
// with the request's id first when it has one.
func Answer(line []byte, a Adapter, config string) string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return errorText(nil, "the request is not a JSON object: "+err.Error())
	}
	id := obj["id"]
	req, err := Parse(obj, a.Format)
	if err != nil {
		return errorText(id, err.Error())
	}
	req.Config = config
	out, err := call(a.Reduce, req)
	var unsupported Unsupported
	switch {
	case errors.As(err, &unsupported):
		if id == nil {
			return errorText(nil, unsupported.Why)
		}
		return withID(id, mustJSON(map[string]string{"unsupported": unsupported.Why}))
	case err != nil:
		return errorText(id, err.Error())
	}
	parts := make([]string, len(out))
	for i, e := range out {
		if e.Kept != nil {
			parts[i] = string(e.Kept.Raw)
		} else {
			parts[i] = mustJSON(e.Made)
		}
	}
	return withID(id, `{"messages":[`+strings.Join(parts, ",")+`]}`)
}

// call runs the reduce function, answering a library panic as an error.
func call(reduce func(*Request) ([]Entry, error), req *Request) (out []Entry, err error) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "compat adapter: the library panicked: %v\n", p)
			out, err = nil, fmt.Errorf("the library panicked: %v", p)
		}
	}()
	out, err = reduce(req)
	var bad BadRequest
	var unsupported Unsupported
	if err != nil && !errors.As(err, &bad) && !errors.As(err, &unsupported) {
		err = fmt.Errorf("the library failed: %w", err)
	}
	return out, err
}

func mustJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimRight(buf.String(), "\n")
}

func errorText(id json.RawMessage, why string) string {
	return withID(id, mustJSON(map[string]string{"error": why}))
}

// withID puts `"id":<its exact text>` first in the object `body`.
func withID(id json.RawMessage, body string) string {
	if id == nil {
		return body
	}
	if body == "{}" {
		return `{"id":` + string(id) + `}`
	}
	return `{"id":` + string(id) + "," + body[1:]
}

// Parse reads a request object (spec §8.1, §13.1).
func Parse(obj map[string]json.RawMessage, format string) (*Request, error) {
	if format != "openai" {
		return nil, BadRequest{"this adapter reads the openai format only"}
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(obj["messages"], &raws); err != nil || obj["messages"] == nil || raws == nil {
		return nil, BadRequest{"`messages` is not an array"}
	}
	r := &Request{SummaryTokens: 1}
	for i, raw := range raws {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
			return nil, BadRequest{fmt.Sprintf("message %d is not an object", i)}
		}
		m := &Message{Raw: raw, Fields: fields, Index: i, Tokens: 1}
		role, ok := m.String("role")
		if !ok {
			return nil, BadRequest{fmt.Sprintf("message %d has no string `role`", i)}
		}
		m.Role = asciiLower(role)
		if m.Role == "developer" {
			m.Role = "system"
		}
		if r.Pinned == nil && m.Role == "system" {
			m.Pinned = true
			r.Pinned = m
		}
		r.Messages = append(r.Messages, m)
	}
	_, hasTokens := obj["maxTokens"]
	_, hasMessages := obj["maxMessages"]
	var err error
	switch {
	case hasTokens && hasMessages:
		return nil, BadRequest{"the request has both maxMessages and maxTokens (exactly one is allowed)"}
	case !hasTokens:
		r.BudgetKind = "messages"
		if r.Budget, err = ParseBudget(obj["maxMessages"], "maxMessages"); err != nil {
			return nil, err
		}
	default:
		r.BudgetKind = "tokens"
		if r.Budget, err = ParseBudget(obj["maxTokens"], "maxTokens"); err != nil {
			return nil, err
		}
		var tokens []json.RawMessage
		if json.Unmarshal(obj["tokens"], &tokens) != nil || tokens == nil || len(tokens) != len(r.Messages) {
			return nil, BadRequest{"`tokens` must be an array with one cost per message"}
		}
		for i, t := range tokens {
			if r.Messages[i].Tokens, err = ParseCount(t, fmt.Sprintf("tokens[%d]", i)); err != nil {
				return nil, err
			}
		}
		if raw, ok := obj["countPinned"]; ok {
			if json.Unmarshal(raw, &r.CountPinned) != nil {
				return nil, BadRequest{"`countPinned` must be true or false"}
			}
		}
		if r.CountPinned && r.Pinned != nil && r.Budget != NoLimit && r.Pinned.Tokens > r.Budget {
			return nil, BadRequest{fmt.Sprintf("countPinned: the pinned system message alone costs %d > maxTokens %d",
				r.Pinned.Tokens, r.Budget)}
		}
	}
	if raw, ok := obj["summary"]; ok {
		if json.Unmarshal(raw, &r.Summary) != nil {
			return nil, BadRequest{"`summary` must be true or false"}
		}
	}
	if raw, ok := obj["summaryTokens"]; ok {
		if r.SummaryTokens, err = ParseCount(raw, "summaryTokens"); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// number is a JSON number as digits × 10^exp (digits without leading or
// trailing zeros; "" for zero), read exactly from its text, however long
// its exponent.
type number struct {
	negative bool
	digits   string
	exp      int64 // saturated at ±(1<<62): beyond that the value is 0 or huge anyway
}

func parseNumber(raw json.RawMessage) (number, bool) {
	s := strings.TrimSpace(string(raw))
	var n number
	if s == "" {
		return n, false
	}
	if s[0] == '-' {
		n.negative = true
		s = s[1:]
	}
	mant, expText := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expText = s[:i], s[i+1:]
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) || (len(intPart) > 1 && intPart[0] == '0') ||
		(strings.Contains(mant, ".") && frac == "") {
		return n, false
	}
	var exp int64
	if expText != "" {
		neg := false
		if expText[0] == '+' || expText[0] == '-' {
			neg = expText[0] == '-'
			expText = expText[1:]
		}
		if expText == "" || !allDigits(expText) {
			return n, false
		}
		for _, c := range strings.TrimLeft(expText, "0") {
			if exp > 1<<58 {
				exp = 1 << 62
				break
			}
			exp = exp*10 + int64(c-'0')
		}
		if neg {
			exp = -exp
		}
	}
	digits := intPart + frac
	exp -= int64(len(frac))
	digits = strings.TrimLeft(digits, "0")
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	n.digits = trimmed
	n.exp = exp
	return n, true
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ParseBudget reads a budget as the kit reads one (spec §2): a JSON number
// whose value is a whole number >= 1, however it is written; a value with
// more than 19 digits means no limit (NoLimit). The adapter checks this
// before calling the library, as any caller turning a wire request into
// the library's integer knob has to: `rejects-bad-budget` judges the
// adapter, not the library.
func ParseBudget(raw json.RawMessage, name string) (int64, error) {
	bad := BadRequest{fmt.Sprintf("%s must be an integer >= 1, got %s", name, shown(raw))}
	n, ok := parseNumber(raw)
	if !ok || n.negative || n.digits == "" {
		return 0, bad
	}
	magnitude := int64(len(n.digits)) + n.exp // digits before the decimal point
	if magnitude <= 0 {
		return 0, bad // below 1
	}
	if magnitude > 19 {
		return NoLimit, nil
	}
	if n.exp < 0 {
		return 0, bad // a fraction
	}
	v, ok := toInt(n)
	if !ok {
		return NoLimit, nil
	}
	return v, nil
}

// ParseCount reads a cost: a whole number from 0 to 2^64 - 1 (spec §11.2);
// a cost above math.MaxInt64 is kept as math.MaxInt64, above every budget
// but "no limit".
func ParseCount(raw json.RawMessage, name string) (int64, error) {
	bad := BadRequest{fmt.Sprintf("%s must be an integer >= 0, got %s", name, shown(raw))}
	n, ok := parseNumber(raw)
	if !ok {
		return 0, bad
	}
	if n.digits == "" {
		return 0, nil
	}
	if n.negative || n.exp < 0 {
		return 0, bad
	}
	if int64(len(n.digits))+n.exp > 20 {
		return 0, bad
	}
	v, ok := toInt(n)
	if !ok {
		// 2^63 up to 2^64 - 1 is a cost; more is not
		var u uint64
		big := false
		for _, c := range n.digits + strings.Repeat("0", int(n.exp)) {
			d := uint64(c - '0')
			if u > (math.MaxUint64-d)/10 {
				big = true
				break
			}
			u = u*10 + d
		}
		if big {
			return 0, bad
		}
		return math.MaxInt64, nil
	}
	return v, nil
}

func toInt(n number) (int64, bool) {
	if int64(len(n.digits))+n.exp > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range n.digits {
		v = v*10 + uint64(c-'0')
	}
	for i := int64(0); i < n.exp; i++ {
		if v > math.MaxInt64/10 {
			return 0, false
		}
		v *= 10
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

func shown(raw json.RawMessage) string {
	if raw == nil {
		return "nothing"
	}
	s := string(raw)
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}
