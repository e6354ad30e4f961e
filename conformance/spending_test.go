package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"contractkit/conformance/budget"
	"contractkit/conformance/client"
	"contractkit/judge"
	"contractkit/spec"
)

// gatedClient is a client whose gate is a ledger for b, against a server
// that answers every request with answer(r).
func gatedClient(t *testing.T, b string, answer func(r *http.Request) (int, string)) (*client.Client, *spending, *atomic.Int64) {
	t.Helper()
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		status, body := answer(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	bud, err := budget.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	c := client.New(u, testKey, "", 5*time.Second)
	s := newSpending(bud, judge.New(spec.Strict(), spec.Declared()))
	c.SetGate(s)
	return c, s, &sent
}

func createModel(name string) client.Request {
	return client.Request{Method: http.MethodPost, Path: pathModels, JSON: map[string]any{"model_name": name, "dataset_id": "3"}}
}

func TestGateSettlesEachCallFromItsAnswer(t *testing.T) {
	next := 20
	c, s, sent := gatedClient(t, "models=2", func(r *http.Request) (int, string) {
		if r.Method == http.MethodDelete {
			return 200, `{"status":"success","data":{"message":"deleted"}}`
		}
		if strings.Contains(r.URL.Path, "/model") && r.Header.Get("X-Refuse") != "" {
			return 422, `{"status":"error","message":"no"}`
		}
		next++
		return 200, fmt.Sprintf(`{"status":"success","data":{"id":%d}}`, next)
	})
	ctx := context.Background()
	c.Do(ctx, createModel("a")) // created 21
	refused := createModel("b")
	refused.Header = http.Header{"X-Refuse": {"1"}}
	c.Do(ctx, refused) // refused: the reservation comes back
	// Meant to be refused (no model_name) but accepted: unplanned, spends
	// nothing beforehand.
	c.Do(ctx, client.Request{Method: http.MethodPost, Path: pathModels, JSON: map[string]any{"dataset_id": "3"}})
	c.Do(ctx, client.Request{Method: http.MethodDelete, Path: at(pathModels, "21")})
	x := c.Do(ctx, createModel("c")) // the cap: 21 and the unplanned 22 took both
	if !errors.Is(x.Withheld, budget.ErrSpent) {
		t.Errorf("a third model: withheld %v, want the budget spent", x.Withheld)
	}
	if n := sent.Load(); n != 4 {
		t.Errorf("%d requests reached the server, want 4 (the withheld one not sent)", n)
	}
	row := s.ledger.Rows()[0]
	if row.Kind != spec.CostModels || strings.Join(row.Created, " ") != "21 22" || strings.Join(row.Unplanned, " ") != "22" ||
		strings.Join(row.Removed, " ") != "21" || strings.Join(row.Left, " ") != "22" || row.Denied != 1 {
		t.Errorf("models row %+v", row)
	}
}

func TestGateGuardsAReusedModel(t *testing.T) {
	c, s, sent := gatedClient(t, "", func(*http.Request) (int, string) { return 404, `{"status":"error","message":"not found"}` })
	s.ledger.Reuse(spec.CostModels, "5")
	ctx := context.Background()
	for _, auth := range []client.Auth{client.AuthKey, client.AuthNone} {
		x := c.Do(ctx, client.Request{Method: http.MethodDelete, Path: at(pathModels, "5"), Auth: auth})
		if !errors.Is(x.Withheld, budget.ErrProtected) || !strings.Contains(x.Error, "not sent") {
			t.Errorf("a delete of the reused model (auth %d): withheld %v, error %q", auth, x.Withheld, x.Error)
		}
	}
	if x := c.Do(ctx, client.Request{Method: http.MethodGet, Path: at(pathModels, "5")}); x.Withheld != nil {
		t.Errorf("a read of the reused model was withheld: %v", x.Withheld)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("%d requests reached the server, want the read only", n)
	}
}

func TestGateCountsACallWithoutAnswerAsLost(t *testing.T) {
	c, s, _ := gatedClient(t, "", func(*http.Request) (int, string) { return 200, `{}` })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.Do(ctx, createModel("a"))
	if left := s.ledger.Left(); len(left) != 1 || !left[0].Lost {
		t.Errorf("left %v, want one unknown model (a call without an answer)", left)
	}
}

func TestFieldsOf(t *testing.T) {
	got := fieldsOf([]byte(`{"model_id": 12, "title": "x", "nested": {"dataset_id": "3"}}`), "application/json")
	if got["model_id"] != "12" || got["title"] != "x" || got["dataset_id"] != "" {
		t.Errorf("JSON fields %v", got)
	}
	if got := fieldsOf([]byte(`not json`), "application/json"); len(got) != 0 {
		t.Errorf("fields of a body that is no JSON: %v", got)
	}
}
