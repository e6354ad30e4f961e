package refmodel

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"

	"contractkit/judge"
)

// Values as the model compares them: JSON decoded with numbers kept as
// json.Number (or any Go number a caller built), text compared after
// trimming and Unicode normalisation (a server may trim and normalise; the
// reference does not forbid it), an id sent as a string read as a number.

// number reads a JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}

func normText(s string) string { return norm.NFC.String(strings.TrimSpace(s)) }

// same reports whether got (read) is want (written or remembered).
func same(got, want any) bool {
	if want == nil || got == nil {
		return want == nil && got == nil
	}
	if ws, ok := want.(string); ok {
		switch g := got.(type) {
		case string:
			return normText(g) == normText(ws)
		case json.Number:
			if g.String() == strings.TrimSpace(ws) {
				return true
			}
			wf, err := strconv.ParseFloat(strings.TrimSpace(ws), 64)
			gf, gerr := g.Float64()
			return err == nil && gerr == nil && wf == gf // an id sent with leading zeros (D-20)
		}
		if gf, ok := number(got); ok {
			wf, err := strconv.ParseFloat(strings.TrimSpace(ws), 64)
			return err == nil && wf == gf
		}
		return false
	}
	if wf, ok := number(want); ok {
		if gs, ok := got.(string); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(gs), 64)
			return err == nil && f == wf
		}
		gf, ok := number(got)
		return ok && (gf == wf || math.Abs(gf-wf) <= 1e-9*math.Max(math.Abs(wf), 1))
	}
	if wb, ok := want.(bool); ok {
		gb, ok := got.(bool)
		return ok && gb == wb
	}
	return reflect.DeepEqual(judge.Canonical(got), judge.Canonical(want))
}

// show renders a value for a finding, shortened.
func show(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

// idString renders an id (a string or a number) as the model keys it.
func idString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	if f, ok := number(v); ok && f == math.Trunc(f) {
		return strconv.FormatInt(int64(f), 10)
	}
	return ""
}

// instant reads an RFC 3339 time.
func instant(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// blank reports whether a value is absent in a way a server may send it:
// null, "", an empty list or object.
func blank(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// object reads a JSON object.
func object(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

// array reads a JSON array.
func array(v any) ([]any, bool) {
	a, ok := v.([]any)
	return a, ok
}

// dig reads a field of an object, (nil, false) when it is not there.
func dig(v any, key string) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	x, ok := m[key]
	return x, ok
}
