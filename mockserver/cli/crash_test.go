package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"contractkit/internal/childserver"
)

// lockedBuffer is a child's standard error, written by its copier and read
// by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// child is this test binary running main in a child process (TestMain) on
// the state file at path: a real process that a test can kill -9.
type child struct {
	*running
	srv    *childserver.Server
	stderr *lockedBuffer
}

func startChild(t *testing.T, path string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MOCKSERVER_TEST_CHILD=1", "MOCK_ADDR=127.0.0.1:0", "MOCK_API_KEY="+stateKey,
		"MOCK_STATE="+path, "MOCK_FIXTURES=none", "MOCK_TRAIN_DURATION=1m", "MOCK_EVAL_DURATION=1m",
		"MOCK_TOKEN_INTERVAL=0s", "MOCK_LOG_LEVEL=warn", "MOCK_GC_FLOOR=0")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	srv, err := childserver.Start(context.Background(), "mockserver", cmd, regexp.MustCompile(`listening on http://(\S+)`), patience)
	if err != nil {
		t.Fatalf("%v; standard error: %s", err, stderr)
	}
	t.Cleanup(srv.Kill)
	return &child{
		running: &running{t: t, url: "http://" + srv.Addr, client: &http.Client{Timeout: patience}},
		srv:     srv, stderr: stderr,
	}
}

// kill9 ends the child with SIGKILL: no shutdown, no last save.
func (c *child) kill9() {
	c.client.CloseIdleConnections()
	c.srv.Kill()
}

// do sends a request and returns the status and the body, whatever the
// status.
func (c *child) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.url+path, nil)
	if rd != nil {
		req, err = http.NewRequest(method, c.url+path, rd)
		req.Header.Set("Content-Type", "application/json")
	}
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+stateKey)
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	if _, err := out.ReadFrom(resp.Body); err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, out.Bytes()
}

// ok sends a request that must answer 200 and decodes its data into v.
func (c *child) ok(method, path string, body, v any) {
	c.t.Helper()
	status, b := c.do(method, path, body)
	if status != http.StatusOK {
		c.t.Fatalf("%s %s got %d %s, want 200", method, path, status, b)
	}
	if v != nil {
		c.data(b, v)
	}
}

// expected is what the acknowledged writes left, checked after a crash.
type expected struct {
	datasets    map[int64]int // live dataset: its file count
	softDeleted []int64
	gone        []string // paths that answer 404
	titles      map[string]string
	messages    map[string]int
	evalNames   map[int64]string
	ready       []int64
	completed   map[int64]string // evaluation: its results as first seen
	writes      int
}

// round makes one acknowledged write of every kind, the last one being the
// creation of the dataset it returns.
func (c *child) round(i int, want *expected) int64 {
	c.t.Helper()
	name := func(what string) string { return fmt.Sprintf("%s %d", what, i) }
	keep := c.createDataset(name("kept"), depotText) // create + upload
	want.datasets[keep] = 1
	var up struct {
		FilesUploaded int `json:"files_uploaded"`
	}
	c.data(c.upload(keep, "more.txt", "The night shift starts at 22:00 and ends at 06:00."), &up)
	want.datasets[keep] += up.FilesUploaded
	soft := c.createDataset(name("soft"), depotText)
	c.ok(http.MethodDelete, fmt.Sprintf("/api/v1/user/dataset/%d", soft), nil, nil)
	want.softDeleted = append(want.softDeleted, soft)
	hard := c.createDataset(name("hard"), depotText)
	c.ok(http.MethodDelete, fmt.Sprintf("/api/v1/user/dataset/%d?permanent=true", hard), nil, nil)
	want.gone = append(want.gone, fmt.Sprintf("/api/v1/user/dataset/%d", hard))

	var m, gone struct{ ID int64 }
	c.ok(http.MethodPost, "/api/v1/user/model", map[string]any{"model_name": name("bot"), "dataset_id": fmt.Sprint(keep)}, &m)
	c.ok(http.MethodPost, "/api/v1/user/model", map[string]any{"model_name": name("doomed"), "dataset_id": fmt.Sprint(keep)}, &gone)
	c.ok(http.MethodDelete, fmt.Sprintf("/api/v1/user/model/%d", gone.ID), nil, nil)
	want.gone = append(want.gone, fmt.Sprintf("/api/v1/user/model/%d", gone.ID))

	var conv, drop struct{ ID string }
	c.ok(http.MethodPost, "/api/v1/user/conversations", map[string]any{"model_id": m.ID, "title": name("talk")}, &conv)
	c.ok(http.MethodPatch, "/api/v1/user/conversations/"+conv.ID, map[string]any{"title": name("renamed talk")}, nil)
	want.titles[conv.ID] = name("renamed talk")
	c.ok(http.MethodPost, "/api/v1/user/conversations", map[string]any{"model_id": m.ID, "title": name("dropped")}, &drop)
	c.ok(http.MethodDelete, "/api/v1/user/conversations/"+drop.ID, nil, nil)
	want.gone = append(want.gone, "/api/v1/user/conversations/"+drop.ID+"/messages")

	// The training ends on the account's clock; a question is answered,
	// and an evaluation runs to its end and is read once it has.
	c.ok(http.MethodPost, "/admin/advance?by=61s", nil, nil)
	want.ready = append(want.ready, m.ID)
	c.call(http.MethodPost, "/api/v1/user/inference", "application/json",
		strings.NewReader(fmt.Sprintf(`{"query":"How many pallets does the loading bay hold?","model_id":%d,"conversation_id":%q}`, m.ID, conv.ID)))
	want.messages[conv.ID] = 2
	var e, del struct{ ID int64 }
	c.ok(http.MethodPost, "/api/v1/evaluations", map[string]any{"name": name("eval"), "model_id": m.ID}, &e)
	c.ok(http.MethodPut, fmt.Sprintf("/api/v1/evaluations/%d", e.ID), map[string]any{"name": name("renamed eval")}, nil)
	want.evalNames[e.ID] = name("renamed eval")
	c.ok(http.MethodPost, fmt.Sprintf("/api/v1/evaluations/%d/start", e.ID), nil, nil)
	c.ok(http.MethodPost, "/admin/advance?by=61s", nil, nil)
	var done struct {
		Status  string
		Results json.RawMessage
	}
	c.ok(http.MethodGet, fmt.Sprintf("/api/v1/evaluations/%d", e.ID), nil, &done)
	if done.Status != "completed" {
		c.t.Fatalf("evaluation %d got %q after its minute, want completed", e.ID, done.Status)
	}
	want.completed[e.ID] = string(done.Results)
	c.ok(http.MethodPost, "/api/v1/evaluations", map[string]any{"name": name("deleted eval"), "model_id": m.ID}, &del)
	c.ok(http.MethodDelete, fmt.Sprintf("/api/v1/evaluations/%d", del.ID), nil, nil)
	want.gone = append(want.gone, fmt.Sprintf("/api/v1/evaluations/%d", del.ID))

	last := c.createDataset(name("last"), depotText)
	want.datasets[last] = 1
	want.writes += 23
	return last
}

func (c *child) upload(id int64, name, text string) []byte {
	c.t.Helper()
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "--b\r\nContent-Disposition: form-data; name=\"dataset_id\"\r\n\r\n%d\r\n", id)
	fmt.Fprintf(&buf, "--b\r\nContent-Disposition: form-data; name=\"files\"; filename=%q\r\nContent-Type: text/plain\r\n\r\n%s\r\n--b--\r\n", name, text)
	return c.call(http.MethodPost, "/api/v1/user/dataset/upload", "multipart/form-data; boundary=b", &buf)
}

// check finds every acknowledged write.
func (c *child) check(want *expected) {
	c.t.Helper()
	var st struct {
		Datasets []struct {
			ID        int64
			FileCount int `json:"file_count"`
		}
		DeletedDatasets []struct{ ID int64 } `json:"deleted_datasets"`
		Models          []struct {
			ID     int64
			Status string
		}
		Conversations []struct {
			ID       string
			Title    string
			Messages []struct{ Content string }
		}
		Evaluations []struct {
			ID      int64
			Name    string
			Status  string
			Results json.RawMessage
		}
	}
	c.ok(http.MethodGet, "/admin/state", nil, &st)
	live := map[int64]int{}
	for _, d := range st.Datasets {
		live[d.ID] = d.FileCount
	}
	for id, files := range want.datasets {
		if got, ok := live[id]; !ok || got != files {
			c.t.Errorf("dataset %d: got %d files (there: %v), want %d", id, got, ok, files)
		}
	}
	soft := map[int64]bool{}
	for _, d := range st.DeletedDatasets {
		soft[d.ID] = true
	}
	for _, id := range want.softDeleted {
		if !soft[id] {
			c.t.Errorf("dataset %d: not among the soft-deleted", id)
		}
	}
	for _, p := range want.gone {
		if status, _ := c.do(http.MethodGet, p, nil); status != http.StatusNotFound {
			c.t.Errorf("GET %s got %d after its delete, want 404", p, status)
		}
	}
	status := map[int64]string{}
	for _, m := range st.Models {
		status[m.ID] = m.Status
	}
	for _, id := range want.ready {
		if status[id] != "ready" {
			c.t.Errorf("model %d: status %q, want ready (its training ended before the crash)", id, status[id])
		}
	}
	convs := map[string]int{}
	for _, cv := range st.Conversations {
		convs[cv.ID] = len(cv.Messages)
		if want, ok := want.titles[cv.ID]; ok && cv.Title != want {
			c.t.Errorf("conversation %s: title %q, want %q", cv.ID, cv.Title, want)
		}
	}
	for id, n := range want.messages {
		if convs[id] != n {
			c.t.Errorf("conversation %s: %d messages, want %d", id, convs[id], n)
		}
	}
	evals := map[int64]string{}
	for _, e := range st.Evaluations {
		evals[e.ID] = e.Name
		if results, ok := want.completed[e.ID]; ok && (e.Status != "completed" || string(e.Results) != results) {
			c.t.Errorf("evaluation %d: %s with %s, want completed with %s", e.ID, e.Status, e.Results, results)
		}
	}
	for id, name := range want.evalNames {
		if evals[id] != name {
			c.t.Errorf("evaluation %d: name %q, want %q", id, evals[id], name)
		}
	}
}

// TestKill9LosesNoAcknowledgedWrite: a mock process killed with SIGKILL
// right after answering finds, restarted on the same --state, every write
// it answered, of every kind: creates, an upload, renames, deletes (soft,
// permanent, cascading), a question and its answer, a training and an
// evaluation that ended on the account's clock. Twice in a row, then once
// more with the log's last record torn as a crash mid-append leaves it:
// the start warns and goes on.
func TestKill9LosesNoAcknowledgedWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	want := &expected{datasets: map[int64]int{}, titles: map[string]string{}, messages: map[string]int{},
		evalNames: map[int64]string{}, completed: map[int64]string{}}
	for crash := range 2 {
		c := startChild(t, path)
		if crash > 0 {
			c.check(want)
		}
		c.round(crash, want)
		c.kill9()
	}
	c := startChild(t, path)
	c.check(want)
	if want.writes < 2*23 {
		t.Fatalf("%d writes made, want every kind at least twice", want.writes)
	}
	if strings.Contains(c.stderr.String(), "level=WARN") {
		t.Errorf("a start after a clean kill warned: %s", c.stderr)
	}
	c.round(99, want)
	c.kill9()

	// The crash came mid-append: half a record ends the log.
	log, err := os.ReadFile(path + ".log")
	if err != nil || len(log) == 0 {
		t.Fatalf("the log after the crash holds %d bytes (%v), want the last writes", len(log), err)
	}
	torn := []byte(`3f1a9c2e 100000 {"account":"account-1","last_id":2,"dataset":{"id":2,"na`)
	if err := os.WriteFile(path+".log", append(log, torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	c = startChild(t, path)
	c.check(want)
	// The warning was logged before the child listened; its log lines are
	// written every few milliseconds.
	var warn string
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if warn = c.stderr.String(); strings.Contains(warn, "torn") {
			break
		}
	}
	for _, s := range []string{"level=WARN", "torn last record", path + ".log", fmt.Sprintf("offset=%d", len(log)), fmt.Sprintf("bytes=%d", len(torn))} {
		if !strings.Contains(warn, s) {
			t.Errorf("the start after a torn record logged %q, want it to mention %q", warn, s)
		}
	}
}
