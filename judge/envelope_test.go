package judge

import (
	"net/http"
	"strings"
	"testing"

	"contractkit/exchange"
)

func TestEnvelope(t *testing.T) {
	tests := []struct {
		name, body, want string
		problems         []string
	}{
		{"success", `{"status":"success","data":[]}`, "success", nil},
		{"success with null data", `{"status":"success","data":null}`, "success", nil},
		{"success with extra fields", `{"status":"success","data":{},"meta":1}`, "success", nil},
		{"success without data", `{"status":"success"}`, "success", []string{"/data: envelope: want present (a successful response is {status, data}), got missing (§1.1)"}},
		{"success with another status", `{"status":"ok","data":{}}`, "success", []string{`/status: envelope: want "success", got "ok" (§1.1)`}},
		{"a bare list", `[1,2]`, "success", []string{"envelope: want a JSON object {status, data}, got a JSON array (§1.1)"}},
		{"not JSON", `<html>`, "success", []string{"envelope: want a JSON object {status, data}, got not JSON"}},
		{"error", `{"status":"error","message":"nope"}`, "error", nil},
		{"error without message", `{"status":"error"}`, "error", []string{"/message: envelope: want a string (a failed response is {status, message}), got missing (§1.2)"}},
		{"error with an empty message", `{"status":"error","message":""}`, "error", nil},
		{"error with a blank message", `{"status":"error","message":" "}`, "error", nil},
		{"error with a numeric message", `{"status":"error","message":3}`, "error", []string{"/message: envelope: want a string, got a number"}},
		{"error without status", `{"message":"x"}`, "error", []string{`/status: envelope: want "error", got missing`}},
		{"error with a boolean status", `{"status":false,"message":"x"}`, "error", []string{`/status: envelope: want the string "error", got a boolean`}},
		{"every problem at once", `{"status":"success"}`, "error", []string{`/status: envelope: want "error", got "success"`, "/message: envelope: want a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Envelope([]byte(tt.body), tt.want).Lines()
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
		if got := ContentType(h, "application/json"); (len(got) == 0) != tt.ok {
			t.Errorf("Content-Type %q: problems %q, want ok=%v", tt.ct, got, tt.ok)
		}
	}
}

func TestStatus(t *testing.T) {
	x := &exchange.Exchange{Status: 409}
	if p := Status(x); len(p) != 0 {
		t.Errorf("409 as any 4xx: %q", p.Lines())
	}
	if p := Status(x, 400, 422).Lines(); len(p) != 1 || p[0] != "status: want 400 or 422, got 409" {
		t.Errorf("409 against 400, 422: %q", p)
	}
	if p := Status(&exchange.Exchange{Status: 200}); len(p) != 1 {
		t.Errorf("200 as a 4xx: %q", p.Lines())
	}
	if p := Success(&exchange.Exchange{Status: 201}); len(p) != 0 {
		t.Errorf("201 as a success: %q", p.Lines())
	}
	if p := Success(x).Lines(); len(p) != 1 || p[0] != "status: want a 2xx success, got 409" {
		t.Errorf("409 as a success: %q", p)
	}
	if p := Status(&exchange.Exchange{Error: "connection refused"}).Lines(); len(p) != 1 || p[0] != "answer: want an answer, got none: connection refused" {
		t.Errorf("no response: %q", p)
	}
}
