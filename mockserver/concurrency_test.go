package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"contractkit/mockserver/store"
)

// TestConcurrentUse runs creates, reads, streams and deletes in parallel on
// one account and across two (run with -race). Every answer still goes
// through the contract check; afterwards the counts add up.
func TestConcurrentUse(t *testing.T) {
	const (
		workers = 4
		rounds  = 6
	)
	ts := newTestServer(t, withoutFixtures())
	type account struct {
		key   string
		model store.ModelView
		conv  store.ConversationView
	}
	var accounts []*account
	for _, k := range []string{testKey1, testKey2} {
		c := ts.client(t, k)
		m := c.readyModel("shared", fixtureFile(t, "employee-handbook.md"))
		accounts = append(accounts, &account{key: k, model: m, conv: c.createConversation(m.ID, "shared thread")})
	}

	var wg sync.WaitGroup
	for _, a := range accounts {
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := ts.client(goTB{t}, a.key)
				for i := range rounds {
					name := fmt.Sprintf("w%d-r%d", w, i)
					e := c.post("/api/v1/evaluations", map[string]any{"name": name, "model_id": a.model.ID})
					if e.Status != 200 {
						t.Errorf("%s: create evaluation got %d: %s", name, e.Status, e.Body)
						return
					}
					var ev store.EvaluationView
					if err := jsonData(e, &ev); err != nil {
						t.Errorf("%s: %v", name, err)
						return
					}
					if r := c.get(fmt.Sprintf("/api/v1/evaluations/%d", ev.ID)); r.Status != 200 {
						t.Errorf("%s: get evaluation got %d", name, r.Status)
					}
					if r := c.post(fmt.Sprintf("/api/v1/evaluations/%d/start", ev.ID), nil); r.Status != 200 {
						t.Errorf("%s: start got %d", name, r.Status)
					}
					if r := c.get("/api/v1/evaluations?per_page=5&status=running"); r.Status != 200 {
						t.Errorf("%s: list got %d", name, r.Status)
					}
					conv := c.post("/api/v1/user/conversations", map[string]any{"model_id": a.model.ID, "title": name})
					if conv.Status != 200 {
						t.Errorf("%s: create conversation got %d", name, conv.Status)
					}
					// Two messages into the shared thread, as a stream or one JSON answer.
					opts := []reqOpt{}
					if i%2 == 0 {
						opts = append(opts, withHeader("Accept", "application/json"))
					}
					if r := c.post("/api/v1/user/inference", map[string]any{"query": "How many days of paid leave?", "model_id": a.model.ID, "conversation_id": a.conv.ID}, opts...); r.Status != 200 {
						t.Errorf("%s: inference got %d", name, r.Status)
					}
					if r := c.get(fmt.Sprintf("/api/v1/user/model/%d", a.model.ID)); r.Status != 200 {
						t.Errorf("%s: get model got %d", name, r.Status)
					}
					if i%3 == 0 {
						ts.clock.Advance(time.Second) // the clock moves under the readers
					}
				}
			}()
		}
	}
	// Datasets are created and deleted alongside.
	for _, a := range accounts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gt := goTB{t}
			c := ts.client(gt, a.key)
			for i := range rounds {
				ct, body := multipartBody(gt, [][2]string{{"dataset_name", fmt.Sprint("ds ", i)}}, fixtureFile(gt, "release-notes.txt"))
				r := c.do(http.MethodPost, "/api/v1/user/dataset", withBody(ct, body))
				var d store.DatasetView
				if r.Status != 200 || jsonData(r, &d) != nil {
					t.Errorf("dataset %d: got %d", i, r.Status)
					return
				}
				if i%2 == 0 {
					if r := c.do(http.MethodDelete, fmt.Sprintf("/api/v1/user/dataset/%d", d.ID)); r.Status != 200 {
						t.Errorf("delete dataset %d got %d", d.ID, r.Status)
					}
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	for _, a := range accounts {
		c := ts.client(t, a.key)
		if p := c.evaluations("?per_page=100"); p.Total != workers*rounds {
			t.Errorf("%s: evaluations got %d, want %d", a.key[:15], p.Total, workers*rounds)
		}
		if got := len(c.conversations(a.model.ID, "&limit=100")); got != 1+workers*rounds {
			t.Errorf("%s: conversations got %d, want %d", a.key[:15], got, 1+workers*rounds)
		}
		var msgs []store.MessageView
		c.get("/api/v1/user/conversations/"+a.conv.ID+"/messages").want(t, 200).data(t, &msgs)
		if len(msgs) != 2*workers*rounds {
			t.Fatalf("%s: messages got %d, want %d", a.key[:15], len(msgs), 2*workers*rounds)
		}
		for i := 0; i < len(msgs); i += 2 {
			if msgs[i].Role != "user" || msgs[i+1].Role != "assistant" {
				t.Errorf("%s: messages %d, %d are %s, %s: a question and its answer were interleaved", a.key[:15], i, i+1, msgs[i].Role, msgs[i+1].Role)
			}
		}
		if got, want := len(c.datasets()), 1+rounds/2; got != want {
			t.Errorf("%s: datasets got %d, want %d", a.key[:15], got, want)
		}
	}
}

// jsonData decodes a success envelope's data without failing the test from
// a goroutine.
func jsonData(r *apiResponse, v any) error {
	if r.Env.Status != "success" {
		return fmt.Errorf("%s: envelope %q", r.what, r.Env.Status)
	}
	return json.Unmarshal(r.Env.Data, v)
}

// goTB lets helpers that call Fatalf run in a goroutine the test started:
// Fatalf reports and ends that goroutine only (its deferred calls run), as
// FailNow may not be called outside the test's own goroutine.
type goTB struct{ testing.TB }

func (g goTB) Fatalf(format string, args ...any) {
	g.TB.Helper()
	g.TB.Errorf(format, args...)
	runtime.Goexit()
}

func (g goTB) Fatal(args ...any) {
	g.TB.Helper()
	g.TB.Error(args...)
	runtime.Goexit()
}

func (g goTB) FailNow() {
	g.TB.Fail()
	runtime.Goexit()
}
