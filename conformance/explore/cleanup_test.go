package explore

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"
)

// patientHost is testHost whose clean-up waits out a running evaluation
// (refused until it ends), as the suite's does.
type patientHost struct{ testHost }

func (h patientHost) Remove(ctx context.Context, path string) {
	for range 40 {
		x := h.c.Do(ctx, client.Request{Method: http.MethodDelete, Path: path})
		if x.Status != http.StatusConflict || !client.Pause(ctx, 100*time.Millisecond) {
			return
		}
	}
}

// held lists the models, datasets and evaluations the first account holds.
func held(t *testing.T, c *client.Client) []string {
	t.Helper()
	var out []string
	for _, l := range []struct{ path, kind string }{{"/api/v1/user/model", "model"}, {"/api/v1/user/dataset", "dataset"}, {"/api/v1/evaluations?per_page=100", "evaluation"}} {
		x := c.Do(context.Background(), client.Request{Method: http.MethodGet, Path: l.path})
		body, _ := judge.ParseJSON(x.Raw)
		items := judge.Records(body.Get("data"))
		for _, id := range judge.IDs(items) {
			out = append(out, l.kind+"/"+id)
		}
	}
	slices.Sort(out)
	return out
}

// cancelAfter is a gate that ends the phase's context once n requests
// were sent: between two requests, so no answer is lost on the way.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (g *cancelAfter) Admit(client.Request, []byte, string) (func(*exchange.Exchange), error) {
	if g.n--; g.n == 0 {
		g.cancel()
	}
	return nil, nil
}

// The phase's clean-up has a context of its own: a phase whose context
// ended midway (the run's deadline, an interrupt) still removes what it
// made.
func TestPhaseCleansUpAfterItsTime(t *testing.T) {
	h := patientHost{newTestHost(t)}
	before := held(t, h.c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.c.SetGate(&cancelAfter{n: 120, cancel: cancel})
	found := Run(ctx, h, Config{Seed: 5, Budget: 400})
	h.c.SetGate(nil)
	if ctx.Err() == nil || found.Requests() == 0 {
		t.Fatalf("the phase ended before its context (%d requests): the test proves nothing", found.Requests())
	}
	if after := held(t, h.c); !slices.Equal(after, before) {
		t.Errorf("the account holds %v after the phase, held %v before", after, before)
	}
}
