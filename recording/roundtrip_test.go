package recording_test

import (
	"cmp"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/recording"
)

// state is what a client can read of an account: every list, every record's
// fields a fixture keeps, and every conversation's messages.
type state struct {
	Datasets      []datasetState
	Models        []modelState
	Conversations []conversationState
	Evaluations   []evaluationState
}

type datasetState struct {
	ID                      int64
	Name, Description, Type string
	Tags, URLs              []string
	Files                   []struct {
		Name string
		Size int64
		Type string
		Rows int64
	}
	FileCount  int   `json:"file_count"`
	Rows, Size int64 // counted from the files' text
}

type modelState struct {
	ID            int64
	Name          string
	Description   *string
	DatasetID     *int64  `json:"dataset_id"`
	Status        *string `json:"status"`
	FineTune      *string `json:"fine_tune"`
	Category      *string
	BaseModelName *string `json:"base_model_name"`
}

type conversationState struct {
	Title         string
	ModelID       int64 `json:"model_id"`
	TotalMessages int   `json:"total_messages"`
	Message       string
	Messages      []struct{ Role, Content string }
}

type evaluationState struct {
	ID                              int64
	Name, Type, Description, Status string
	BenchmarkType                   string `json:"benchmark_type"`
	ModelID                         int64  `json:"model_id"`
	QuestionCount                   int    `json:"question_count"`
}

func read(c client) state {
	c.t.Helper()
	var s state
	c.call("GET", "/api/v1/user/dataset", nil, &s.Datasets)
	c.call("GET", "/api/v1/user/model", nil, &s.Models)
	for _, m := range s.Models {
		var convs []conversationState
		var ids []struct{ ID string }
		c.call("GET", idPath("/api/v1/user/conversations?model_id=%d", m.ID), nil, &convs)
		c.call("GET", idPath("/api/v1/user/conversations?model_id=%d", m.ID), nil, &ids)
		for i := range convs {
			c.call("GET", idPath("/api/v1/user/conversations/%s/messages", ids[i].ID), nil, &convs[i].Messages)
		}
		s.Conversations = append(s.Conversations, convs...)
	}
	var page struct{ Evaluations []evaluationState }
	c.call("GET", "/api/v1/evaluations?per_page=100", nil, &page)
	s.Evaluations = page.Evaluations
	slices.SortFunc(s.Evaluations, func(a, b evaluationState) int { return cmp.Compare(a.ID, b.ID) })
	return s
}

// session drives a frontend's session through the recording forwarder:
// datasets with uploaded files (one refused, files added later, one deleted),
// models waited for, conversations with streamed answers, a rename, an
// evaluation run to its end and one renamed, and the lists read.
func session(t *testing.T, c client, clock interface{ Advance(time.Duration) }) {
	type idOnly struct{ ID int64 }
	var d1, d2, d3 idOnly
	c.form("/api/v1/user/dataset", [][2]string{{"dataset_name", "HR handbook"}, {"description", "People policies"}, {"tags", "hr,policy"}},
		[]filePart{file(t, "employee-handbook.md"), {name: "../../etc/pricing plans.json", data: file(t, "pricing.json").data}}, &d1)
	c.form("/api/v1/user/dataset", [][2]string{{"dataset_name", "Releases"}, {"urls", "https://docs.northwind.example/releases"}},
		[]filePart{file(t, "release-notes.txt"), file(t, "bad/empty.txt")}, &d2)
	c.form("/api/v1/user/dataset/upload", [][2]string{{"dataset_id", idPath("%d", d2.ID)}}, []filePart{file(t, "product-catalog.csv")}, nil)
	c.form("/api/v1/user/dataset", [][2]string{{"dataset_name", "Scratch"}, {"urls", "https://scratch.example/"}}, nil, &d3)
	c.call("DELETE", idPath("/api/v1/user/dataset/%d", d3.ID), nil, nil)

	var m1, m2 idOnly
	c.call("POST", "/api/v1/user/model", map[string]any{"model_name": "HR bot", "dataset_id": idPath("%d", d1.ID), "description": "Answers HR questions"}, &m1)
	c.call("POST", "/api/v1/user/model", map[string]any{"model_name": "Release bot", "dataset_id": idPath("%d", d2.ID)}, &m2)
	c.call("GET", idPath("/api/v1/user/model/%d", m1.ID), nil, nil) // still training
	clock.Advance(time.Minute)
	c.call("GET", idPath("/api/v1/user/model/%d", m1.ID), nil, nil) // ready

	var conv1, conv2 struct{ ID string }
	c.call("POST", "/api/v1/user/conversations", map[string]any{"model_id": m1.ID, "title": "Leave"}, &conv1)
	c.ask(m1.ID, conv1.ID, "How many days of paid leave do employees get?")
	c.ask(m1.ID, conv1.ID, "What does the Professional plan cost?")
	c.call("PATCH", "/api/v1/user/conversations/"+conv1.ID, map[string]any{"title": "Leave and pricing"}, nil)
	c.call("POST", "/api/v1/user/conversations", map[string]any{"model_id": m2.ID, "title": "NorthOS"}, &conv2)
	c.ask(m2.ID, conv2.ID, "When was NorthOS 4.2.0 released?")
	c.call("GET", "/api/v1/user/conversations/"+conv2.ID+"/messages", nil, nil)
	var untitled struct{ ID string }
	c.call("POST", "/api/v1/user/conversations", map[string]any{"model_id": m2.ID, "title": ""}, &untitled)
	c.ask(m2.ID, untitled.ID, "Which robot carries the most?")

	var e1, e2 idOnly
	c.call("POST", "/api/v1/evaluations", map[string]any{"name": "HR quality", "model_id": m1.ID, "type": "ragas", "benchmark_type": "beir", "question_count": 5, "description": "weekly"}, &e1)
	c.call("POST", idPath("/api/v1/evaluations/%d/start", e1.ID), nil, nil)
	c.call("POST", "/api/v1/evaluations", map[string]any{"name": "Release check", "model_id": m2.ID, "type": "benchmark", "benchmark_type": "squad", "question_count": 3}, &e2)
	c.call("PUT", idPath("/api/v1/evaluations/%d", e2.ID), map[string]any{"name": "Release check v2", "description": "renamed"}, nil)
	clock.Advance(time.Minute)

	read(c) // the lists, as a frontend would show them, through the recorder
}

// TestRoundTrip: a session recorded through the forwarder, written, and
// loaded into a fresh mock (fixtures.Load and the mock's preload, as
// `mockserver --fixtures DIR` does) reads back as the same lists and records:
// names, fields, ids, file names and counts, messages.
func TestRoundTrip(t *testing.T) {
	source, clock := startMock(t, nil)
	rec := recording.New()
	proxy := serve(t, forwarder(t, source, rec))
	session(t, client{t: t, base: proxy, key: key1}, clock)
	want := read(client{t: t, base: source, key: key1})

	dir := t.TempDir()
	if d := os.Getenv("REC_KEEP"); d != "" {
		dir = d
	}
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	sum := rec.Summary()
	t.Logf("%q", sum.Lines())
	if len(sum.Accounts) != 1 || len(sum.Accounts[0].Skipped) != 0 {
		t.Errorf("summary: got %+v, want one account with nothing left out", sum.Accounts)
	}
	b, err := fixtures.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	replay, _ := startMock(t, &b)
	got := read(client{t: t, base: replay, key: key1})
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("replayed state differs from the recorded one\n got: %s\nwant: %s", g, w)
	}
	if len(want.Datasets) != 2 || len(want.Models) != 2 || len(want.Conversations) != 3 || len(want.Evaluations) != 2 {
		t.Fatalf("the session left %d datasets, %d models, %d conversations, %d evaluations; want 2, 2, 3, 2",
			len(want.Datasets), len(want.Models), len(want.Conversations), len(want.Evaluations))
	}
	n := 0
	for _, c := range want.Conversations {
		n += len(c.Messages)
	}
	if n != 8 {
		t.Errorf("the conversations hold %d messages, want 8", n)
	}

	// The files hold the uploaded bytes under generated names; the uploaded
	// name (its last element) is only shown.
	for _, d := range b.Set.Datasets {
		for i, name := range d.Files {
			if strings.ContainsAny(name, "/\\ ") || !strings.HasPrefix(name, "d") {
				t.Errorf("file written as %q, want a generated name", name)
			}
			if d.FileNames[i] == "pricing plans.json" {
				data, _ := fs.ReadFile(b.Files, name)
				if string(data) != string(file(t, "pricing.json").data) {
					t.Errorf("%s: the recorded bytes differ from the uploaded ones", name)
				}
			}
		}
	}
	// The other key's account was never used: nothing else is written.
	if _, err := os.Stat(filepath.Join(dir, "account-2")); !os.IsNotExist(err) {
		t.Errorf("account-2 exists (%v), want only the key that was used", err)
	}
}
