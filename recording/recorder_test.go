package recording_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contractkit/exchange"
	"contractkit/fixtures"
	"contractkit/judge"
	"contractkit/recording"
	"contractkit/spec"
)

// ---- hand-built exchanges ----

func success(data any) []byte {
	b, _ := json.Marshal(map[string]any{"status": "success", "data": data})
	return b
}

func header(key, ct string) http.Header {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	return h
}

// jsonX is a JSON exchange answered 200 with data.
func jsonX(key, method, path string, body any, data any) recording.Exchange {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	return recording.Exchange{
		Method: method, Path: path, RequestHeader: header(key, "application/json"), RequestBody: raw,
		Status: 200, ResponseHeader: header("", "application/json"), ResponseBody: success(data),
	}
}

// formX is a multipart dataset create or upload answered 200 with data.
func formX(key, path string, fields map[string]string, files map[string]string, data any) recording.Exchange {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	for name, text := range files {
		p, _ := mw.CreateFormFile("files", name)
		_, _ = p.Write([]byte(text))
	}
	_ = mw.Close()
	return recording.Exchange{
		Method: "POST", Path: path, RequestHeader: header(key, mw.FormDataContentType()), RequestBody: buf.Bytes(),
		Status: 200, ResponseHeader: header("", "application/json"), ResponseBody: success(data),
	}
}

func status(x recording.Exchange, code int) recording.Exchange {
	x.Status = code
	x.ResponseBody = []byte(`{"status":"error","message":"no"}`)
	return x
}

const handbook = "# Handbook\n\nEmployees receive 27 days of paid leave per year.\n"

// writeLoad writes the recording and loads the first account's set back.
func writeLoad(t *testing.T, rec *recording.Recorder) (string, fixtures.Set) {
	t.Helper()
	dir := t.TempDir()
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := fixtures.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, b.Set
}

func dataset(id int64, name string) map[string]any {
	return map[string]any{"id": id, "name": name, "description": "", "file_count": 1}
}

func model(id, datasetID int64, name, status string) map[string]any {
	return map[string]any{"id": id, "name": name, "dataset_id": datasetID, "status": status, "fine_tune": "qlora"}
}

// base is a dataset (id 10, with a file) and a model of it (id 11).
func base(rec *recording.Recorder, key string) {
	rec.Observe(formX(key, "/api/v1/user/dataset", map[string]string{"dataset_name": "Handbook", "tags": "hr, people"},
		map[string]string{"handbook.md": handbook}, dataset(10, "Handbook")))
	rec.Observe(jsonX(key, "POST", "/api/v1/user/model", map[string]any{"model_name": "Bot", "dataset_id": "10"},
		model(11, 10, "Bot", "pending")))
}

// TestLatestAnswerWins: a later read or update supersedes, a delete and a
// 404 on a read by id remove, a whole list drops what it lacks.
func TestLatestAnswerWins(t *testing.T) {
	rec := recording.New()
	base(rec, key1)
	rec.Observe(jsonX(key1, "GET", "/api/v1/user/model/11", nil, model(11, 10, "Bot v2", "ready")))
	rec.Observe(jsonX(key1, "POST", "/api/v1/user/model", map[string]any{}, model(12, 10, "Gone", "ready")))
	rec.Observe(jsonX(key1, "DELETE", "/api/v1/user/model/12", nil, map[string]any{"id": 12}))
	rec.Observe(jsonX(key1, "POST", "/api/v1/user/model", map[string]any{}, model(13, 10, "404ed", "ready")))
	rec.Observe(status(jsonX(key1, "GET", "/api/v1/user/model/13", nil, nil), 404))
	// A model seen only by its id (created before the recording) is kept
	// from what its read said; a later whole list drops model 15.
	rec.Observe(jsonX(key1, "GET", "/api/v1/user/model/14", nil, model(14, 10, "Older", "training")))
	rec.Observe(jsonX(key1, "GET", "/api/v1/user/model/15", nil, model(15, 10, "Dropped", "ready")))
	rec.Observe(jsonX(key1, "GET", "/api/v1/user/model", nil, []any{model(11, 10, "Bot v2", "ready"), model(14, 10, "Older", "training")}))
	// A failed update changes nothing.
	rec.Observe(status(jsonX(key1, "GET", "/api/v1/user/model/11", nil, model(11, 10, "Not this", "failed")), 500))

	eval := map[string]any{"id": 20, "name": "E", "model_id": 11, "type": "ragas", "benchmark_type": "beir", "question_count": 4, "status": "pending"}
	rec.Observe(jsonX(key1, "POST", "/api/v1/evaluations", eval, eval))
	rec.Observe(jsonX(key1, "POST", "/api/v1/evaluations/20/start", nil, map[string]any{"message": "started", "model_id": 11}))
	rec.Observe(jsonX(key1, "PUT", "/api/v1/evaluations/20", map[string]any{"name": "E2"}, map[string]any{"id": 20, "name": "E2", "status": "running"}))

	_, set := writeLoad(t, rec)
	if len(set.Models) != 2 || set.Models[0].Name != "Bot v2" || set.Models[0].State != "ready" || set.Models[0].ID != 11 ||
		set.Models[1].Name != "Older" || set.Models[1].State != "training" || set.Models[0].FineTune != "qlora" {
		t.Errorf("models: got %+v, want Bot v2 (11, ready) and Older (14, training)", set.Models)
	}
	if len(set.Datasets) != 1 || set.Datasets[0].ID != 10 || strings.Join(set.Datasets[0].Tags, "|") != "hr|people" {
		t.Errorf("datasets: got %+v, want Handbook (10) tagged hr, people", set.Datasets)
	}
	// A running evaluation is recorded as pending (documented).
	if len(set.Evaluations) != 1 || set.Evaluations[0].Name != "E2" || set.Evaluations[0].Status != "pending" || set.Evaluations[0].QuestionCount != 4 {
		t.Errorf("evaluations: got %+v, want E2, pending, 4 questions", set.Evaluations)
	}
	changed := strings.Join(rec.Summary().Accounts[0].Changed, "\n")
	if !strings.Contains(changed, `status "running" recorded as "pending"`) {
		t.Errorf("the summary does not name the running evaluation recorded as pending:\n%s", changed)
	}
}

// TestMessagesFromStreamsAndReads: an inference in a conversation adds the
// question and the joined token/delta chunks; a message list read replaces
// what it covers.
func TestMessagesFromStreamsAndReads(t *testing.T) {
	rec := recording.New()
	base(rec, key1)
	conv := map[string]any{"id": "c-1", "model_id": 11, "title": "Chat"}
	rec.Observe(jsonX(key1, "POST", "/api/v1/user/conversations", conv, conv))
	stream := "data: {\"type\":\"status\",\"content\":\"retrieving\"}\n\ndata: {\"type\":\"token\",\"content\":\"27 \"}\n\n" +
		"data: {\"type\":\"reasoning\",\"content\":\"hmm\"}\n\n: a comment\r\nevent: message\r\ndata: {\"type\":\"delta\",\r\ndata:  \"content\":\"days.\"}\r\n\r\ndata: [DONE]\n\n"
	x := jsonX(key1, "POST", "/api/v1/user/inference", map[string]any{"query": "Leave?", "model_id": 11, "conversation_id": "c-1"}, nil)
	x.ResponseHeader, x.ResponseBody = header("", "text/event-stream"), []byte(stream)
	rec.Observe(x)
	// One JSON result (D-04) counts the same.
	y := jsonX(key1, "POST", "/api/v1/user/inference", map[string]any{"query": "Again?", "model_id": 11, "conversation_id": "c-1"},
		map[string]any{"response": "Still 27.", "thread_id": "t"})
	rec.Observe(y)

	_, set := writeLoad(t, rec)
	got := set.Conversations[0].Messages
	want := []fixtures.Message{{Role: "user", Content: "Leave?"}, {Role: "assistant", Content: "27 days."},
		{Role: "user", Content: "Again?"}, {Role: "assistant", Content: "Still 27."}}
	if !equalMessages(got, want) {
		t.Errorf("messages: got %+v, want %+v", got, want)
	}

	rec.Observe(jsonX(key1, "GET", "/api/v1/user/conversations/c-1/messages", nil,
		[]any{map[string]any{"id": "m1", "role": "system", "content": "Be brief."}, map[string]any{"id": "m2", "role": "user", "content": "Leave?"}}))
	rec.Observe(jsonX(key1, "PATCH", "/api/v1/user/conversations/c-1", map[string]any{"title": "Renamed"}, map[string]any{"id": "c-1", "model_id": 11, "title": "Renamed"}))
	_, set = writeLoad(t, rec)
	if c := set.Conversations[0]; c.Title != "Renamed" || !equalMessages(c.Messages, []fixtures.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Leave?"}}) {
		t.Errorf("after a message read and a rename: got %+v", c)
	}
	rec.Observe(jsonX(key1, "DELETE", "/api/v1/user/conversations/c-1", nil, map[string]any{"id": "c-1"}))
	if _, set = writeLoad(t, rec); len(set.Conversations) != 0 {
		t.Errorf("a deleted conversation was written: %+v", set.Conversations)
	}
}

func equalMessages(a, b []fixtures.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestUnrecordableIsLeftOutAndNamed: what the format cannot hold is left
// out with a reason, and what depends on it with it; exchanges that change
// nothing are counted by reason.
func TestUnrecordableIsLeftOutAndNamed(t *testing.T) {
	rec := recording.New()
	base(rec, key1)
	// Dataset 30 was created before the recording: its file's text is unknown.
	rec.Observe(jsonX(key1, "GET", "/api/v1/user/dataset/30", nil, map[string]any{"id": 30, "name": "Old", "files": []any{map[string]any{"name": "old.pdf"}}}))
	rec.Observe(jsonX(key1, "GET", "/api/v1/user/model/31", nil, model(31, 30, "Old bot", "ready")))
	// The server accepted an empty file the mock cannot read.
	rec.Observe(formX(key1, "/api/v1/user/dataset/upload", map[string]string{"dataset_id": "10"}, map[string]string{"empty.txt": "", "blob.bin": "\x00\x01\x02binary\x00"},
		map[string]any{"success": true, "dataset_id": 10, "failed_files": []string{}}))
	rec.Observe(jsonX(key1, "POST", "/api/v1/user/conversations", nil, map[string]any{"id": "c-1", "model_id": 11, "title": "Chat"}))
	rec.Observe(jsonX(key1, "POST", "/api/v1/user/conversations", nil, map[string]any{"id": "c-2", "model_id": 11, "title": ""}))
	rec.Observe(jsonX(key1, "POST", "/api/v1/user/conversations", nil, map[string]any{"id": "c-3", "model_id": 11, "title": "Chat"}))
	rec.Observe(jsonX(key1, "POST", "/api/v1/evaluations", nil, map[string]any{"id": 40, "name": "X", "model_id": 11, "type": "vibes", "benchmark_type": "beir", "question_count": 1}))
	rec.Observe(jsonX("", "GET", "/api/v1/user/model", nil, []any{}))
	rec.Observe(jsonX(key1, "GET", "/health", nil, nil))
	rec.Observe(status(jsonX(key1, "POST", "/api/v1/user/model", nil, nil), 422))
	example := jsonX(key1, "GET", "/api/v1/user/model", nil, []any{model(99, 10, "Example", "ready")})
	example.RequestHeader.Set("Prefer", "example=ready")
	rec.Observe(example)

	_, set := writeLoad(t, rec)
	if len(set.Datasets) != 1 || len(set.Datasets[0].Files) != 1 || len(set.Models) != 1 || len(set.Conversations) != 2 || len(set.Evaluations) != 0 {
		t.Errorf("set: got %+v, want only Handbook with its one readable file, Bot, and two conversations (Chat, untitled)", set)
	}
	sum := rec.Summary()
	skipped := strings.Join(sum.Accounts[0].Skipped, "\n")
	for _, want := range []string{
		`dataset 30 "Old": file "old.pdf" listed by the server was not uploaded through the proxy`,
		`dataset 30 "Old": no file of it passed the proxy readable`,
		`model 31 "Old bot": its dataset 30 is not in the recording`,
		`file "empty.txt" left out: the mock cannot read it`,
		`file "blob.bin" left out: the mock cannot read it`,
		`conversation c-3: title "Chat" is already another recorded conversation's`,
		`evaluation 40 "X": type "vibes"`,
	} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped lacks %q:\n%s", want, skipped)
		}
	}
	if sum.Exchanges != 13 || sum.Ignored["the answer was made up on request (Prefer: example, dynamic or code), not the server's data"] != 1 || sum.Ignored["no API key in the request"] != 1 || sum.Ignored["answer was not a success"] != 1 ||
		sum.Ignored["not an operation of the contract that holds data"] != 1 {
		t.Errorf("summary: %d exchanges, ignored %v", sum.Exchanges, sum.Ignored)
	}
	if lines := sum.Lines(); len(lines) < 1+7 || !strings.HasPrefix(lines[0], "recorded .: 1 datasets (1 files), 1 models") {
		t.Errorf("lines: %q", lines)
	}
}

// TestNoKeyIsWritten: two keys give two sets (the second in account-2), and
// no key is in any file written, even where a recorded text held it.
func TestNoKeyIsWritten(t *testing.T) {
	rec := recording.New()
	base(rec, key1)
	rec.Observe(formX(key2, "/api/v1/user/dataset", map[string]string{"dataset_name": "Keys " + key1, "description": "mine is " + key2},
		map[string]string{key2 + ".md": "# Notes\n\nThe key " + key1 + " is in this file.\n"}, dataset(1000000001, "Keys "+key1)))
	rec.Observe(jsonX(key2, "GET", "/api/v1/user/model/1000000002", nil, model(1000000002, 1000000001, "Bot "+key2, "ready")))
	dir, set := writeLoad(t, rec)
	if len(set.Datasets) != 1 || set.Datasets[0].Name != "Handbook" {
		t.Errorf("the first key's set: got %+v", set.Datasets)
	}
	b2, err := fixtures.Load(filepath.Join(dir, "account-2"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b2.Set.Datasets) != 1 || b2.Set.Datasets[0].Name != "Keys [REDACTED]" || b2.Set.Datasets[0].ID != 0 || len(b2.Set.Models) != 1 {
		t.Errorf("the second key's set: got %+v (ids past fixtures.MaxID are not kept)", b2.Set)
	}
	n := 0
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := os.ReadFile(p)
		for _, k := range []string{key1, key2} {
			if bytes.Contains(data, []byte(k)) || strings.Contains(p, k) {
				t.Errorf("%s holds a key", p)
			}
		}
		return err
	})
	if err != nil || n != 4 {
		t.Errorf("walk: %v, %d files, want 4 (two sets, two files)", err, n)
	}
}

// TestConversationsOldestFirst: conversations seen only in a list (newest
// first) are written oldest first, so the mock lists them as the server did.
func TestConversationsOldestFirst(t *testing.T) {
	rec := recording.New()
	base(rec, key1)
	conv := func(id, title, at string) map[string]any {
		return map[string]any{"id": id, "model_id": 11, "title": title, "created_at": at}
	}
	rec.Observe(jsonX(key1, "GET", "/api/v1/user/conversations", nil, []any{
		conv("c3", "Third", "2026-03-01T10:00:00Z"), conv("c2", "Second", "2026-03-01T09:00:00Z"), conv("c1", "First", "2026-03-01T08:00:00.5Z"),
	}))
	_, set := writeLoad(t, rec)
	var titles []string
	for _, c := range set.Conversations {
		titles = append(titles, c.Title)
	}
	if got := strings.Join(titles, ","); got != "First,Second,Third" {
		t.Errorf("conversations written as %s, want First,Second,Third (oldest first)", got)
	}
}

// TestUploadBytesBounded: past the bound on kept upload bytes, an upload's
// files are not kept, and the summary says so.
func TestUploadBytesBounded(t *testing.T) {
	rec := recording.New()
	recording.SetMaxFileBytes(rec, int64(len(handbook)+10))
	base(rec, key1) // keeps the handbook
	rec.Observe(formX(key1, "/api/v1/user/dataset/upload", map[string]string{"dataset_id": "10"}, map[string]string{"more.md": handbook},
		map[string]any{"success": true, "dataset_id": 10, "failed_files": []string{}}))
	_, set := writeLoad(t, rec)
	if len(set.Datasets) != 1 || len(set.Datasets[0].Files) != 1 {
		t.Errorf("datasets: got %+v, want Handbook with its first file only", set.Datasets)
	}
	if n := rec.Summary().Ignored["upload files not kept: the recording holds its limit of uploaded bytes (MaxFileBytes) already"]; n != 1 {
		t.Errorf("the summary counts %d uploads not kept, want 1", n)
	}
}

// TestAnswersThatBreakTheContractAreNotRecorded: the one judge's verdict
// decides. An answer the proxy judged as breaking the declared contract
// is no record, and an unjudged one is judged by the Recorder's judge.
func TestAnswersThatBreakTheContractAreNotRecorded(t *testing.T) {
	j := judge.New(spec.Strict(), spec.Declared())
	for _, tt := range []struct {
		name   string
		judged bool
	}{{"judged by the proxy", true}, {"judged by the recorder", false}} {
		t.Run(tt.name, func(t *testing.T) {
			rec := recording.New()
			rec.SetJudge(j)
			base(rec, key1)
			// A read of model 11 whose id is a string: §2.1 says integer.
			broken := jsonX(key1, "GET", "/api/v1/user/model/11", nil, map[string]any{"id": "eleven", "name": "Broken"})
			if tt.judged {
				broken.Judged = true
				broken.Verdict = j.Verdict(&exchange.Exchange{Method: broken.Method, Path: broken.Path, RequestHeader: broken.RequestHeader,
					Status: broken.Status, ResponseHeader: broken.ResponseHeader, Raw: broken.ResponseBody}, nil, false)
			}
			rec.Observe(broken)
			_, set := writeLoad(t, rec)
			if len(set.Models) != 1 || set.Models[0].Name != "Bot" {
				t.Errorf("models: got %+v, want Bot as created (the broken read not recorded)", set.Models)
			}
			if n := rec.Summary().Ignored["the answer breaks the declared contract (the one judge's verdict)"]; n != 1 {
				t.Errorf("ignored as breaking the contract: %d, want 1 (%v)", n, rec.Summary().Ignored)
			}
		})
	}
}

// TestModelRecordedInTheStateSeen: a model seen pending or queued is
// recorded pending, one seen training (or in a server's own word for it)
// training: the fixture reads back as the recording saw it.
func TestModelRecordedInTheStateSeen(t *testing.T) {
	rec := recording.New()
	base(rec, key1) // model 11, "pending"
	rec.Observe(jsonX(key1, "GET", "/api/v1/user/model/12", nil, model(12, 10, "Queued", "queued")))
	rec.Observe(jsonX(key1, "GET", "/api/v1/user/model/13", nil, model(13, 10, "Busy", "training")))
	rec.Observe(jsonX(key1, "GET", "/api/v1/user/model/14", nil, model(14, 10, "Going", "in_progress")))
	_, set := writeLoad(t, rec)
	got := map[string]string{}
	for _, m := range set.Models {
		got[m.Name] = m.State
	}
	want := map[string]string{"Bot": "pending", "Queued": "pending", "Busy": "training", "Going": "training"}
	for name, state := range want {
		if got[name] != state {
			t.Errorf("model %q recorded %q, want %q (all: %v)", name, got[name], state, got)
		}
	}
}
