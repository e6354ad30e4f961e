// Package judge holds the suite's judges: what a request breaks (the
// client's fault) and what an answer breaks (the server's), as values. It
// links no test framework, so the suite's written checks, its explore
// phase and the validating proxy all call it, and the same exchange gets
// the same verdict whoever judges it.
package judge

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Class says what a finding weighs in a verdict.
type Class int

const (
	// Declared: the rule is a clause of the API reference; breaking it
	// fails a run.
	Declared Class = iota
	// Decided: the rule is our reading (a row of spec/DECISIONS.md, or
	// the meaning of a field's name); it is reported, and fails a run
	// only under --strict.
	Decided
	// Noted: worth telling (a 4xx where the reference shows no limit),
	// never a failure.
	Noted
)

var classNames = [...]string{Declared: "declared", Decided: "decided", Noted: "noted"}

// String names the class.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// MarshalText writes the class's name.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a class's name.
func (c *Class) UnmarshalText(b []byte) error {
	for i, n := range classNames {
		if n == string(b) {
			*c = Class(i)
			return nil
		}
	}
	return fmt.Errorf("judge: unknown class %q", b)
}

// Side says whose fault a finding is.
type Side int

const (
	// Server: the answer breaks the rule.
	Server Side = iota
	// Client: the request breaks the declared contract; never counted
	// against the server.
	Client
)

// String names the side.
func (s Side) String() string {
	if s == Client {
		return "client"
	}
	return "server"
}

// MarshalText writes the side's name.
func (s Side) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a side's name.
func (s *Side) UnmarshalText(b []byte) error {
	switch string(b) {
	case "server":
		*s = Server
	case "client":
		*s = Client
	default:
		return fmt.Errorf("judge: unknown side %q", b)
	}
	return nil
}

// Finding is one rule an exchange breaks, as a value: reports render it,
// deduplication and caches key on it, and nothing parses its text.
type Finding struct {
	// Operation is the contract's operationId, "" outside the contract.
	Operation string `json:"operation,omitempty"`
	// Side is whose fault it is.
	Side Side `json:"side"`
	// Pointer locates what breaks the rule: a JSON pointer (RFC 6901)
	// into the body of the answer (Side Server) or the request (Side
	// Client), "/data/name"; "" for the body as a whole. Other places
	// carry a prefix: "header:Content-Type", "status", "query:limit",
	// "path:model_id", "part:file" (a multipart part), "stream:3" (the
	// third event), "stream:end"; "answer" for the answer as such.
	Pointer string `json:"pointer,omitempty"`
	// Rule names the rule broken, stably across runs ("status",
	// "content-type", "envelope", "schema", "stream", ...): findings with
	// the same Operation, Pointer and Rule are the same break.
	Rule string `json:"rule"`
	// Expected and Got say what the rule wants and what came, shortly
	// (never a whole body, never a key).
	Expected string `json:"expected,omitempty"`
	Got      string `json:"got,omitempty"`
	// Decision is the DECISIONS.md row the rule rests on ("D-17"), ""
	// when it rests on a clause of the reference.
	Decision string `json:"decision,omitempty"`
	// Clause is the reference's section the rule rests on ("4.5"), when
	// known.
	Clause string `json:"clause,omitempty"`
	// Class is what the finding weighs (Declared unless a decision or a
	// note).
	Class Class `json:"class"`
}

// Key is what makes two findings the same break: everything but Got, so a
// break seen with other values (ids, texts) is counted once.
func (f Finding) Key() string {
	return strings.Join([]string{f.Operation, f.Side.String(), f.Pointer, f.Rule, f.Expected, f.Decision, f.Class.String()}, "\x1f")
}

// String renders the finding on one line: "pointer: rule: want …, got …",
// with its decision or clause (the pointer left out when it is the rule's
// own name: "status: want 200, got 404").
func (f Finding) String() string {
	var b strings.Builder
	if f.Pointer != "" && f.Pointer != f.Rule {
		b.WriteString(f.Pointer)
		b.WriteString(": ")
	}
	b.WriteString(f.Rule)
	switch {
	case f.Expected != "" && f.Got != "":
		fmt.Fprintf(&b, ": want %s, got %s", f.Expected, f.Got)
	case f.Expected != "":
		fmt.Fprintf(&b, ": want %s", f.Expected)
	case f.Got != "":
		fmt.Fprintf(&b, ": got %s", f.Got)
	}
	switch {
	case f.Decision != "":
		fmt.Fprintf(&b, " (%s)", f.Decision)
	case f.Clause != "":
		fmt.Fprintf(&b, " (§%s)", f.Clause)
	}
	return b.String()
}

// MarshalJSON adds the rendered line, so a JSON report reads without the
// renderer.
func (f Finding) MarshalJSON() ([]byte, error) {
	type plain Finding
	return json.Marshal(struct {
		plain
		Text string `json:"text"`
	}{plain(f), f.String()})
}
