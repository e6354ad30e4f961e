package refmodel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"contractkit/conformance/client"
	"contractkit/conformance/explore"
	"contractkit/conformance/refmodel"
	"contractkit/conformance/refmodel/drive"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"
)

// Class complete by construction: every fact the reference states of an
// answer (spec.Facts: a field's type, nullability and enum, a required
// member, the envelope, a success status the seed names, a seed default, the
// 401 of §5.3) is broken alone in one answer of a recorded run of the mock,
// and the one judge and the reference model, fed the run up to that answer,
// must report a declared finding where the fact stands. A fact added to the
// contract fails here until its break is declared, whichever rule, check or
// decided row first meets it.

// recorded is one event of a recorded run: an exchange, or the clock moved.
type recorded struct {
	advance bool
	call    refmodel.Call
	answer  refmodel.Answer
	x       *exchange.Exchange
}

// recClock moves the mock's clock and records that it moved, so a replay
// moves the model's at the same place.
type recClock struct {
	clock drive.Clock
	log   *[]recorded
}

func (c recClock) Advance(d time.Duration) {
	*c.log = append(*c.log, recorded{advance: true})
	c.clock.Advance(d)
}

// clientHost is the suite's client as the explore phase's host: the
// model's calls go through it, so each answer is an exchange as the suite
// reads it.
type clientHost struct{ c *client.Client }

func (h clientHost) Client() *client.Client  { return h.c }
func (clientHost) Shared() map[string]string { return nil }
func (h clientHost) Remove(ctx context.Context, path string) {
	h.c.Do(ctx, client.Request{Method: http.MethodDelete, Path: path})
}

// recordCalls bounds the recorded run: the coverage phases reach every
// operation, state and refusal well before it.
const recordCalls = 900

var recordOnce struct {
	sync.Once
	run []recorded
}

// recordRun drives a fresh mock through the model's coverage phases with
// the suite's client and returns every exchange and clock move, in order.
func recordRun(t *testing.T) []recorded {
	t.Helper()
	recordOnce.Do(func() {
		srv := startMock(t, nil)
		u, _ := url.Parse(srv.url)
		host := clientHost{c: client.New(u, keyA, keyB, 20*time.Second)}
		var log []recorded
		cfg := drive.Config{Seed: 1, Clock: recClock{srv.clock, &log}, Train: trainFor, Eval: evalFor, UploadLimit: uploadLimit,
			MaxCalls: recordCalls, Keep: true,
			After: func(_ int, c refmodel.Call, a refmodel.Answer) {
				x, _ := a.Note.(*exchange.Exchange)
				log = append(log, recorded{call: c, answer: a, x: x})
			}}
		r := drive.Drive(context.Background(), explore.ModelSender(host, nil), cfg)
		if len(r.Found) > 0 {
			t.Fatalf("the recorded run is not clean:\n%s", r.Explain(r.Found))
		}
		recordOnce.run = log
	})
	if recordOnce.run == nil {
		t.Fatal("no recorded run")
	}
	return recordOnce.run
}

// instance is one place of a recorded answer where a fact stands.
type instance struct {
	step int    // the event's index
	ptr  string // the concrete pointer ("/data/3/status")
}

func TestEveryDeclaredFactBrokenIsDeclared(t *testing.T) {
	proofs(t)
	run := recordRun(t)
	j := judge.New(spec.Strict(), spec.Declared())
	facts := spec.Declared().Facts()
	types := map[string]string{} // "op status pointer" → its declared type
	for _, f := range facts {
		if f.Kind == spec.FactType {
			types[fmt.Sprintf("%s %d %s", f.Op, f.Status, f.Pointer)], _ = f.Want.(string)
		}
	}
	byPlace := map[string][]spec.Fact{}
	var places []string
	for _, f := range facts {
		if byPlace[f.Place] == nil {
			places = append(places, f.Place)
		}
		byPlace[f.Place] = append(byPlace[f.Place], f)
	}
	sort.Strings(places)
	var unshown, undeclared []string
	broken := 0
	for _, place := range places {
		f, in, ok := firstInstance(run, byPlace[place])
		if !ok {
			unshown = append(unshown, byPlace[place][0].String())
			continue
		}
		if base := judged(j, run, in.step, run[in.step].answer, run[in.step].x, modelFact(f)); declaredAt(base, in.ptr) {
			t.Errorf("%s: the recorded answer at step %d breaks it already: %s", f, in.step, strings.Join(base.Lines(), "; "))
			continue
		}
		a, x := breakFact(run, in.step, f, in.ptr, types)
		if modelFact(f) {
			if here := at(j.Verdict(x, nil, false), in.ptr).Class(judge.Declared); len(here) > 0 {
				t.Errorf("%s: the break is not of the fact alone: the judge finds %q", f, here.Lines())
			}
		}
		fs := judged(j, run, in.step, a, x, modelFact(f))
		broken++
		if !declaredAt(fs, in.ptr) {
			undeclared = append(undeclared, fmt.Sprintf("%s, broken at step %d %s: %s", f, in.step, in.ptr, strings.Join(fs.Lines(), "; ")))
		}
	}
	t.Logf("%d facts at %d places; %d broken", len(facts), len(places), broken)
	for _, u := range undeclared {
		t.Errorf("a declared fact broken, and no declared finding: %s", u)
	}
	for _, u := range unshown {
		t.Errorf("no answer of the recorded run shows %s: the run must reach it", u)
	}
}

// judged is what the judge, and the model fed the run before it when
// withModel, find of answer a (read as x) at step.
func judged(j *judge.Judge, run []recorded, step int, a refmodel.Answer, x *exchange.Exchange, withModel bool) judge.Findings {
	fs := j.Verdict(x, nil, false).Side(judge.Server)
	if withModel {
		fs = append(fs, replay(run, step, a)...)
	}
	return fs
}
