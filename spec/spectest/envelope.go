package spectest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// envelopeProblems applies the seed's envelope rules (§1) to an answer that
// is not an event stream: every body is JSON (rule 3) and one object, a
// success is {status: "success", data} (rule 1) and a failure {status:
// "error", message: a string} (rule 2), each with a status code of its
// class. 204 carries no body at all.
func envelopeProblems(resp *http.Response, body []byte) []string {
	if resp.StatusCode == http.StatusNoContent {
		if len(body) != 0 {
			return []string{"204 with a body"}
		}
		return nil
	}
	if got := resp.Header.Get("Content-Type"); mediaType(got) != "application/json" {
		return []string{fmt.Sprintf("Content-Type %q, want application/json (seed §1.3)", got)}
	}
	var env map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&env); err != nil || dec.More() || env == nil {
		return []string{"the body is not one JSON object (seed §1)"}
	}
	var status string
	_ = json.Unmarshal(env["status"], &status)
	var out []string
	switch status {
	case "success":
		if resp.StatusCode/100 != 2 {
			out = append(out, "a success envelope with an error status (seed §1.1)")
		}
		if _, ok := env["data"]; !ok {
			out = append(out, "a success envelope without data (seed §1.1)")
		}
	case "error":
		var msg string
		if err := json.Unmarshal(env["message"], &msg); err != nil {
			out = append(out, "an error envelope without a message string (seed §1.2)")
		}
		if resp.StatusCode < 400 {
			out = append(out, "an error envelope with a success status (seed §1.2)")
		}
	default:
		out = append(out, fmt.Sprintf("status is %s, want \"success\" or \"error\" (seed §1)", orMissing(env["status"])))
	}
	return out
}

func orMissing(raw json.RawMessage) string {
	if raw == nil {
		return "missing"
	}
	return string(raw)
}

// schemaProblem is a kin-openapi schema error as one "field: rule" line,
// without the schema dump.
func schemaProblem(err error) string {
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		field := strings.Join(se.JSONPointer(), ".")
		if field == "" {
			field = "(the value)"
		}
		return field + ": " + se.Reason
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}
