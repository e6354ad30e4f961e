package mutation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver"
)

func TestTableIsSound(t *testing.T) {
	list := List()
	mutants, variants := 0, 0
	for i, m := range list {
		if i > 0 && list[i-1].Name >= m.Name {
			t.Errorf("List is not sorted by unique name: %q then %q", list[i-1].Name, m.Name)
		}
		if m.Name == "" || m.Area == "" || m.Breaks == "" {
			t.Errorf("%q: name, area and what it breaks are required", m.Name)
		}
		if m.Request == nil && m.Answer == nil && m.Stream == nil && m.Serve == nil {
			t.Errorf("%s: no rewriter: it would be the baseline again", m.Name)
		}
		if m.Valid != (m.Area == "variant") || m.Valid != strings.HasPrefix(m.Name, "valid-") {
			t.Errorf("%s: a valid variant is named valid-… in area variant, and only it", m.Name)
		}
		if m.Valid {
			variants++
		} else {
			mutants++
		}
		if got, err := Lookup(m.Name); err != nil || got.Name != m.Name {
			t.Errorf("Lookup(%q) got %q, %v", m.Name, got.Name, err)
		}
	}
	if mutants != 116 || variants != 34 {
		t.Errorf("the table has %d mutants and %d variants, want 116 and 34 (update this test with the table)", mutants, variants)
	}
	// Only the explore phase may kill an explore mutant, and each class of
	// the bugs it was written for has at least three (issue 16).
	classes := map[string]int{}
	for _, m := range list {
		if m.Explore != (m.Area == "explore") || m.Explore && m.Valid {
			t.Errorf("%s: an explore mutant is in area explore, and only it, and is not a variant", m.Name)
		}
		if m.Explore {
			class, _, _ := strings.Cut(m.Name, "-")
			classes[class]++
		}
	}
	for _, class := range []string{"stored", "list", "unusual"} {
		if classes[class] < 3 {
			t.Errorf("%d explore mutants of class %s, want at least 3", classes[class], class)
		}
	}
	if _, err := Lookup("no-such-mutant"); err == nil {
		t.Error("Lookup of an unknown name got no error")
	}
}

// ---- the wrapper's mechanics, on small handlers ----

func TestAnswerIsRewrittenWhole(t *testing.T) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"status":"success",`)
		io.WriteString(w, `"data":{"id":7}}`)
	})
	m := Mutant{Answer: jsonAnswer(func(_ *Exchange, _ int, v any) any { return dropKey(v, "status") })}
	rec := httptest.NewRecorder()
	m.Wrapper(Options{})(inner).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	if got, want := rec.Body.String(), `{"data":{"id":7}}`; got != want {
		t.Errorf("body got %s, want %s", got, want)
	}
	if rec.Code != http.StatusCreated || rec.Header().Get("Content-Length") != strconv.Itoa(rec.Body.Len()) {
		t.Errorf("status %d Content-Length %q for %d bytes", rec.Code, rec.Header().Get("Content-Length"), rec.Body.Len())
	}
}

// TestStreamStaysIncremental: the client gets each event when the handler
// flushes it, not at the end.
func TestStreamStaysIncremental(t *testing.T) {
	release := make(chan struct{})
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: one\n\n")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("Flush through the wrapper: %v", err)
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		io.WriteString(w, "data: two\n\n")
	})
	m := Mutant{Stream: eachWrite(func(_ *Exchange, n int, p []byte) []byte { return []byte(strconv.Itoa(n) + string(p)) })}
	srv := httptest.NewServer(m.Wrapper(Options{})(inner))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	line, err := rd.ReadString('\n')
	if err != nil || line != "0data: one\n" {
		t.Fatalf("first line got %q, %v before the second event was written", line, err)
	}
	close(release)
	rest, _ := io.ReadAll(rd)
	if got := string(rest); got != "\n1data: two\n\n" {
		t.Errorf("rest got %q", got)
	}
}

func TestStreamAbortPassesThrough(t *testing.T) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: one\n\n")
		panic(http.ErrAbortHandler)
	})
	ended := false
	m := Mutant{Stream: func(*Exchange, http.Header) StreamFilter {
		return StreamFilter{End: func(StreamOut) error { ended = true; return nil }}
	}}
	rec := httptest.NewRecorder()
	got := func() (v any) {
		defer func() { v = recover() }()
		m.Wrapper(Options{})(inner).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		return nil
	}()
	if got != http.ErrAbortHandler {
		t.Errorf("the wrapper's panic got %v, want http.ErrAbortHandler", got)
	}
	if ended || rec.Body.String() != "data: one\n\n" {
		t.Errorf("after an abort: End ran %t, body %q", ended, rec.Body.String())
	}
}

// ---- the mutants that once used hooks inside the mock, on a real mock ----

const testKeyA, testKeyB = "test-key-a", "test-key-b"

type mockClient struct {
	t   *testing.T
	url string
	key string
}

// wrapped serves a fresh mock through the mutant called name.
func wrapped(t *testing.T, name string) *mockClient {
	t.Helper()
	b := fixtures.Default()
	srv, err := mockserver.New(mockserver.Config{Keys: []string{testKeyA, testKeyB}, Fixtures: &b})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(m.Wrapper(Options{Keys: []string{testKeyA, testKeyB}})(srv))
	t.Cleanup(func() { srv.Shutdown(); ts.Close() })
	return &mockClient{t: t, url: ts.URL, key: testKeyA}
}

// do sends a request; body is JSON unless nil. It returns the status and
// the body.
func (c *mockClient) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.url+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", c.key)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func (c *mockClient) data(method, path string, body any) any {
	c.t.Helper()
	status, b := c.do(method, path, body)
	v, ok := decode(b)
	if status != http.StatusOK || !ok {
		c.t.Fatalf("%s %s got %d %.300s, want 200", method, path, status, b)
	}
	return dig(v, "data")
}

func (c *mockClient) readyModel() string {
	c.t.Helper()
	list, _ := c.data(http.MethodGet, "/api/v1/user/model", nil).([]any)
	for _, m := range list {
		if dig(m, "status") == "ready" {
			return jsonString(dig(m, "id"))
		}
	}
	c.t.Fatal("no ready model in the default fixtures")
	return ""
}

func bearer(k string) string { return "Bearer " + k }

func TestAuthMutantsServeWithTheServersKey(t *testing.T) {
	c := wrapped(t, "auth-missing-key-accepted")
	c.key = ""
	if status, b := c.do(http.MethodGet, "/api/v1/user/model", nil); status != http.StatusOK {
		t.Errorf("auth-missing-key-accepted: no key got %d %.200s, want 200", status, b)
	}
	c.key = "Bearer wrong"
	if status, _ := c.do(http.MethodGet, "/api/v1/user/model", nil); status != http.StatusUnauthorized {
		t.Errorf("auth-missing-key-accepted: a wrong key got %d, want 401 (that is the other mutant)", status)
	}

	c = wrapped(t, "auth-unknown-key-accepted")
	c.key = "Bearer wrong"
	if status, _ := c.do(http.MethodGet, "/api/v1/user/model", nil); status != http.StatusOK {
		t.Errorf("auth-unknown-key-accepted: a wrong key got %d, want 200", status)
	}
	// The second key keeps its own account: a conversation it creates is
	// not the first account's.
	c.key = bearer(testKeyB)
	conv := jsonString(dig(c.data(http.MethodPost, "/api/v1/user/conversations", map[string]any{"model_id": mustInt(t, c.readyModel()), "title": "b's"}), "id"))
	c.key = bearer(testKeyA)
	if status, _ := c.do(http.MethodDelete, "/api/v1/user/conversations/"+conv, nil); status != http.StatusNotFound {
		t.Errorf("auth-unknown-key-accepted: the first account sees the second's conversation (%d)", status)
	}
}

func mustInt(t *testing.T, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestValidationMutantsAcceptWhatTheMockRefuses(t *testing.T) {
	c := wrapped(t, "required-field-not-enforced")
	c.key = bearer(testKeyA)
	model := mustInt(t, c.readyModel())
	if status, b := c.do(http.MethodPost, "/api/v1/user/inference", map[string]any{"model_id": model}); status != http.StatusOK {
		t.Errorf("required-field-not-enforced: inference without query got %d %.200s, want 200", status, b)
	}
	if status, _ := c.do(http.MethodPost, "/api/v1/user/inference", map[string]any{"query": "q", "model_id": "seven"}); status != http.StatusUnprocessableEntity {
		t.Errorf("required-field-not-enforced: a mistyped model_id got %d, want 422 still", status)
	}

	c = wrapped(t, "temperature-not-enforced")
	c.key = bearer(testKeyA)
	for temp, want := range map[any]int{1.5: http.StatusOK, -0.1: http.StatusOK, "warm": http.StatusUnprocessableEntity} {
		status, b := c.do(http.MethodPost, "/api/v1/user/inference", map[string]any{"query": "q", "model_id": model, "temperature": temp})
		if status != want {
			t.Errorf("temperature-not-enforced: temperature %v got %d %.200s, want %d", temp, status, b, want)
		}
	}
}

func TestRenameIgnoredKeepsTheTitle(t *testing.T) {
	c := wrapped(t, "rename-ignored")
	c.key = bearer(testKeyA)
	model := mustInt(t, c.readyModel())
	conv := jsonString(dig(c.data(http.MethodPost, "/api/v1/user/conversations", map[string]any{"model_id": model, "title": "old"}), "id"))
	got := c.data(http.MethodPatch, "/api/v1/user/conversations/"+conv, map[string]any{"title": "new"})
	if dig(got, "title") != "old" || jsonString(dig(got, "id")) != conv {
		t.Errorf("the rename's answer got %v, want the conversation with title old", got)
	}
	list, _ := c.data(http.MethodGet, fmt.Sprintf("/api/v1/user/conversations?model_id=%d", model), nil).([]any)
	if !slices.ContainsFunc(list, func(x any) bool { return dig(x, "id") == conv && dig(x, "title") == "old" }) {
		t.Errorf("the list after the rename got %v, want %s still titled old", list, conv)
	}
	if status, _ := c.do(http.MethodPatch, "/api/v1/user/conversations/"+conv, map[string]any{"title": 5}); status != http.StatusUnprocessableEntity {
		t.Errorf("a rename with a mistyped title got %d, want 422 still", status)
	}
}

func TestMessagesNotKept(t *testing.T) {
	for name, want := range map[string]int{"messages-not-kept": 0, "valid-json-charset": 2} {
		c := wrapped(t, name)
		c.key = bearer(testKeyA)
		model := mustInt(t, c.readyModel())
		conv := jsonString(dig(c.data(http.MethodPost, "/api/v1/user/conversations", map[string]any{"model_id": model}), "id"))
		if status, b := c.do(http.MethodPost, "/api/v1/user/inference", map[string]any{"query": "q", "model_id": model, "conversation_id": conv}); status != http.StatusOK {
			t.Fatalf("%s: inference got %d %.200s", name, status, b)
		}
		msgs, _ := c.data(http.MethodGet, "/api/v1/user/conversations/"+conv+"/messages", nil).([]any)
		if len(msgs) != want {
			t.Errorf("%s: the conversation keeps %d messages, want %d", name, len(msgs), want)
		}
	}
}

func TestDeletedModelStillServed(t *testing.T) {
	c := wrapped(t, "deleted-model-still-served")
	c.key = bearer(testKeyA)
	model := c.readyModel()
	got := c.data(http.MethodDelete, "/api/v1/user/model/"+model, nil)
	if dig(got, "message") != "Model deleted" || dig(got, "id") != model {
		t.Errorf("the delete's answer got %v, want the mock's delete answer for %s", got, model)
	}
	c.data(http.MethodGet, "/api/v1/user/model/"+model, nil) // still served
	if status, _ := c.do(http.MethodDelete, "/api/v1/user/model/987654", nil); status != http.StatusNotFound {
		t.Errorf("deleting an unknown model got %d, want 404 still", status)
	}
}
