package conformance

import (
	"net/http"
	"strings"
	"testing"

	"contractkit/conformance/exchange"
)

func TestEnvelopeProblems(t *testing.T) {
	tests := []struct {
		name, body, want string
		problems         []string
	}{
		{"success", `{"status":"success","data":[]}`, "success", nil},
		{"success with null data", `{"status":"success","data":null}`, "success", nil},
		{"success with extra fields", `{"status":"success","data":{},"meta":1}`, "success", nil},
		{"success without data", `{"status":"success"}`, "success", []string{"$.data: missing"}},
		{"success with another status", `{"status":"ok","data":{}}`, "success", []string{`$.status: "ok", want "success"`}},
		{"a bare list", `[1,2]`, "success", []string{"a JSON array, want an object"}},
		{"not JSON", `<html>`, "success", []string{"body: not JSON"}},
		{"error", `{"status":"error","message":"nope"}`, "error", nil},
		{"error without message", `{"status":"error"}`, "error", []string{"$.message: missing"}},
		{"error with an empty message", `{"status":"error","message":""}`, "error", nil},
		{"error with a blank message", `{"status":"error","message":" "}`, "error", nil},
		{"error with a numeric message", `{"status":"error","message":3}`, "error", []string{"$.message: a number"}},
		{"error without status", `{"message":"x"}`, "error", []string{`$.status: missing, want "error"`}},
		{"error with a boolean status", `{"status":false,"message":"x"}`, "error", []string{"$.status: a boolean"}},
		{"every problem at once", `{"status":"success"}`, "error", []string{`$.status: "success", want "error"`, "$.message: missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EnvelopeProblems([]byte(tt.body), tt.want)
			if len(got) != len(tt.problems) {
				t.Fatalf("got %q, want %q", got, tt.problems)
			}
			for i := range got {
				if !strings.Contains(got[i], tt.problems[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], tt.problems[i])
				}
			}
		})
	}
}

func TestJSONContentType(t *testing.T) {
	tests := []struct {
		ct string
		ok bool
	}{
		{"application/json", true},
		{"application/json; charset=utf-8", true},
		{"Application/JSON;charset=UTF-8", true},
		{"", false},
		{"text/plain", false},
		{"application/problem+json", false},
		{"application/json; charset", false},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.ct != "" {
			h.Set("Content-Type", tt.ct)
		}
		if got := JSONContentTypeProblems(h); (len(got) == 0) != tt.ok {
			t.Errorf("Content-Type %q: problems %q, want ok=%v", tt.ct, got, tt.ok)
		}
	}
}

func TestStatusProblems(t *testing.T) {
	x := &exchange.Exchange{Status: 409}
	if p := StatusProblems(x); len(p) != 0 {
		t.Errorf("409 as any 4xx: %q", p)
	}
	if p := StatusProblems(x, 400, 422); len(p) != 1 || p[0] != "status: 409, want 400 or 422" {
		t.Errorf("409 against 400, 422: %q", p)
	}
	if p := StatusProblems(&exchange.Exchange{Status: 200}); len(p) != 1 {
		t.Errorf("200 as a 4xx: %q", p)
	}
	if p := StatusProblems(&exchange.Exchange{Error: "connection refused"}); len(p) != 1 || !strings.Contains(p[0], "no response") {
		t.Errorf("no response: %q", p)
	}
}
