package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// journalOf reads GET /admin/requests?query for the client's account.
func journalOf(t *testing.T, c *apiClient, query string) []map[string]any {
	t.Helper()
	r := c.get("/admin/requests" + query)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /admin/requests%s: status %d: %s", query, r.Status, snippet(r.Body))
	}
	var out []map[string]any
	if err := json.Unmarshal(r.Env.Data, &out); err != nil {
		t.Fatalf("GET /admin/requests: data is not a list of entries: %v: %s", err, snippet(r.Body))
	}
	return out
}

func TestJournalRecordsCallsWithTheKeyMasked(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	c.get("/api/v1/user/model").want(t, 200)
	c.post("/api/v1/user/model", map[string]any{"model_name": ""}, withHeader("Prefer", "code=422")).want(t, 422)

	raw := c.get("/admin/requests")
	if strings.Contains(string(raw.Body), testKey1) {
		t.Fatalf("the journal holds the key: %s", snippet(raw.Body))
	}
	entries := journalOf(t, c, "")
	if len(entries) != 2 {
		t.Fatalf("got %d entries, want 2: %v", len(entries), entries)
	}
	first, second := entries[0], entries[1]
	for _, name := range []string{"id", "time", "method", "path", "query", "status", "duration_ms", "request", "response", "curl"} {
		if _, ok := first[name]; !ok {
			t.Errorf("an entry has no %q: %v", name, first)
		}
	}
	if first["id"] != 1.0 || second["id"] != 2.0 {
		t.Errorf("ids %v, %v: want 1, 2 (oldest first)", first["id"], second["id"])
	}
	if first["method"] != "GET" || first["path"] != "/api/v1/user/model" || first["status"] != 200.0 {
		t.Errorf("first entry: %v %v %v, want GET /api/v1/user/model 200", first["method"], first["path"], first["status"])
	}
	if _, err := time.Parse(time.RFC3339, first["time"].(string)); err != nil {
		t.Errorf("time %v is not RFC 3339: %v", first["time"], err)
	}
	req := second["request"].(map[string]any)
	auth := req["headers"].(map[string]any)["Authorization"].([]any)
	if len(auth) != 1 || auth[0] != "Bearer ****" {
		t.Errorf("Authorization %v, want [Bearer ****]", auth)
	}
	if req["body"] != `{"model_name":""}` || req["body_size"] != 17.0 || req["body_truncated"] != false {
		t.Errorf("request body %v (%v bytes, truncated %v), want the JSON sent", req["body"], req["body_size"], req["body_truncated"])
	}
	resp := second["response"].(map[string]any)
	if second["status"] != 422.0 || !strings.Contains(resp["body"].(string), `"status":"error"`) {
		t.Errorf("second entry: status %v body %v, want the 422 envelope", second["status"], resp["body"])
	}
	if ct := resp["headers"].(map[string]any)["Content-Type"]; ct == nil {
		t.Errorf("response headers %v: no Content-Type", resp["headers"])
	}
	curl := second["curl"].(string)
	for _, want := range []string{"curl -sS -X POST '" + ts.url + "/api/v1/user/model'", `-H "Authorization: Bearer $API_KEY"`, `-H 'Prefer: code=422'`, `--data-raw '{"model_name":""}'`} {
		if !strings.Contains(curl, want) {
			t.Errorf("curl %q does not contain %q", curl, want)
		}
	}
}

func TestJournalIsPerAccountAndSkipsUnknownKeys(t *testing.T) {
	ts := newTestServer(t)
	a, b := ts.client(t, testKey1), ts.client(t, testKey2)
	a.get("/api/v1/user/dataset").want(t, 200)
	ts.client(t, "wrong-key").get("/api/v1/user/dataset").want(t, 401)
	if n := len(journalOf(t, b, "")); n != 0 {
		t.Errorf("the second account sees %d entries, want 0", n)
	}
	if n := len(journalOf(t, a, "")); n != 1 {
		t.Errorf("the first account has %d entries, want 1 (a wrong key belongs to no account)", n)
	}
	if r := ts.client(t, "").get("/admin/requests"); r.Status != 401 {
		t.Errorf("GET /admin/requests without a key: status %d, want 401", r.Status)
	}
	if r := a.do(http.MethodPut, "/admin/requests"); r.Status != 405 {
		t.Errorf("PUT /admin/requests: status %d, want 405", r.Status)
	}
}

func TestJournalFilters(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	c.get("/api/v1/user/model").want(t, 200)
	c.get("/api/v1/user/dataset").want(t, 200)
	c.get("/api/v1/user/model/999999").want(t, 404)
	c.post("/api/v1/evaluations", map[string]any{}).want(t, 422)

	count := func(q string) int { return len(journalOf(t, c, q)) }
	cases := map[string]int{
		"": 4, "?method=get": 3, "?method=POST": 1, "?path=/api/v1/user/model": 2, "?path=/api/v1/user/": 3,
		"?status=404": 1, "?status=4xx": 2, "?status=2XX": 2, "?status=500": 0, "?since=2": 2, "?method=GET&status=4xx": 1,
	}
	for q, want := range cases {
		if got := count(q); got != want {
			t.Errorf("GET /admin/requests%s: %d entries, want %d", q, got, want)
		}
	}
	for _, bad := range []string{"?status=abc", "?status=6xx", "?status=42", "?since=-1"} {
		if r := c.get("/admin/requests" + bad); r.Status != 422 {
			t.Errorf("GET /admin/requests%s: status %d, want 422", bad, r.Status)
		}
	}
}

func TestJournalClear(t *testing.T) {
	ts := newTestServer(t)
	a, b := ts.client(t, testKey1), ts.client(t, testKey2)
	a.get("/api/v1/user/model").want(t, 200)
	b.get("/api/v1/user/model").want(t, 200)
	if r := a.do(http.MethodDelete, "/admin/requests"); r.Status != 200 {
		t.Fatalf("DELETE /admin/requests: status %d", r.Status)
	}
	if n := len(journalOf(t, a, "")); n != 0 {
		t.Errorf("after DELETE: %d entries, want 0", n)
	}
	if n := len(journalOf(t, b, "")); n != 1 {
		t.Errorf("the other account lost its journal: %d entries, want 1", n)
	}
	a.get("/api/v1/user/dataset").want(t, 200)
	if e := journalOf(t, a, ""); len(e) != 1 || e[0]["id"] != 2.0 {
		t.Errorf("after a clear the ids go on: got %v, want one entry with id 2", e)
	}
}

func TestJournalRingIsBounded(t *testing.T) {
	var j journal
	for i := 0; i < journalEntries+10; i++ {
		j.add("a", &journalEntry{Method: "GET", Path: fmt.Sprint(i)})
	}
	all := j.list("a", func(*journalEntry) bool { return true })
	if len(all) != journalEntries || all[0].ID != 11 || all[len(all)-1].ID != journalEntries+10 {
		t.Fatalf("got %d entries, ids %d..%d; want %d, ids 11..%d", len(all), all[0].ID, all[len(all)-1].ID, journalEntries, journalEntries+10)
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID != all[i-1].ID+1 {
			t.Fatalf("entry %d has id %d after %d: the ring lost its order", i, all[i].ID, all[i-1].ID)
		}
	}
	if n := j.clear("a"); n != journalEntries {
		t.Fatalf("clear removed %d entries, want %d", n, journalEntries)
	}
	for range 3 {
		j.add("a", &journalEntry{Method: "GET"})
	}
	if again := j.list("a", func(*journalEntry) bool { return true }); len(again) != 3 || again[0].ID != journalEntries+11 {
		t.Fatalf("after clear: %d entries starting at id %d, want 3 starting at %d", len(again), again[0].ID, journalEntries+11)
	}
	// The byte budget: entries with 64 KiB bodies, more than 32 MiB of them.
	big := strings.Repeat("x", journalBodyBytes)
	for i := 0; i < 2*journalBudget/journalBodyBytes; i++ {
		j.add("b", &journalEntry{Request: journalMessage{Body: big}, Response: journalMessage{Body: big}})
	}
	kept := j.list("b", func(*journalEntry) bool { return true })
	total := 0
	for _, e := range kept {
		total += e.size()
	}
	if total > journalBudget || len(kept) < journalBudget/(3*journalBodyBytes) {
		t.Errorf("kept %d entries of %d bytes, want at most %d bytes and most of the budget used", len(kept), total, journalBudget)
	}
}

func TestJournalSummarisesStreams(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	m := c.readyModel("journal", filePart{field: "files", name: "a.txt", data: []byte("The warranty lasts 24 months.\nReturns take 30 days.\n")})
	res := c.ask(map[string]any{"query": "How long is the warranty?", "model_id": m.ID})
	entries := journalOf(t, c, "?path=/api/v1/user/inference")
	if len(entries) != 1 {
		t.Fatalf("%d inference entries, want 1", len(entries))
	}
	e := entries[0]
	resp := e["response"].(map[string]any)
	st, ok := resp["stream"].(map[string]any)
	if !ok {
		t.Fatalf("the stream entry has no response.stream: %v", resp)
	}
	chunks := st["chunks"].([]any)
	if int(st["chunk_count"].(float64)) != len(chunks) || len(chunks) < res.Tokens+2 || st["truncated"] != false {
		t.Errorf("stream: %d chunks, chunk_count %v, truncated %v; want every event (%d tokens)", len(chunks), st["chunk_count"], st["truncated"], res.Tokens)
	}
	if last := chunks[len(chunks)-1].(string); last != "data: [DONE]\n\n" {
		t.Errorf("last chunk %q, want the [DONE] event", last)
	}
	if body := resp["body"].(string); !strings.HasPrefix(body, "data: ") || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("response body %q: want the whole stream", snippet([]byte(body)))
	}
	if !strings.Contains(e["curl"].(string), "curl -sS -N -X POST") {
		t.Errorf("curl of a stream %q: want -N", e["curl"])
	}

	// The bound: a stream of many large writes keeps at most journalBodyBytes.
	jw := &journalWriter{ResponseWriter: httptest.NewRecorder()}
	jw.Header().Set("Content-Type", "text/event-stream")
	chunk := []byte("data: " + strings.Repeat("y", 1000) + "\n\n")
	for i := 0; i < 200; i++ {
		_, _ = jw.Write(chunk)
	}
	msg := jw.message()
	kept := 0
	for _, ch := range msg.Stream.Chunks {
		kept += len(ch)
	}
	if !msg.Stream.Truncated || msg.Stream.ChunkCount != 200 || kept > journalBodyBytes || msg.BodySize != int64(200*len(chunk)) {
		t.Errorf("bounded stream: truncated %v, chunk_count %d, kept %d bytes, body_size %d", msg.Stream.Truncated, msg.Stream.ChunkCount, kept, msg.BodySize)
	}
}

func TestJournalSummarisesMultipartAndBoundsBodies(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	secret := "the-file-content-is-not-recorded"
	c.createDataset("Support docs", filePart{field: "files", name: "notes.txt", data: []byte(secret + "\n")})
	e := journalOf(t, c, "?method=POST")
	if len(e) != 1 {
		t.Fatalf("%d POST entries, want 1", len(e))
	}
	req := e[0]["request"].(map[string]any)
	body := req["body"].(string)
	if strings.Contains(body, secret) || !strings.Contains(body, `dataset_name = "Support docs"`) || !strings.Contains(body, `files: file "notes.txt"`) {
		t.Errorf("multipart summary %q: want the parts named, the file content left out", body)
	}
	if req["body_truncated"] != true || req["body_size"].(float64) <= float64(len(secret)) {
		t.Errorf("multipart: body_truncated %v, body_size %v", req["body_truncated"], req["body_size"])
	}
	curl := e[0]["curl"].(string)
	if !strings.Contains(curl, "-F 'files=@notes.txt") || !strings.Contains(curl, "-F 'dataset_name=Support docs'") || strings.Contains(curl, "multipart/form-data; boundary") {
		t.Errorf("curl %q: want -F parts and no Content-Type", curl)
	}

	big := `{"name":"` + strings.Repeat("z", journalBodyBytes) + `","model_id":1}`
	c.post("/api/v1/evaluations", big)
	e = journalOf(t, c, "?path=/api/v1/evaluations")
	req = e[0]["request"].(map[string]any)
	if len(req["body"].(string)) != journalBodyBytes || req["body_truncated"] != true || req["body_size"].(float64) != float64(len(big)) {
		t.Errorf("large body: kept %d bytes, truncated %v, size %v; want %d, true, %d", len(req["body"].(string)), req["body_truncated"], req["body_size"], journalBodyBytes, len(big))
	}
}

// TestJournalMarksStreamFaults: a stream a fault ended says which one in
// response.stream.fault (its status stays the 200 that was sent); a
// stream that ended well has no fault.
func TestJournalMarksStreamFaults(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("handbook", fixtureFile(t, "employee-handbook.md"))
	body := map[string]any{"query": "What does the handbook say about paid leave and expenses?", "model_id": m.ID, "response_length_preference": "detailed"}
	faultOf := func(e map[string]any) any {
		st, _ := e["response"].(map[string]any)["stream"].(map[string]any)
		if st == nil {
			t.Fatalf("entry %v has no response.stream", e["id"])
		}
		return st["fault"]
	}

	c.ask(body)
	c.ask(body, withHeader("X-Mock-Stream-Fault", "error"))
	if resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withJSON(body), withHeader("X-Mock-Stream-Fault", "cut")); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body) // ends with the dropped connection
		resp.Body.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withContext(ctx), withJSON(body), withHeader("X-Mock-Stream-Fault", "stall"))
	if err != nil {
		t.Fatal(err)
	}
	readUntil(t, newSSEReader(resp.Body), "token")
	cancel() // the stalled stream is recorded once its client leaves
	resp.Body.Close()

	var entries []map[string]any
	for range 500 { // bounded: the stalled handler returns as soon as it sees the cancel
		if entries = journalOf(t, c, "?path=/api/v1/user/inference"); len(entries) == 4 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(entries) != 4 {
		t.Fatalf("%d inference entries, want 4", len(entries))
	}
	for i, want := range []any{nil, "error", "cut", "stall"} {
		if got := faultOf(entries[i]); got != want {
			t.Errorf("entry %d: stream.fault %v, want %v", i, got, want)
		}
		if entries[i]["status"].(float64) != 200 {
			t.Errorf("entry %d: status %v, want the 200 that was sent", i, entries[i]["status"])
		}
	}
}
