package exchange

import (
	"net/http"
	"sort"
	"strings"

	"contractkit/internal/curl"
)

// Redactor removes the API keys from everything the kit reports.
type Redactor struct {
	secrets []secret
}

type secret struct{ value, label, envVar string }

// NewRedactor redacts key (shown as $CONFORMANCE_API_KEY in curl commands)
// and key2 (as $CONFORMANCE_API_KEY_2). Empty keys are ignored.
func NewRedactor(key, key2 string) *Redactor {
	r := &Redactor{}
	if key != "" {
		r.secrets = append(r.secrets, secret{key, "<redacted:api-key>", "CONFORMANCE_API_KEY"})
	}
	if key2 != "" {
		r.secrets = append(r.secrets, secret{key2, "<redacted:api-key-2>", "CONFORMANCE_API_KEY_2"})
	}
	// The longer key first, so a key that contains the other is removed
	// whole. (One key needs no sorting: sort.Slice allocates even then, and
	// the validating proxy makes a Redactor at each stage of every exchange.)
	if len(r.secrets) > 1 {
		sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i].value) > len(r.secrets[j].value) })
	}
	return r
}

// Also redacts value too, shown as label (and quoted as label in curl
// commands: no variable holds it); "" is ignored. It returns r.
func (r *Redactor) Also(value, label string) *Redactor {
	if value != "" {
		r.secrets = append(r.secrets, secret{value, label, ""})
		sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i].value) > len(r.secrets[j].value) })
	}
	return r
}

// String replaces every occurrence of a key in s by a placeholder.
func (r *Redactor) String(s string) string {
	for _, k := range r.secrets {
		s = strings.ReplaceAll(s, k.value, k.label)
	}
	return s
}

// Header returns a redacted copy of h.
func (r *Redactor) Header(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if len(vs) > 0 { // a key without values is left out
			out[k] = r.values(vs)
		}
	}
	return out
}

// values redacts each value of a header into a new slice.
func (r *Redactor) values(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = r.String(v)
	}
	return out
}

// ShellValue renders v as a shell word: a key becomes a reference to its
// environment variable inside double quotes, anything else single-quoted.
func (r *Redactor) ShellValue(v string) string {
	for _, k := range r.secrets {
		if strings.Contains(v, k.value) && k.envVar == "" {
			return curl.Quote(r.String(v))
		}
		if strings.Contains(v, k.value) {
			return curl.Ref(v, k.value, k.envVar, r.String)
		}
	}
	return curl.Quote(v)
}
