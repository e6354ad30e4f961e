package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/store"
)

const stateKey = "state-test-key"

// running is one Main serving on 127.0.0.1:0.
type running struct {
	t      *testing.T
	url    string
	cancel context.CancelFunc
	done   chan error
	client *http.Client
}

// start runs Main with args (plus an address, a key and quiet logs) on
// clock; the test stops it with stop, or it stops when the test ends.
func start(t *testing.T, clock lifecycle.Clock, args ...string) *running {
	t.Helper()
	m, _, _ := newMain()
	base := []string{"--addr", "127.0.0.1:0", "--api-key", stateKey, "--log-level", "error", "--token-interval", "0s"}
	if err := m.ParseFlags(append(base, args...), env(nil)); err != nil {
		t.Fatal(err)
	}
	m.cfg.Clock = clock
	return run(t, m)
}

// run starts a parsed Main listening on 127.0.0.1:0 and waits until it
// listens; the test stops it with stop, or it stops when the test ends.
func run(t *testing.T, m *Main) *running {
	t.Helper()
	m.Addr = make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{t: t, cancel: cancel, done: make(chan error, 1), client: &http.Client{Timeout: patience}}
	go func() { r.done <- m.Run(ctx) }()
	select {
	case addr := <-m.Addr:
		r.url = "http://" + addr
	case err := <-r.done:
		cancel()
		t.Fatalf("Run returned before listening: %v", err)
	case <-time.After(patience):
		cancel()
		t.Fatal("Run did not start listening")
	}
	t.Cleanup(func() { r.stop() })
	return r
}

// stop cancels Run, as SIGINT does, and returns its error.
func (r *running) stop() error {
	r.t.Helper()
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	r.cancel = nil
	r.client.CloseIdleConnections()
	select {
	case err := <-r.done:
		return err
	case <-time.After(patience):
		r.t.Fatal("Run did not return after the context was cancelled")
		return nil
	}
}

// call sends a request with the key and returns the body of a 200 answer.
func (r *running) call(method, path, contentType string, body io.Reader) []byte {
	r.t.Helper()
	req, err := http.NewRequest(method, r.url+path, body)
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+stateKey)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		r.t.Fatalf("%s %s got %d %s, want 200", method, path, resp.StatusCode, out)
	}
	return out
}

func (r *running) postJSON(path string, v any) []byte {
	r.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		r.t.Fatal(err)
	}
	return r.call(http.MethodPost, path, "application/json", bytes.NewReader(b))
}

// createDataset uploads one text file and returns the dataset's id.
func (r *running) createDataset(name, text string) int64 {
	r.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.WriteField("dataset_name", name); err != nil {
		r.t.Fatal(err)
	}
	fw, err := mw.CreateFormFile("files", name+".txt")
	if err != nil {
		r.t.Fatal(err)
	}
	io.WriteString(fw, text)
	if err := mw.Close(); err != nil {
		r.t.Fatal(err)
	}
	var d struct{ ID int64 }
	r.data(r.call(http.MethodPost, "/api/v1/user/dataset", mw.FormDataContentType(), &buf), &d)
	return d.ID
}

func (r *running) data(body []byte, v any) {
	r.t.Helper()
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(body, &env); err != nil {
		r.t.Fatal(err)
	}
	if err := json.Unmarshal(env.Data, v); err != nil {
		r.t.Fatalf("%v in %s", err, env.Data)
	}
}

// accountState is the part of GET /admin/state the tests read.
type accountState struct {
	Datasets []struct{ ID int64 } `json:"datasets"`
	Models   []struct {
		ID     int64
		Status string
	} `json:"models"`
	Evaluations   []struct{ ID int64 } `json:"evaluations"`
	Conversations []struct {
		ID       string
		Messages []struct{ ID string }
	} `json:"conversations"`
}

func (r *running) state() (accountState, []byte) {
	r.t.Helper()
	body := r.call(http.MethodGet, "/admin/state", "", nil)
	var s accountState
	r.data(body, &s)
	return s, body
}

// ids lists the state's integer ids (datasets, models, evaluations) and its
// conversation and message ids.
func (s accountState) ids() (ints []int64, uuids []string) {
	for _, d := range s.Datasets {
		ints = append(ints, d.ID)
	}
	for _, m := range s.Models {
		ints = append(ints, m.ID)
	}
	for _, e := range s.Evaluations {
		ints = append(ints, e.ID)
	}
	for _, c := range s.Conversations {
		uuids = append(uuids, c.ID)
		for _, m := range c.Messages {
			uuids = append(uuids, m.ID)
		}
	}
	return ints, uuids
}

const depotText = "The depot opens at 6 am. Deliveries arrive before noon every weekday. The loading bay holds twelve pallets."

// TestFixtureIDsAreStable: the fixtures have the same ids after POST
// /admin/reset and after a restart, and the first dataset created after a
// reset gets the id after theirs.
func TestFixtureIDsAreStable(t *testing.T) {
	srv := start(t, lifecycle.NewFakeClock(epoch), "--train-duration", "0s")
	before, _ := srv.state()
	ints, uuids := before.ids()
	if len(ints) == 0 || len(uuids) == 0 {
		t.Fatalf("the default fixtures show no ids: %v %v", ints, uuids)
	}
	srv.createDataset("before reset", depotText)
	srv.call(http.MethodPost, "/admin/reset", "", nil)
	after, _ := srv.state()
	gotInts, gotUUIDs := after.ids()
	if !slices.Equal(gotInts, ints) || !slices.Equal(gotUUIDs, uuids) {
		t.Errorf("after reset the fixture ids got %v %v, want %v %v", gotInts, gotUUIDs, ints, uuids)
	}
	if id, want := srv.createDataset("after reset", depotText), slices.Max(ints)+1; id != want {
		t.Errorf("the first dataset after reset got id %d, want %d", id, want)
	}
	if err := srv.stop(); err != nil {
		t.Fatal(err)
	}

	again, _ := start(t, lifecycle.NewFakeClock(epoch.Add(time.Hour)), "--train-duration", "0s").state()
	gotInts, gotUUIDs = again.ids()
	if !slices.Equal(gotInts, ints) || !slices.Equal(gotUUIDs, uuids) {
		t.Errorf("after a restart the fixture ids got %v %v, want %v %v", gotInts, gotUUIDs, ints, uuids)
	}
}

// session makes the same calls on a server and returns every JSON answer
// (the stream is left out: it reports its own latency).
func session(r *running) []string {
	var out []string
	add := func(b []byte) { out = append(out, string(b)) }
	d := r.createDataset("depot", depotText)
	var m struct{ ID int64 }
	mb := r.postJSON("/api/v1/user/model", map[string]any{"model_name": "depot bot", "dataset_id": fmt.Sprint(d)})
	add(mb)
	r.data(mb, &m)
	var c struct{ ID string }
	cb := r.postJSON("/api/v1/user/conversations", map[string]any{"model_id": m.ID, "title": "hours"})
	add(cb)
	r.data(cb, &c)
	r.postJSON("/api/v1/user/inference", map[string]any{"query": "When does the depot open?", "model_id": m.ID, "conversation_id": c.ID})
	add(r.call(http.MethodGet, "/api/v1/user/conversations/"+c.ID+"/messages", "", nil))
	add(r.call(http.MethodGet, "/api/v1/user/model", "", nil))
	add(r.call(http.MethodGet, fmt.Sprintf("/api/v1/user/model/%d", m.ID), "", nil))
	add(r.call(http.MethodGet, "/api/v1/evaluations", "", nil))
	r.call(http.MethodPost, "/admin/advance", "", nil)
	_, state := r.state()
	add(state)
	return out
}

// TestSameSeedSameAnswers: two fresh servers with the same seed and clock
// give the same answers to the same calls, ids and UUIDs included.
func TestSameSeedSameAnswers(t *testing.T) {
	one := session(start(t, lifecycle.NewFakeClock(epoch), "--seed", "9"))
	two := session(start(t, lifecycle.NewFakeClock(epoch), "--seed", "9"))
	for i := range one {
		if one[i] != two[i] {
			t.Errorf("answer %d differs between two servers with --seed 9:\n%s\n%s", i, one[i], two[i])
		}
	}
	other := session(start(t, lifecycle.NewFakeClock(epoch), "--seed", "10"))
	if slices.Equal(one, other) {
		t.Error("--seed 10 gave the same answers as --seed 9, conversation ids included")
	}
}

var epoch = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// TestStateSurvivesRestart: a server stopped and started again on the same
// --state file shows the same account; a training in flight goes on and
// finishes when its time has come; ids go on where they stopped; the key
// is not in the file.
func TestStateSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mock-state.json")
	clock := lifecycle.NewFakeClock(epoch)
	args := []string{"--state", path, "--train-duration", "1m", "--seed", "3"}
	first := start(t, clock, args...)
	d := first.createDataset("depot", depotText)
	var m struct{ ID int64 }
	first.data(first.postJSON("/api/v1/user/model", map[string]any{"model_name": "depot bot", "dataset_id": fmt.Sprint(d)}), &m)
	var c struct{ ID string }
	first.data(first.postJSON("/api/v1/user/conversations", map[string]any{"model_id": m.ID, "title": "hours"}), &c)
	first.call(http.MethodPost, "/admin/advance?by=20s", "", nil)
	before, beforeBody := first.state()
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no state file after shutdown: %v", err)
	}
	if bytes.Contains(file, []byte(stateKey)) {
		t.Error("the state file holds the API key in clear")
	}

	second := start(t, clock, args...)
	after, afterBody := second.state()
	if !bytes.Equal(afterBody, beforeBody) {
		t.Errorf("after the restart the account got\n%s\nwant\n%s", afterBody, beforeBody)
	}
	if got := after.Models[len(after.Models)-1]; got.ID != m.ID || got.Status == "ready" {
		t.Errorf("the model in training got %+v right after the restart, want it still training", got)
	}
	ints, _ := before.ids()
	if id, want := second.createDataset("next", depotText), slices.Max(ints)+1; id != want {
		t.Errorf("the first dataset after the restart got id %d, want %d", id, want)
	}
	clock.Advance(time.Minute)
	var model struct{ Status string }
	second.data(second.call(http.MethodGet, fmt.Sprintf("/api/v1/user/model/%d", m.ID), "", nil), &model)
	if model.Status != "ready" {
		t.Errorf("the restored training got status %q once its minute passed, want ready", model.Status)
	}
	second.postJSON("/api/v1/user/inference", map[string]any{"query": "How many pallets does the loading bay hold?", "model_id": m.ID, "conversation_id": c.ID})
	var msgs []struct{ Content string }
	second.data(second.call(http.MethodGet, "/api/v1/user/conversations/"+c.ID+"/messages", "", nil), &msgs)
	if len(msgs) != 2 || !strings.Contains(msgs[1].Content, "twelve") {
		t.Errorf("the restored model answered %+v, want an answer from the restored file's text (twelve pallets)", msgs)
	}
}

// TestStateFileProblems: a missing file is created; a corrupt or unreadable
// one stops the start with its name, and is left as it was.
func TestStateFileProblems(t *testing.T) {
	t.Run("missing file is created", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "new-state.json")
		start(t, lifecycle.NewFakeClock(epoch), "--state", path)
		var snap struct{ Version int }
		data, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(data, &snap) != nil || snap.Version != store.SnapshotVersion {
			t.Errorf("the state file at start got %.80q (%v), want a snapshot of the current version", data, err)
		}
	})
	dir := t.TempDir()
	cases := []struct {
		name, content string
		path          string
	}{
		{name: "corrupt", content: `{"version": 1, "accounts": [`, path: filepath.Join(dir, "corrupt.json")},
		{name: "unknown version", content: `{"version": 7, "accounts": []}`, path: filepath.Join(dir, "future.json")},
		{name: "not a file", path: dir},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.content != "" {
				if err := os.WriteFile(tc.path, []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			m, _, _ := newMain()
			if err := m.ParseFlags([]string{"--addr", "127.0.0.1:0", "--state", tc.path, "--log-level", "error"}, env(nil)); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // should it start after all, it stops at once
			err := m.Run(ctx)
			if err == nil || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("Run got %v, want a start-up error naming %s", err, tc.path)
			}
			if tc.content != "" {
				if got, _ := os.ReadFile(tc.path); string(got) != tc.content {
					t.Errorf("the refused file now holds %q, want it untouched", got)
				}
			}
		})
	}
}
