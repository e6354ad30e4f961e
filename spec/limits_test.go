package spec

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestRequestLimitsAreTheDocuments: both views read D-15's numbers from the
// x-request-limits mark.
func TestRequestLimitsAreTheDocuments(t *testing.T) {
	want := Limits{JSONBodyBytes: 1 << 20, MultipartBodyBytes: 100 << 20, JSONDepth: 64, FormFieldBytes: 16 << 10, MultipartParts: 1000}
	if got := RequestLimits(); got != want {
		t.Errorf("RequestLimits() = %+v, want %+v", got, want)
	}
	if got := Declared().Limits; got != want {
		t.Errorf("declared view: %+v, want %+v", got, want)
	}
}

// TestBuildRefusesADocumentWithoutLimits: the mark is read when the contract
// loads, so a document that lost it stops every binary's start.
func TestBuildRefusesADocumentWithoutLimits(t *testing.T) {
	var kept []string
	for _, line := range strings.SplitAfter(string(Document), "\n") {
		if !strings.HasPrefix(line, "x-request-limits:") {
			kept = append(kept, line)
		}
	}
	doc := strings.Join(kept, "")
	if doc == string(Document) {
		t.Fatal("the document has no x-request-limits line to remove")
	}
	if _, err := Build([]byte(doc)); err == nil || !strings.Contains(err.Error(), "no x-request-limits") {
		t.Errorf("Build: got %v, want the missing mark named", err)
	}
}

func TestLimitsOfRefusesAMalformedMark(t *testing.T) {
	good := func() map[string]any {
		return map[string]any{"json-body-bytes": 1048576.0, "multipart-body-bytes": 104857600.0, "json-depth": 64.0, "form-field-bytes": 16384.0, "multipart-parts": 1000.0, "decision": "D-15"}
	}
	with := func(k string, v any) map[string]any {
		m := good()
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for _, tc := range []struct {
		name string
		mark any
		want string
	}{
		{"not a mapping", "1 MiB", "not a mapping"},
		{"no body bytes", with("json-body-bytes", nil), "json-body-bytes"},
		{"a string", with("multipart-body-bytes", "100 MiB"), "multipart-body-bytes"},
		{"a fraction", with("json-depth", 64.5), "json-depth"},
		{"zero", with("json-depth", 0.0), "json-depth"},
		{"negative", with("json-body-bytes", -1.0), "json-body-bytes"},
		{"other decision", with("decision", "D-17"), `decision "D-17"`},
		{"extra key", with("file-count", 500.0), `key "file-count"`},
		{"no part count", with("multipart-parts", nil), "multipart-parts"},
	} {
		doc := &openapi3.T{Extensions: map[string]any{"x-request-limits": tc.mark}}
		if _, err := limitsOf(doc); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
	got, err := limitsOf(&openapi3.T{Extensions: map[string]any{"x-request-limits": good()}})
	if err != nil || got != (Limits{1048576, 104857600, 64, 16384, 1000}) {
		t.Errorf("a good mark: got %+v, %v", got, err)
	}
}
