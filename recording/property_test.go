package recording_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"pgregory.net/rapid"

	"contractkit/fixtures"
	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/store"
	"contractkit/recording"
)

// anyExchange draws one exchange of any recorded operation, in any order,
// with ids from a small pool (so reads, updates and deletes meet earlier
// creates), any status, and sometimes a broken body.
func anyExchange(t *rapid.T) recording.Exchange {
	key := rapid.SampledFrom([]string{key1, key2, ""}).Draw(t, "key")
	id := rapid.Int64Range(1, 6).Draw(t, "id")
	other := rapid.Int64Range(1, 6).Draw(t, "other")
	name := rapid.SampledFrom([]string{"A", "B", "", key1, "A"}).Draw(t, "name")
	conv := rapid.SampledFrom([]string{"c1", "c2", "c3"}).Draw(t, "conv")
	var x recording.Exchange
	switch rapid.IntRange(0, 13).Draw(t, "op") {
	case 0:
		text := rapid.SampledFrom([]string{handbook, "", "\x00bin", "a,b\n1,2\n", "plain " + key2}).Draw(t, "text")
		x = formX(key, "/api/v1/user/dataset", map[string]string{"dataset_name": name, "urls": "https://a.example/ ftp://b"},
			map[string]string{rapid.SampledFrom([]string{"a.md", "../x.csv", "n\x01.txt", ""}).Draw(t, "file"): text}, dataset(id, name))
	case 1:
		x = formX(key, "/api/v1/user/dataset/upload", map[string]string{"dataset_id": fmt.Sprint(id)}, map[string]string{"b.txt": "more text"},
			map[string]any{"dataset_id": id, "failed_files": []string{}})
	case 2:
		x = jsonX(key, "GET", "/api/v1/user/dataset", nil, []any{dataset(id, name)})
	case 3:
		x = jsonX(key, "DELETE", fmt.Sprintf("/api/v1/user/dataset/%d", id), nil, map[string]any{"id": id})
	case 4:
		x = jsonX(key, "POST", "/api/v1/user/model", nil, model(id, other, name,
			rapid.SampledFrom([]string{"pending", "training", "ready", "failed", "weird", ""}).Draw(t, "state")))
	case 5:
		x = jsonX(key, "GET", fmt.Sprintf("/api/v1/user/model/%d", id), nil, model(id, other, name, "ready"))
	case 6:
		x = jsonX(key, "DELETE", fmt.Sprintf("/api/v1/user/model/%d", id), nil, nil)
	case 7:
		x = jsonX(key, "POST", "/api/v1/user/conversations", nil, map[string]any{"id": conv, "model_id": id, "title": name})
	case 8:
		x = jsonX(key, "GET", "/api/v1/user/conversations/"+conv+"/messages", nil,
			[]any{map[string]any{"role": rapid.SampledFrom([]string{"user", "bot", "assistant"}).Draw(t, "role"), "content": name}})
	case 9:
		x = jsonX(key, "POST", "/api/v1/user/inference", map[string]any{"query": name, "model_id": id, "conversation_id": conv}, nil)
		x.ResponseHeader.Set("Content-Type", "text/event-stream")
		x.ResponseBody = []byte("data: {\"type\":\"token\",\"content\":\"" + name + "\"}\n\ndata: [DONE]\n\n")
	case 10:
		x = jsonX(key, "POST", "/api/v1/evaluations", nil, map[string]any{"id": id, "name": name, "model_id": other,
			"type": rapid.SampledFrom([]string{"ragas", "benchmark", "x"}).Draw(t, "type"), "benchmark_type": "beir",
			"question_count": rapid.IntRange(0, 3).Draw(t, "count"),
			"status":         rapid.SampledFrom([]string{"pending", "running", "completed", "failed", "odd"}).Draw(t, "status")})
	case 11:
		x = jsonX(key, "POST", fmt.Sprintf("/api/v1/evaluations/%d/start", id), nil, nil)
	case 12:
		x = jsonX(key, "GET", "/api/v1/evaluations", nil, map[string]any{"evaluations": []any{}, "total": 0})
	default:
		x = jsonX(key, "DELETE", fmt.Sprintf("/api/v1/evaluations/%d", id), nil, nil)
	}
	if rapid.IntRange(0, 9).Draw(t, "broken") == 0 {
		x.ResponseBody = x.ResponseBody[:len(x.ResponseBody)/2]
	}
	if rapid.IntRange(0, 9).Draw(t, "404") == 0 {
		x = status(x, 404)
	}
	return x
}

// TestAnyOrderWritesALoadableSet: whatever the exchanges and their order,
// every set written loads (fixtures.Load) and preloads into a fresh mock
// account, holds no key, and a second Write writes the same bytes.
func TestAnyOrderWritesALoadableSet(t *testing.T) {
	root := t.TempDir()
	runs := 0
	rapid.Check(t, func(t *rapid.T) {
		runs++
		rec := recording.New()
		// Both keys pass (refused), so the recorder knows them as keys.
		rec.Observe(status(jsonX(key2, "GET", "/api/v1/user/model", nil, nil), 401))
		rec.Observe(status(jsonX(key1, "GET", "/api/v1/user/model", nil, nil), 401))
		n := rapid.IntRange(0, 40).Draw(t, "n")
		for range n {
			rec.Observe(anyExchange(t))
		}
		dir, again := filepath.Join(root, fmt.Sprint(runs), "a"), filepath.Join(root, fmt.Sprint(runs), "b")
		if err := rec.Write(dir); err != nil {
			t.Fatal(err)
		}
		if err := rec.Write(again); err != nil {
			t.Fatal(err)
		}
		for _, acc := range rec.Summary().Accounts {
			sub := filepath.Join(dir, acc.Dir)
			b, err := fixtures.Load(sub)
			if err != nil {
				t.Fatal(err)
			}
			s := store.New(store.Config{Clock: lifecycle.NewFakeClock(epoch), TrainDuration: time.Second, EvalDuration: time.Second})
			if err := s.Account("account-1").Preload(b); err != nil {
				t.Fatalf("preload %s: %v", acc.Dir, err)
			}
		}
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			same, _ := os.ReadFile(filepath.Join(again, rel))
			if !bytes.Equal(data, same) {
				t.Errorf("%s differs between two writes", rel)
			}
			if bytes.Contains(data, []byte(key1)) || bytes.Contains(data, []byte(key2)) {
				t.Errorf("%s holds a key", rel)
			}
			return nil
		})
	})
}
