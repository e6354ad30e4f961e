package mockserver

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"contractkit/fixtures"
	"contractkit/spec"
)

// opPath fills the path parameters of a contract path.
func opPath(path string) string {
	r := strings.NewReplacer(
		"{model_id}", "1", "{dataset_id}", "1", "{evaluation_id}", "1",
		"{conversation_id}", "3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77")
	return r.Replace(path)
}

// TestAuthRefusedOnEveryOperation sends each bad Authorization header to
// every operation of the contract: 401 with the envelope, checked against
// the contract, before anything else happens.
func TestAuthRefusedOnEveryOperation(t *testing.T) {
	ts := newTestServer(t)
	headers := []struct{ name, value string }{
		{"missing", ""},
		{"scheme only", "Bearer"},
		{"empty bearer", "Bearer    "},
		{"basic", "Basic " + "dXNlcjpwYXNz"},
		{"key without scheme", testKey1},
		{"unknown key", "Bearer sk-not-a-key-of-this-server"},
		{"key with a suffix", "Bearer " + testKey1 + "x"},
		{"key prefix", "Bearer " + testKey1[:len(testKey1)-1]},
		{"key of another case", "Bearer " + strings.ToUpper(testKey1)},
	}
	ops := spec.Strict().Operations
	if len(ops) < 20 {
		t.Fatalf("the contract has %d operations, want all of them (23)", len(ops))
	}
	for _, h := range headers {
		t.Run(h.name, func(t *testing.T) {
			c := ts.client(t, "")
			for _, op := range ops {
				opts := []reqOpt{withAuth(h.value)}
				if op.Method == http.MethodPost || op.Method == http.MethodPut || op.Method == http.MethodPatch {
					opts = append(opts, withJSON(map[string]any{}))
				}
				path := opPath(op.Path)
				if op.ID == "listConversations" {
					path += "?model_id=1"
				}
				r := c.do(op.Method, path, opts...).wantError(t, http.StatusUnauthorized)
				if strings.Contains(r.Env.Message, testKey1) {
					t.Errorf("%s: the message echoes the key: %q", op.ID, r.Env.Message)
				}
			}
		})
	}
	t.Run("admin", func(t *testing.T) {
		c := ts.client(t, "")
		for _, p := range []struct{ method, path string }{{"POST", "/admin/reset"}, {"GET", "/admin/state"}, {"POST", "/admin/advance"}} {
			c.do(p.method, p.path).wantError(t, 401)
			c.do(p.method, p.path, withAuth("Bearer nope")).wantError(t, 401)
		}
	})
	t.Run("the scheme is case-insensitive", func(t *testing.T) {
		c := ts.client(t, "")
		c.get("/api/v1/user/model", withAuth("bearer "+testKey1)).want(t, 200)
		c.get("/api/v1/user/model", withAuth("BEARER  "+testKey2)).want(t, 200)
	})
}

// TestIsolation: account 2 can neither see nor touch account 1's resources;
// every attempt is a 404 and account 1's data is unchanged afterwards.
func TestIsolation(t *testing.T) {
	ts := newTestServer(t)
	c1, c2 := ts.client(t, testKey1), ts.client(t, testKey2)
	d := c1.createDataset("mine", fixtureFile(t, "employee-handbook.md"))
	m := c1.createModel(d.ID, "mine")
	conv := c1.createConversation(m.ID, "mine")
	e := c1.createEvaluation(m.ID, "mine")
	before := dumpOf(t, c1)

	// Both accounts have the same fixtures, with different ids.
	m1, m2 := ids(c1.models(), modelID), ids(c2.models(), modelID)
	for id := range m2 {
		if m1[id] {
			t.Errorf("model id %d exists in both accounts", id)
		}
	}
	if ids(c2.datasets(), datasetID)[d.ID] || m2[m.ID] || ids(c2.evaluations("?per_page=100").Evaluations, evaluationID)[e.ID] {
		t.Error("account 2 lists account 1's resources")
	}

	ds, ms, es := fmt.Sprint(d.ID), fmt.Sprint(m.ID), fmt.Sprint(e.ID)
	attempts := []struct {
		name   string
		method string
		path   string
		body   any
		form   bool
	}{
		{"get dataset", "GET", "/api/v1/user/dataset/" + ds, nil, false},
		{"delete dataset", "DELETE", "/api/v1/user/dataset/" + ds, nil, false},
		{"delete dataset permanently", "DELETE", "/api/v1/user/dataset/" + ds + "?permanent=true", nil, false},
		{"add files", "POST", "/api/v1/user/dataset/upload", nil, true},
		{"model from the dataset", "POST", "/api/v1/user/model", map[string]any{"model_name": "theirs", "dataset_id": ds}, false},
		{"get model", "GET", "/api/v1/user/model/" + ms, nil, false},
		{"delete model", "DELETE", "/api/v1/user/model/" + ms, nil, false},
		{"list conversations of the model", "GET", "/api/v1/user/conversations?model_id=" + ms, nil, false},
		{"conversation on the model", "POST", "/api/v1/user/conversations", map[string]any{"model_id": m.ID}, false},
		{"rename conversation", "PATCH", "/api/v1/user/conversations/" + conv.ID, map[string]any{"title": "pwned"}, false},
		{"delete conversation", "DELETE", "/api/v1/user/conversations/" + conv.ID, nil, false},
		{"list messages", "GET", "/api/v1/user/conversations/" + conv.ID + "/messages", nil, false},
		{"inference on the model", "POST", "/api/v1/user/inference", map[string]any{"query": "q", "model_id": m.ID}, false},
		{"evaluation of the model", "POST", "/api/v1/evaluations", map[string]any{"name": "theirs", "model_id": m.ID}, false},
		{"get evaluation", "GET", "/api/v1/evaluations/" + es, nil, false},
		{"update evaluation", "PUT", "/api/v1/evaluations/" + es, map[string]any{"name": "pwned"}, false},
		{"start evaluation", "POST", "/api/v1/evaluations/" + es + "/start", nil, false},
		{"run-ragas", "POST", "/api/v1/evaluations/" + es + "/run-ragas", ragasBody(fixtures.RagasSamples()[:1], nil), false},
		{"delete evaluation", "DELETE", "/api/v1/evaluations/" + es, nil, false},
	}
	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			c2 := ts.client(t, testKey2)
			var r *apiResponse
			switch {
			case a.form:
				r = c2.uploadFiles(d.ID, fixtureFile(t, "release-notes.txt"))
			case a.body != nil:
				r = c2.do(a.method, a.path, withJSON(a.body))
			default:
				r = c2.do(a.method, a.path)
			}
			r.wantError(t, http.StatusNotFound)
		})
	}
	// Inference in account 2 with account 1's conversation.
	m2own := c2.models()[0]
	c2.post("/api/v1/user/inference", map[string]any{"query": "q", "model_id": m2own.ID, "conversation_id": conv.ID}).wantError(t, 404)
	// The taken name of account 1 is free in account 2.
	c2.createEvaluation(m2own.ID, "mine")

	after := dumpOf(t, c1)
	if !bytes.Equal(after, before) {
		t.Errorf("account 1 changed under account 2's attempts:\nbefore %s\nafter  %s", snippet(before), snippet(after))
	}
}

// dumpOf is the account's whole admin state, as JSON.
func dumpOf(t *testing.T, c *apiClient) []byte {
	t.Helper()
	return c.get("/admin/state").want(t, 200).Env.Data
}

// syncBuffer is a log sink written by many request goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestKeysNeverLogged runs good and bad requests, errors and a panic with
// the log at debug level, and looks for any key in the output.
func TestKeysNeverLogged(t *testing.T) {
	var logs syncBuffer
	const stranger = "sk-stranger-key-0d9e8f7a6b"
	ts := newTestServer(t,
		withConfig(func(c *Config) {
			c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}),
		withHook(func(s *Server) {
			s.handlers["getEvaluation"] = func(*call) (any, error) { panic("boom with " + "no key") }
		}))
	c1, c2 := ts.client(t, testKey1), ts.client(t, testKey2)
	m := c1.models()[0]
	c1.get(fmt.Sprintf("/api/v1/user/model/%d", m.ID)).want(t, 200)
	c1.ask(map[string]any{"query": "warranty", "model_id": m.ID})
	c1.get("/api/v1/user/model/999999").wantError(t, 404)
	c1.post("/api/v1/user/inference", map[string]any{"query": "q", "model_id": m.ID, "temperature": 3}).wantError(t, 422)
	c1.get("/api/v1/evaluations/1").wantError(t, 500)
	c2.get("/api/v1/user/dataset").want(t, 200)
	c2.get("/admin/state").want(t, 200)
	c2.post("/admin/advance?by=1s", nil).want(t, 200)
	anon := ts.client(t, "")
	anon.get("/api/v1/user/model", withAuth("Bearer "+stranger)).wantError(t, 401)
	anon.get("/api/v1/user/model", withAuth("Basic "+stranger)).wantError(t, 401)
	anon.get("/admin/state", withAuth("Bearer "+stranger)).wantError(t, 401)
	anon.get("/api/v1/user/conversations?model_id="+uuid.NewString(), withAuth("Bearer "+testKey1)).wantError(t, 404)

	out := logs.String()
	if !strings.Contains(out, "request") || !strings.Contains(out, "panic") {
		t.Fatalf("the log did not record the requests and the panic:\n%s", out)
	}
	// One access line per request: method, path, status, duration.
	line := regexp.MustCompile(`(?m)^time=\S+ level=INFO msg=request method=GET path=/api/v1/user/model/999999 status=404 duration=\S+$`)
	if !line.MatchString(out) {
		t.Errorf("no access line for the 404 in the form time=… level=INFO msg=request method=GET path=… status=404 duration=…:\n%s", out)
	}
	for _, k := range []string{testKey1, testKey2, stranger, testKey1[:12], testKey2[:12]} {
		if strings.Contains(out, k) {
			t.Errorf("the log contains key material %q:\n%s", k, out)
		}
	}
}
