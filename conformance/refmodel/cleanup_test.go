package refmodel_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"contractkit/conformance/refmodel"
	"contractkit/conformance/refmodel/drive"
)

// holdings lists what account k holds that the run may have made: its
// models, datasets and evaluations, as "kind/id".
func holdings(t *testing.T, send drive.Sender, k refmodel.Key) []string {
	t.Helper()
	var out []string
	ids := func(kind string, v any) int {
		items, _ := v.([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			out = append(out, fmt.Sprintf("%s/%v", kind, m["id"]))
		}
		return len(items)
	}
	for _, l := range []struct{ op, kind string }{{"listModels", "model"}, {"listDatasets", "dataset"}} {
		a := send.Send(context.Background(), refmodel.Call{Op: l.op, Key: k})
		body, _ := a.Body.(map[string]any)
		ids(l.kind, body["data"])
	}
	for page := 1; page < 100; page++ {
		a := send.Send(context.Background(), refmodel.Call{Op: "listEvaluations", Key: k, Query: query("page", fmt.Sprint(page), "per_page", "100")})
		body, _ := a.Body.(map[string]any)
		data, _ := body["data"].(map[string]any)
		if ids("evaluation", data["evaluations"]) == 0 {
			break
		}
	}
	slices.Sort(out)
	return out
}

// The run's clean-up has a context of its own: a run whose time is up
// (its context ended midway, as the suite's model phase does against a
// slow server) still deletes what it made, and the report still says why
// the run ended early.
func TestCleanupOutlivesTheRunsTime(t *testing.T) {
	srv := startMock(t, nil)
	send := newSender(t, srv)
	before := map[refmodel.Key][]string{}
	for _, k := range []refmodel.Key{refmodel.KeyA, refmodel.KeyB} {
		before[k] = holdings(t, send, k)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := drive.Config{Seed: 3, Steps: 20, Clock: srv.clock, Train: trainFor, Eval: evalFor, UploadLimit: uploadLimit,
		After: func(step int, _ refmodel.Call, _ refmodel.Answer) {
			if step == 150 { // mid-tour: models, datasets and evaluations made
				cancel()
			}
		}}
	r := drive.Drive(ctx, send, cfg)
	if r.Stopped == "" {
		t.Fatalf("the run was not cut short (%d steps): the test proves nothing", len(r.Steps))
	}
	for _, k := range []refmodel.Key{refmodel.KeyA, refmodel.KeyB} {
		if after := holdings(t, send, k); !slices.Equal(after, before[k]) {
			t.Errorf("account %d holds %v after the run, held %v before (ended early: %s)", k, after, before[k], r.Stopped)
		}
	}
}
