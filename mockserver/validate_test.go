package mockserver

import (
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"contractkit/spec"
)

// jsonBodies are the seeds of the checkJSON comparison: well-formed and
// broken bodies, nesting at and past the limit, brackets and escaped quotes
// inside strings.
var jsonBodies = []string{
	`{}`, `[]`, `{"a":1}`, `  {"a":[1,2,{"b":null}]}  `, `"text"`, `12`, `true`,
	`{"a":"[[[[{{{{"}`, `{"a":"quote \" then [ bracket"}`, `{"a":"backslash \\"}`, `{"a":"\\\" ]"}`,
	`{`, `}`, `{"a":}`, `{"a":1,}`, `[1 2]`, `{} {}`, `1 2`, `{"a":"unterminated}`, `nul`, `{"a":1}x`,
	strings.Repeat("[", 8) + strings.Repeat("]", 8),
	strings.Repeat("[", 9) + strings.Repeat("]", 9),
	strings.Repeat(`{"a":`, 9) + "1" + strings.Repeat("}", 9),
	strings.Repeat("[", 9) + strings.Repeat("]", 8),
	`["` + strings.Repeat("[", 20) + `"]`,
}

// checkJSON's fast path (json.Valid and a byte scan of the nesting) must
// judge every body exactly as the token walk does: the same error, or none.
func TestCheckJSONFastPathAgreesWithTheWalk(t *testing.T) {
	for _, body := range jsonBodies {
		assertSameJSONVerdict(t, []byte(body))
	}
}

func FuzzCheckJSON(f *testing.F) {
	for _, body := range jsonBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(strings.TrimSpace(string(body))) == 0 {
			return // answered before either path runs
		}
		assertSameJSONVerdict(t, body)
	})
}

// assertSameJSONVerdict compares the two paths with a depth limit of 8, so
// short bodies reach it.
func assertSameJSONVerdict(t *testing.T, body []byte) {
	t.Helper()
	const limit = 8
	got, want := checkJSON(body, limit), walkJSON(body, limit)
	if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
		t.Errorf("body %q: checkJSON got %v, the token walk %v", body, got, want)
	}
}

// mediaType's shortcut for a value without parameters gives what
// mime.ParseMediaType (with its fallback) gives.
func TestMediaTypeWithoutParametersMatchesTheParser(t *testing.T) {
	for _, h := range []string{"application/json", "Application/JSON", " text/event-stream ", "multipart/form-data",
		"bad value", "json", "text/", "/json", "a/b/c", "application/json;charset=utf-8", "APPLICATION/JSON; charset=UTF-8", "x;;"} {
		want := strings.ToLower(strings.TrimSpace(h))
		if mt, _, err := mime.ParseMediaType(h); err == nil {
			want = mt
		}
		if got := mediaType(h); got != want {
			t.Errorf("mediaType(%q) = %q, want %q", h, got, want)
		}
	}
}

// readJSONBody reads exactly the declared length, and refuses a body that
// ends before it, like io.ReadAll on net/http's body.
func TestReadJSONBodyReadsTheDeclaredLength(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"a":1}`))
	got, err := readJSONBody(r, spec.RequestLimits().JSONBodyBytes)
	if err != nil || string(got) != `{"a":1}` || cap(got) != len(got) {
		t.Fatalf("got %q (cap %d), %v; want the body in a buffer of its size", got, cap(got), err)
	}
	short := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"a":1}`))
	short.ContentLength = 20
	if _, err := readJSONBody(short, spec.RequestLimits().JSONBodyBytes); err == nil {
		t.Fatal("a body shorter than its Content-Length was accepted")
	}
	chunked := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`[1,2]`))
	chunked.ContentLength = -1
	if got, err := readJSONBody(chunked, spec.RequestLimits().JSONBodyBytes); err != nil || string(got) != `[1,2]` {
		t.Fatalf("unknown length: got %q, %v", got, err)
	}
}
