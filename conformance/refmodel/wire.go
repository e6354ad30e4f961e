package refmodel

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"contractkit/judge"
)

// Wire is how a call is carried, apart from what it says: the transports
// and spellings a server reads as the plain request (RFC 9110, RFC 9112,
// RFC 3986; D-49). The zero Wire is the senders' plain way: a body with
// its Content-Length and no expectation, a query as url.Values.Encode
// writes it (a space as +), path ids escaped as url.PathEscape does.
type Wire struct {
	// Chunked: the body goes with Transfer-Encoding: chunked and no
	// Content-Length (fetch with a stream body, curl -T -, Node's
	// http.request without a length, Python's generators).
	Chunked bool
	// Continue: the call asks Expect: 100-continue and waits for the
	// server's 100 before it sends its body (curl past 1 KiB, .NET).
	Continue bool
	// Space is how a space in the query is written: "" as the sender
	// encodes (+), SpacePlus or SpacePercent.
	Space string
	// Escaped: every byte of each path id is percent-encoded (%34 for 4).
	Escaped bool
}

// The spellings of a space in a query (Wire.Space).
const (
	SpacePlus    = "+"
	SpacePercent = "%20"
)

// RawQuery is the call's query string as it goes on the wire.
func (c Call) RawQuery() string {
	q := c.Query.Encode()
	if c.Wire.Space == SpacePercent {
		q = strings.ReplaceAll(q, "+", "%20") // Encode writes a plus itself as %2B
	}
	return q
}

// PathOf is the path of the operation's template with the call's path
// parameters in it, escaped as its Wire says.
func (c Call) PathOf(template string) string {
	for name, v := range c.Path {
		esc := url.PathEscape(v)
		if c.Wire.Escaped {
			var b strings.Builder
			for i := 0; i < len(v); i++ {
				fmt.Fprintf(&b, "%%%02X", v[i])
			}
			esc = b.String()
		}
		template = strings.ReplaceAll(template, "{"+name+"}", esc)
	}
	return template
}

// spelling names how the call is carried other than the plain way (the
// Wire's part of encodingOf).
func spelling(c Call) []string {
	var out []string
	w := c.Wire
	body := c.Body != nil || c.Raw != nil || c.Form != nil
	if w.Chunked && body {
		out = append(out, "a body sent chunked (no Content-Length)")
	}
	if w.Continue && body {
		out = append(out, "Expect: 100-continue")
	}
	if w.Space != "" && strings.Contains(strings.Join(queryValues(c.Query), ""), " ") {
		out = append(out, "a space in the query written "+w.Space)
	}
	if w.Escaped && len(c.Path) > 0 {
		out = append(out, "path ids percent-encoded")
	}
	return out
}

func queryValues(q url.Values) []string {
	var out []string
	for _, vs := range q {
		out = append(out, vs...)
	}
	return out
}

// maxTwins bounds the requests the model remembers the spellings of.
const maxTwins = 1 << 14

// twinKey names a call's request whatever its spelling: the same key,
// another spelling is its twin.
func twinKey(c Call) [32]byte {
	c.Wire, c.ContentType = Wire{}, mediaOf(c)
	b, _ := json.Marshal(c)
	return sha256.Sum256(b)
}

// twins applies D-49 to a verdict: a request a server answered as predicted
// in one spelling must be answered the same in another, so a prediction an
// answer breaks while the same request spelt otherwise met them all is a
// declared break (§1, D-49), whatever the class of the prediction it
// happened to meet. An answer that meets every prediction is remembered as
// its spelling's.
func (m *Model) twins(x *expectation, a Answer, v *Verdict) {
	if a.Status == 0 || a.Status == 429 || a.Status >= 500 || a.Cut || x.acct == nil {
		return
	}
	key, enc := twinKey(x.call), encodingOf(x.call, x.op)
	if m.spelt == nil {
		m.spelt = map[[32]byte]map[string]bool{}
	}
	seen := m.spelt[key]
	if len(v.Findings) == 0 && len(v.Timing) == 0 {
		if seen == nil && len(m.spelt) < maxTwins {
			seen = map[string]bool{}
			m.spelt[key] = seen
		}
		if seen != nil {
			seen[enc] = true
		}
		return
	}
	var others []string
	for other := range seen {
		if other != enc {
			others = append(others, other)
		}
	}
	if len(others) == 0 {
		return
	}
	slices.Sort(others) // "" (spelt plainly) first: the report reads the same every run
	twin := others[0]
	if twin == "" {
		twin = "spelt plainly"
	}
	for i, f := range v.Findings {
		if f.Class == judge.Declared {
			continue
		}
		f.Class, f.Clause, f.Decision = judge.Declared, "1", ""
		f.Expected += fmt.Sprintf(" (the same request %s was answered so: D-49)", twin)
		v.Findings[i] = f
	}
}
