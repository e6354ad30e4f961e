package mockserver

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/mockserver/apierr"
	"contractkit/spec"

	"contractkit/internal/textcut"
)

// preference is what a client asked for with the Prefer header, in Prism's
// spelling: `Prefer: code=404`, `Prefer: example=ready`, `Prefer: dynamic=true`
// (several may be combined with commas).
type preference struct {
	code    int
	example string
	dynamic bool
}

func parsePrefer(h string) (preference, error) {
	var p preference
	for _, part := range strings.FieldsFunc(h, func(r rune) bool { return r == ',' || r == ';' }) {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		v = strings.Trim(strings.TrimSpace(v), `"`)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "code":
			n, err := strconv.Atoi(v)
			if err != nil || n < 100 || n > 599 {
				return p, apierr.New(apierr.BadRequest, "Prefer: code must be an HTTP status (got %q)", textcut.Shorten(v, 20))
			}
			p.code = n
		case "example":
			p.example = v
		case "dynamic":
			p.dynamic = v == "true"
		}
		// Other preferences (return=minimal, respond-async, ...) are not ours to refuse.
	}
	return p, nil
}

// prefer answers a request the way its Prefer header asks, if it asks for
// anything this mock does: a documented error of the operation, a named
// example, or generated data. done reports that the answer was written.
func (s *Server) prefer(w http.ResponseWriter, r *http.Request, op *openapi3.Operation) (done bool, err error) {
	h := r.Header.Get("Prefer")
	if h == "" {
		return false, nil
	}
	p, err := parsePrefer(h)
	if err != nil {
		return false, err
	}
	if p.code != 0 && p.code != http.StatusOK {
		resp := op.Responses.Status(p.code)
		if resp == nil || resp.Value == nil {
			return false, apierr.New(apierr.Invalid, "Prefer: code=%d is not documented for %s (documented: %s)", p.code, op.OperationID, strings.Join(documented(op), ", "))
		}
		code, ok := apierr.CodeOf(p.code)
		if !ok {
			return false, apierr.New(apierr.Invalid, "Prefer: code=%d has no error envelope", p.code)
		}
		if p.code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		return true, &apierr.Error{Code: code, Message: exampleMessage(resp.Value)}
	}
	media := jsonContent(op)
	switch {
	case p.example != "":
		if media == nil || media.Examples[p.example] == nil || media.Examples[p.example].Value == nil {
			return false, apierr.New(apierr.Invalid, "Prefer: example=%q is not an example of %s (examples: %s)", textcut.Shorten(p.example, 40), op.OperationID, strings.Join(exampleNames(media), ", "))
		}
		apierr.WriteJSON(w, http.StatusOK, media.Examples[p.example].Value.Value)
		return true, nil
	case p.dynamic:
		if media == nil || media.Schema == nil {
			return false, apierr.New(apierr.Invalid, "Prefer: dynamic=true: %s has no JSON answer to generate", op.OperationID)
		}
		apierr.WriteJSON(w, http.StatusOK, newGenerator(s.cfg.Seed).value(media.Schema, "", 0))
		return true, nil
	}
	return false, nil
}

func jsonContent(op *openapi3.Operation) *openapi3.MediaType {
	resp := op.Responses.Status(http.StatusOK)
	if resp == nil || resp.Value == nil {
		return nil
	}
	return resp.Value.Content.Get("application/json")
}

func documented(op *openapi3.Operation) []string {
	var codes []string
	for code := range op.Responses.Map() {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	return codes
}

func exampleNames(m *openapi3.MediaType) []string {
	if m == nil {
		return nil
	}
	var names []string
	for name := range m.Examples {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// exampleMessage is the message of the response's first example, or its
// description: what the real service would plausibly say.
func exampleMessage(resp *openapi3.Response) string {
	if m := resp.Content.Get("application/json"); m != nil {
		for _, name := range exampleNames(m) {
			if v, ok := m.Examples[name].Value.Value.(map[string]any); ok {
				if msg, ok := v["message"].(string); ok && msg != "" {
					return msg
				}
			}
		}
	}
	if resp.Description != nil {
		if lead, _ := spec.SplitNotes(*resp.Description); lead != "" {
			return lead // its plain words: the contract's notes are no answer's
		}
	}
	return "Error"
}
