package conformance

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"contractkit/bound"
	"contractkit/mutation"
)

// Runs against servers that hang on one operation, refuse every delete of
// one kind, or answer everything late: a stuck operation is named once per
// run, the clean-up's waits are bounded per kind, and every clean-up has
// its own time.

// streamCounter counts the event streams a server starts.
type streamCounter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w streamCounter) WriteHeader(code int) {
	if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		w.n.Add(1)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w streamCounter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// hostileMock is the mock behind the hostile server name of the mutation
// runner, its event streams counted.
func hostileMock(t *testing.T, name string, streams *atomic.Int64) string {
	t.Helper()
	m, err := mutation.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := slowMock(t, func(h http.Handler) http.Handler {
		wrapped := m.Wrapper(mutation.Options{Keys: []string{testKey, testKey2}})(h)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			wrapped.ServeHTTP(streamCounter{w, streams}, r)
		})
	})
	return base
}

// A server whose inference streams never end, or go silent after their
// first event, is named after bound.DefaultStall deadlines of the
// operation in the whole run, not in each area that streams: every later
// inference request is withheld, in every area, its check skipped with
// the reason. Before, each area started its count again.
func TestStuckStreamIsNamedOncePerRun(t *testing.T) {
	for _, name := range []string{"hostile-stream-never-done", "hostile-stream-silent"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var streams atomic.Int64
			base := hostileMock(t, name, &streams)
			const timeout = 2 * time.Second
			begin := time.Now()
			code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--api-key-2", testKey2, "--timeout", timeout.String(),
				"--explore", "0", "--label-filter", "inference || limits || conversations || isolation")
			took := time.Since(begin)
			if code != ExitFail {
				t.Errorf("exit %d, want %d", code, ExitFail)
			}
			if n := streams.Load(); n != bound.DefaultStall {
				t.Errorf("%d inference streams opened, want %d: the operation stopped once for the whole run\n%s", n, bound.DefaultStall, out)
			}
			if !strings.Contains(out, "not sent: the server stopped answering runInference (its event stream): 3 deadlines in a row") {
				t.Errorf("no check was skipped with the reason:\n%s", out)
			}
			t.Logf("%s: %d streams, %s", name, streams.Load(), took.Round(time.Second))
		})
	}
}

// refusingDeletes refuses every delete of an evaluation, as a server does
// while one runs (409), and counts those deletes and the evaluations
// they name.
type refusingDeletes struct {
	mu      sync.Mutex
	deletes int
	ids     map[string]bool
}

func (d *refusingDeletes) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, ok := strings.CutPrefix(r.URL.Path, pathEvaluations+"/"); r.Method == http.MethodDelete && ok {
			d.mu.Lock()
			d.deletes++
			d.ids[id] = true
			d.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"status":"error","message":"the evaluation is running"}`)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// A server that refuses every evaluation delete costs the clean-up one
// --timeout of waiting in all, not one per evaluation: after three
// deletes stay refused past their wait (or their shared wait is used up),
// each remaining evaluation is tried once and reported left behind.
func TestCleanupStopsWaitingForRefusedDeletes(t *testing.T) {
	d := &refusingDeletes{ids: map[string]bool{}}
	base, _ := slowMock(t, d.wrap)
	const timeout = 3 * time.Second
	code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--timeout", timeout.String(), "--explore", "0",
		"--label-filter", "evaluations")
	d.mu.Lock()
	deletes, ids := d.deletes, len(d.ids)
	d.mu.Unlock()
	if code != ExitFail || !strings.Contains(out, "Left behind: ") || strings.Contains(out, "Left behind: none") {
		t.Errorf("exit %d, want %d (the delete checks fail) and the evaluations left behind listed:\n%s", code, ExitFail, out)
	}
	// One wait of --timeout polls every pollInterval; every other
	// evaluation is tried once (the delete checks' own deletes aside).
	polls := int(timeout / pollInterval)
	if ids < 3 || deletes > 2*ids+polls+2 {
		t.Errorf("%d deletes of %d evaluations: the clean-up waited for each (one wait is about %d deletes)", deletes, ids, polls)
	}
	t.Logf("%d deletes of %d evaluations", deletes, ids)
}

// late holds every request d before the mock sees it.
func late(d time.Duration) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// A server 150 ms or 300 ms late on every answer is a valid server: the
// run ends with exit 0 and nothing left behind. The reference model's part
// runs out of its time against it (here 5 s; in a default run its 90 s
// do, as the run showed) and its clean-up still deletes what it
// made, on a context and time of its own. Before, the clean-up shared the
// part's expired context and sent nothing: the run exited 4 with what the
// part made left behind.
func TestSlowServerCleansUpAfterItsTime(t *testing.T) {
	for _, d := range []time.Duration{150 * time.Millisecond, 300 * time.Millisecond} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			base, _ := slowMock(t, late(d))
			code, out := runChildEnv(t, []string{modelTimeEnv + "=5s"}, "--base-url", base, "--api-key", testKey, "--api-key-2", testKey2,
				"--timeout", "10s", "--label-filter", "explore:model", "--explore", "20")
			if !strings.Contains(out, "ended early: its time was up") {
				t.Errorf("the model part did not run out of its time: the test proves nothing\n%s", out[max(0, len(out)-3000):])
			}
			if code != 0 || !strings.Contains(out, "Left behind: none") {
				t.Errorf("exit %d, want 0 and nothing left behind:\n%s", code, out[max(0, len(out)-3000):])
			}
		})
	}
}
