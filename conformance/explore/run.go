package explore

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// ---- running the phase ----

// rapidSetup gives rapid its settings: rapid reads them from flags on the
// standard command line (and testing.Short), which a plain binary must
// create first.
var rapidSetup sync.Once

func setRapid(name, value string) {
	if err := flag.CommandLine.Set(name, value); err != nil {
		panic("conformance: rapid flag " + name + ": " + err.Error())
	}
}

// exploreSteps is the average length of a sequence.
const exploreSteps = 16

// maxShrink bounds the time spent shrinking one failure.
const maxShrink = 10 * time.Second

// maxRounds bounds the rounds of rapid one phase runs (a round ends when
// its sequences are done or one breaks a property).
const maxRounds = 64

// run explores until the budget is spent, hunting each property down once:
// a round runs rapid until a sequence breaks a property not yet found, and
// rapid shrinks it; the next round goes on with the rest of the budget.
func (x *explorer) run() {
	rapidSetup.Do(func() {
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil) // nothing to parse: the flags only need to count as parsed
		}
	})
	setRapid("rapid.nofailfile", "true")
	setRapid("rapid.steps", strconv.Itoa(exploreSteps))
	x.shared = x.sharedResources()
	for round := uint64(0); round < maxRounds; round++ {
		if x.spent >= x.budget || x.over() {
			break // the budget spent, the phase's time up, or its context ended
		}
		// A sequence spends about 1.5 requests a step.
		checks := max(1, (x.budget-x.spent)/(exploreSteps*3/2))
		setRapid("rapid.checks", strconv.Itoa(checks))
		setRapid("rapid.seed", strconv.FormatUint(x.seed+round*7919+1, 10))
		x.shrinkTime = min(maxShrink, max(time.Second, time.Until(x.deadline)/2))
		setRapid("rapid.shrinktime", x.shrinkTime.String())
		x.recent = nil
		x.shrinking = false
		tb := &rapidTB{}
		x.check(tb)
		if f := x.settle(tb); f != nil {
			x.outcomes[f.prop].failure = f
			x.hunted[f.prop] = true
		}
	}
	x.shrinking = false
	x.cleanup()
}

// check runs one round of rapid. rapid panics when a sequence it shrank
// does not fail again on a second replay (a server whose answers changed
// in between): the round then ends with the failures recorded so far.
func (x *explorer) check(tb *rapidTB) {
	x.diverged = false
	defer func() {
		if r := recover(); r != nil {
			tb.failed = true
			tb.errors = append(tb.errors, fmt.Sprintf("flaky: a shrunk sequence did not fail again (%v)", r))
		}
	}()
	rapid.Check(tb, x.sequence)
}

// sequence is one rapid test case.
func (x *explorer) sequence(t *rapid.T) {
	c := &exploreCase{x: x, t: t, g: gen{t}}
	for _, r := range x.shared {
		cp := *r
		c.m.res = append(c.m.res, &cp)
	}
	// 0 (what shrinking leans to) is no focus: every operation.
	if f := rapid.IntRange(0, len(x.cat.kinds)).Draw(t, "focus"); f > 0 {
		c.focus = x.cat.needs(x.cat.kinds[f-1])
	}
	c.rot = rapid.IntRange(0, len(x.cat.ops)-1).Draw(t, "rotation")
	if len(x.recent) > 0 && !x.shrinking {
		// rapid replays the failure to reproduce it and then shrinks it:
		// from now on the requests come from the shrinking allowance, in
		// the shrinking's time.
		x.shrinking = true
		x.shrinkUntil = time.Now().Add(x.shrinkTime)
		c.replays = x.recent[len(x.recent)-1].steps
	}
	x.cases++
	t.Repeat(c.actions())
	if c.replays != nil && len(c.steps) < len(c.replays) {
		x.diverged = true // the replay ended before the original's last step
	}
}

// settle picks the failure rapid ended on: the last fatal failure whose
// text rapid reports (the minimal sequence after shrinking).
func (x *explorer) settle(tb *rapidTB) *failure {
	if !tb.failed || len(x.recent) == 0 {
		return nil
	}
	msg := strings.Join(tb.errors, "\n")
	for i := len(x.recent) - 1; i >= 0; i-- {
		f := x.recent[i]
		if strings.Contains(msg, f.prop+": "+f.what) {
			f.shrunk = !strings.Contains(msg, "flaky")
			f.reproduced = f.shrunk
			f.diverged = x.diverged
			return &f
		}
	}
	f := x.recent[0]
	return &f
}

// cleanup removes what the phase created, newest first, on a context of
// its own bounded by Config.Cleanup: the phase's may have ended (its time
// was up, the run was interrupted), what it made must still go.
func (x *explorer) cleanup() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(x.ctx), x.cfg.cleanup())
	defer cancel()
	for i := len(x.toRemove) - 1; i >= 0 && ctx.Err() == nil; i-- {
		x.host.Remove(ctx, x.toRemove[i])
	}
}

// sharedResources are the written checks' resources (Host.Shared), when
// they were made: sequences may use them from their first step.
func (x *explorer) sharedResources() []*resource {
	var out []*resource
	shared := x.host.Shared()
	for _, param := range slices.Sorted(maps.Keys(shared)) {
		if k := x.cat.byParam[param]; k != nil && shared[param] != "" {
			out = append(out, &resource{kind: k, id: shared[param], shared: true, stored: map[string]written{}})
		}
	}
	return out
}

// rapidTB is the testing.TB rapid reports to: it keeps rapid's verdict.
type rapidTB struct {
	failed bool
	errors []string
}

func (*rapidTB) Helper()              {}
func (*rapidTB) Name() string         { return "explore" }
func (*rapidTB) Logf(string, ...any)  {}
func (*rapidTB) Log(...any)           {}
func (*rapidTB) Skipf(string, ...any) {}
func (*rapidTB) Skip(...any)          {}
func (*rapidTB) SkipNow()             {}
func (tb *rapidTB) Errorf(f string, a ...any) {
	tb.failed = true
	tb.errors = append(tb.errors, fmt.Sprintf(f, a...))
}
func (tb *rapidTB) Error(a ...any)            { tb.failed = true; tb.errors = append(tb.errors, fmt.Sprint(a...)) }
func (tb *rapidTB) Fatalf(f string, a ...any) { tb.Errorf(f, a...) }
func (tb *rapidTB) Fatal(a ...any)            { tb.Error(a...) }
func (tb *rapidTB) FailNow()                  { tb.failed = true }
func (tb *rapidTB) Fail()                     { tb.failed = true }
func (tb *rapidTB) Failed() bool              { return tb.failed }
