package refmodel_test

import (
	"context"
	"testing"
	"time"

	"contractkit/conformance/refmodel/drive"
	"contractkit/judge"
	"contractkit/mockserver"
	"contractkit/mutation"
)

// Against a server on its own clock the model is not frozen: a delete of a
// running evaluation answered 200 may be an evaluation that ended just
// before it, so the finding is confirmed by replay. Replaying the delete
// itself meets nothing (it took); the scenario is replayed on a fresh
// running evaluation instead, and a server that lets the second delete
// through does it again: the finding is confirmed, the run fails.
func TestATookDeleteIsConfirmedOnAFreshResource(t *testing.T) {
	proofs(t)
	var m mutation.Mutant
	for _, x := range mutation.Modelled() {
		if x.Name == "repeat-running-delete-second-accepted" {
			m = x
		}
	}
	if m.Name == "" {
		t.Fatal("no mutant repeat-running-delete-second-accepted")
	}
	srv := startMock(t, m.Wrapper(mutation.Options{Keys: []string{keyA, keyB}}), func(c *mockserver.Config) {
		c.Clock, c.TrainDuration, c.EvalDuration = nil, 200*time.Millisecond, 30*time.Second
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	declared := func(f judge.Finding) bool {
		return f.Class == judge.Declared && f.Operation == "deleteEvaluation" && f.Rule == "state"
	}
	r := drive.Drive(ctx, newSender(t, srv), drive.Config{Seed: 1, UploadLimit: uploadLimit, MaxWait: 5 * time.Second, Enough: declared, Keep: true})
	for _, f := range r.Found {
		if declared(f.Finding) {
			if f.Replay < 0 {
				t.Errorf("confirmed without a replay: %s", f.Finding)
			}
			return
		}
	}
	for _, f := range r.Unconfirmed {
		t.Logf("unconfirmed: %s", f.Finding)
	}
	t.Errorf("the second delete of a running evaluation let through was not confirmed (%d calls, stopped: %q)", len(r.Steps), r.Stopped)
}
