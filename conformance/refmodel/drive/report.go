package drive

import (
	"encoding/json"
	"fmt"
	"strings"

	"contractkit/internal/textcut"
	"contractkit/judge"
)

// before is how many calls before a finding its report shows.
const before = 8

// Class are the findings that count of one class, each once (by its key:
// the same prediction broken by several calls is one finding).
func (r *Run) Class(c judge.Class) []Found { return once(r.Found, c) }

// Unsure are the unconfirmed findings, each once, whatever their class.
func (r *Run) Unsure() []Found {
	var out []Found
	for _, c := range []judge.Class{judge.Declared, judge.Decided, judge.Noted} {
		out = append(out, once(r.Unconfirmed, c)...)
	}
	return out
}

func once(fs []Found, c judge.Class) []Found {
	seen := map[string]bool{}
	var out []Found
	for _, f := range fs {
		if f.Finding.Class == c && !seen[f.Finding.Key()] {
			seen[f.Finding.Key()] = true
			out = append(out, f)
		}
	}
	return out
}

// Explain renders findings with the calls that led to each (the last
// "before" calls before it, and the replay that confirmed or did not
// confirm it).
func (r *Run) Explain(fs []Found) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s: %s (%s", f.Finding.Operation, f.Finding.Pointer, f.Finding.String(), f.Finding.Class)
		if f.Finding.Decision != "" {
			fmt.Fprintf(&b, ", %s", f.Finding.Decision)
		}
		if f.Finding.Clause != "" {
			fmt.Fprintf(&b, ", §%s", f.Finding.Clause)
		}
		fmt.Fprintf(&b, ")\n  seed %d, after:", r.Seed)
		for i := max(0, f.Step-before); i <= f.Step && i < len(r.Steps); i++ {
			fmt.Fprintf(&b, "\n    #%d %s", i, r.describe(i))
		}
		if f.Replay >= 0 && f.Replay < len(r.Steps) {
			fmt.Fprintf(&b, "\n  replayed: #%d %s", f.Replay, r.describe(f.Replay))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (r *Run) describe(i int) string {
	s := r.Steps[i]
	return describe(s.Call, s.Status)
}

// shortJSON renders a body on one line, cut to 160 characters.
func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return textcut.Shorten(string(b), 160)
}
