package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"contractkit/conformance/exchange"
	"contractkit/spec"
)

// The body against the contract: a response is validated against a view
// of spec/openapi.yaml and every mismatch comes back as one readable line,
// traced to the decision that shaped the rule (decisions.go).

// Mismatch is one difference between a response and a contract view.
type Mismatch struct {
	// Text is the readable line ("$.data.status: value must be ... (got "ok")").
	Text string
	// Decision is the x-decision id nearest to the mismatched schema, or ""
	// when the rule is the seed's.
	Decision string
	// StatusCode is set when the mismatch is an undocumented status code.
	StatusCode bool
}

// ContractMismatches validates the response of x against a contract view and
// returns every mismatch, sorted, one line each: the field path, the reason,
// and the offending value when it is short. It never echoes the schema.
func ContractMismatches(c *spec.Contract, x *exchange.Exchange) []Mismatch {
	if x.Error != "" || x.Status == 0 {
		return nil
	}
	req, err := http.NewRequest(x.Method, "http://contract.invalid"+x.Path, nil)
	if err != nil {
		return []Mismatch{{Text: "request: " + err.Error()}}
	}
	if u := queryOf(x.URL); u != "" {
		req.URL.RawQuery = u
	}
	if _, _, err := c.Router.FindRoute(req); err != nil {
		// Not a path (or method) of the contract: nothing to validate
		// against; the check judges the envelope and the status itself.
		return nil
	}
	resp := &http.Response{
		StatusCode: x.Status,
		Header:     x.ResponseHeader.Clone(),
		Body:       http.NoBody,
		Request:    req,
	}
	resp.Body = io.NopCloser(bytes.NewReader(x.Raw))
	ok, errs := c.Validator.ValidateHttpResponse(req, resp)
	if ok {
		return nil
	}
	body, _ := ParseJSON(x.Raw)
	var out []Mismatch
	for _, e := range errs {
		if len(e.SchemaValidationErrors) == 0 {
			out = append(out, Mismatch{
				Text:       "response: " + e.Message,
				StatusCode: e.ValidationSubType == "statusCode",
				Decision:   responseDecision(c, req, x.Status),
			})
			continue
		}
		for _, s := range e.SchemaValidationErrors {
			field := s.FieldPath
			if field == "" {
				field = "$"
			}
			line := fmt.Sprintf("%s: %s", field, s.Reason)
			if !strings.Contains(s.Reason, "got ") {
				if got, ok := body.Path(field); ok {
					if g := scalarText(got.v); g != "" {
						line += " (got " + g + ")"
					}
				}
			}
			out = append(out, Mismatch{Text: line, Decision: schemaDecision(c, req, x.Status, mediaType(x.ResponseHeader), field)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	return dedupe(out)
}

func dedupe(ms []Mismatch) []Mismatch {
	var out []Mismatch
	for i, m := range ms {
		if i > 0 && ms[i-1].Text == m.Text {
			continue
		}
		out = append(out, m)
	}
	return out
}

func queryOf(u string) string {
	_, q, _ := strings.Cut(u, "?")
	return q
}

func mediaType(h http.Header) string {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return mt
}

func scalarText(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(shorten(t, 80))
	case bool, json.Number, float64:
		return fmt.Sprint(t)
	}
	return ""
}
