// Package drive runs the reference model (package refmodel) against a
// server: it generates calls from the contract's input dimensions (package
// conformance/inputs) and from what the model knows — every operation as
// it should succeed, each fault a client can give it alone and in pairs,
// each value, alternative, encoding and id intent of each field, a refused
// call sent again, bursts of concurrent calls, each state of each resource
// an operation reads or writes, the writes whose effects reach other
// resources — then random steps, sends them through a Sender and has the
// model judge every answer.
//
// Coverage comes first and does not depend on the seed: every dimension is
// sent whatever the seed (Run.Reached counts them, Run.Inputs renders the
// table); the seed draws the values, the resources aimed at and the random
// steps after it. No operation is named here: the tables come from the
// contract.
//
// With a Clock (a test's fake clock) the model is frozen: states move only
// when the driver moves the clock. Without one (a real server) states move
// on their own: the driver waits for a state by bounded polling, and a
// finding that holds only if no state moved unseen (a Timing finding) is
// replayed before it counts: it is confirmed when the replay breaks the
// same prediction, unconfirmed otherwise.
//
// The package links no test framework: the suite's Explore area runs it.
package drive

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
	"contractkit/judge"
	"contractkit/spec"
)

// Sender sends one call and reads its answer whole (an event stream
// joined). A transport failure is an Answer with Status 0; a 429 it could
// not wait out, or an answer cut by the caller's own deadline, is returned
// as such (the model learns nothing from it and judges nothing). Send is
// called from several goroutines at once during a burst.
type Sender interface {
	Send(ctx context.Context, c refmodel.Call) refmodel.Answer
}

// Clock is a server's clock the driver may move (a test's fake clock).
type Clock interface{ Advance(time.Duration) }

// Config is what one run is asked to do.
type Config struct {
	// Seed draws the values and the random steps.
	Seed uint64
	// Steps are the random steps after the coverage phases.
	Steps int
	// Clock, when set, is moved by the driver and the model is frozen;
	// nil: the server's own time moves states (see the package comment).
	Clock Clock
	// Train and Eval are how far the clock must move for a model to end
	// training and an evaluation to end (with a Clock only).
	Train, Eval time.Duration
	// UploadLimit is the multipart size past which the server answers 413
	// (0: not known, no upload too large is sent).
	UploadLimit int
	// OneAccount: the server is driven with the first key only.
	OneAccount bool
	// MaxWait bounds one wait for a state by polling (default 20 s).
	MaxWait time.Duration
	// Keep leaves what the run made in place (otherwise it is deleted at
	// the end; what the accounts held before is never changed).
	Keep bool
	// Permanent deletes every dataset for good (?permanent=true, a
	// refusal's invalid value aside): a run that counts its spending
	// leaves no soft-deleted dataset behind (D-40).
	Permanent bool
	// MaxCalls ends the run after that many calls (0: no bound): a kept
	// Sequence replayed.
	MaxCalls int
	// Until ends the run between two calls once it has passed (zero: no
	// end but ctx's). Unlike ctx's deadline it never cuts a call in
	// flight, so what the call made is known and the clean-up deletes it.
	Until time.Time
	// Cleanup bounds the deletion of what the run made, which runs on a
	// context of its own once the run's has ended (0: a minute, or twice
	// MaxWait if longer).
	Cleanup time.Duration
	// After, when set, sees every exchange after the model judged it (a
	// test's second model).
	After func(step int, c refmodel.Call, a refmodel.Answer)
	// Enough, when set, ends the run at the first finding that counts it
	// returns true for (a proof that a broken server is caught needs no
	// more calls).
	Enough func(judge.Finding) bool
}

// Step is one call and what came of it.
type Step struct {
	Call    refmodel.Call
	Status  int
	Verdict refmodel.Verdict
	// Replay: the step replays an earlier one to confirm a finding.
	Replay bool
	// Note is what the Sender kept with the answer (Answer.Note: the
	// suite's exchange).
	Note any
}

// Found is a finding with the step that made it.
type Found struct {
	Step    int
	Finding judge.Finding
	// Replay is the step that confirmed it (-1: not replayed).
	Replay int
}

// Run is a finished run.
type Run struct {
	Seed  uint64
	Steps []Step
	// Cover counts the statuses each operation got; Toured the states its
	// resource was in when an operation of the tour was sent to it.
	Cover  map[string]map[int]int
	Toured map[string]map[string]int
	// Found are the findings that count: firm ones, and timing ones a
	// replay confirmed (every one with a Clock: the model is frozen).
	Found []Found
	// Unconfirmed are timing findings a replay did not reproduce.
	Unconfirmed []Found
	// Stopped says why the run ended before its end ("" it did not).
	Stopped string
	// Dims are the contract's input dimensions; Reached counts the calls
	// that sent each (by key); Why says why one was not sent, when the run
	// knows (a 413 past a bound it does not send).
	Dims    []inputs.Dimension
	Reached map[string]int
	Why     map[string]string
}

// driver is one run in progress.
type driver struct {
	ctx    context.Context
	cfg    Config
	m      *refmodel.Model
	send   Sender
	cat    *inputs.Catalog
	run    *Run
	g      *gen
	replay bool
	// marked are the dimensions the next call sends (do counts them).
	marked []string
	// met are the states the tour met ("kind state"); fed and starved are
	// trained models of a dataset with files and of one without.
	met          map[string]bool
	fed, starved *refmodel.Resource
	// started are the groups prestart put on their way, by kind.
	started map[string][]started
}

// Drive runs the whole sequence against the server send reaches, until it
// ends or ctx does.
func Drive(ctx context.Context, send Sender, cfg Config) *Run {
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = 20 * time.Second
	}
	d := &driver{ctx: ctx, cfg: cfg, send: send, cat: Catalog(), met: map[string]bool{}, started: map[string][]started{},
		m:   refmodel.New(refmodel.Config{Frozen: cfg.Clock != nil}),
		run: &Run{Seed: cfg.Seed, Cover: map[string]map[int]int{}, Toured: map[string]map[string]int{}, Reached: map[string]int{}, Why: map[string]string{}}}
	d.run.Dims = d.cat.Derive()
	d.g = &gen{r: rand.New(rand.NewPCG(cfg.Seed, 0x6d6f64656c)), m: d.m, cat: d.cat, uploadLimit: cfg.UploadLimit,
		protected: map[string]bool{}, kept: map[string]bool{}, first: map[string]refmodel.Call{}, frozen: cfg.Clock != nil}
	d.drive()
	return d.run
}

// Catalog is the contract's catalog the driver works from (package
// inputs), read once.
var Catalog = sync.OnceValue(func() *inputs.Catalog { return inputs.Read(spec.Strict(), spec.Declared()) })

// stopped reports whether the run must end (its context is done).
func (d *driver) stopped() bool {
	if d.run.Stopped != "" {
		return true
	}
	if d.cfg.MaxCalls > 0 && len(d.run.Steps) >= d.cfg.MaxCalls {
		d.run.Stopped = "it replayed its calls"
		return true
	}
	if err := d.ctx.Err(); err != nil {
		d.run.Stopped = "its time was up (" + err.Error() + ")"
		return true
	}
	if !d.cfg.Until.IsZero() && !time.Now().Before(d.cfg.Until) {
		d.run.Stopped = "its time was up"
		return true
	}
	return false
}

// mark names the dimensions the next call sends (do counts them reached
// once it is answered).
func (d *driver) mark(keys ...string) { d.marked = append(d.marked, keys...) }

// do sends c, has the model judge the answer, confirms a timing finding
// by replay, and returns the answer (the zero Answer once stopped).
func (d *driver) do(c refmodel.Call) refmodel.Answer {
	if d.stopped() {
		d.marked = nil
		return refmodel.Answer{}
	}
	c = d.permanent(c)
	a := d.send.Send(d.ctx, c)
	if d.ctx.Err() != nil && a.Status == 0 {
		d.marked = nil
		d.stopped()
		return a // cut by the run's own deadline: no verdict
	}
	return d.judge(c, a)
}

// judge has the model judge an answer to c and records the step.
func (d *driver) judge(c refmodel.Call, a refmodel.Answer) refmodel.Answer {
	for _, k := range d.marked {
		d.run.Reached[k]++
	}
	d.marked = nil
	v := d.m.Observe(c, a)
	step := len(d.run.Steps)
	d.run.Steps = append(d.run.Steps, Step{Call: c, Status: a.Status, Verdict: v, Replay: d.replay, Note: a.Note})
	if d.cfg.After != nil {
		d.cfg.After(step, c, a)
	}
	if d.run.Cover[c.Op] == nil {
		d.run.Cover[c.Op] = map[int]int{}
	}
	d.run.Cover[c.Op][a.Status]++
	for _, f := range v.Findings {
		d.run.Found = append(d.run.Found, Found{Step: step, Finding: f, Replay: -1})
		if d.cfg.Enough != nil && d.cfg.Enough(f) && d.run.Stopped == "" {
			d.run.Stopped = "it found what it was asked to"
		}
	}
	switch {
	case len(v.Timing) == 0:
	case d.cfg.Clock != nil: // frozen: no state moved unseen
		for _, f := range v.Timing {
			d.run.Found = append(d.run.Found, Found{Step: step, Finding: f, Replay: -1})
		}
	case !d.replay: // a replay's are judged by the confirm that sent it
		d.confirm(step, v.Timing)
	}
	return a
}

// advance moves the server's clock by "by" (with a Clock), or waits for
// the resources ids of kind to reach one of the states want (without).
func (d *driver) advance(by time.Duration, kind string, ids []string, want ...string) {
	if d.cfg.Clock != nil {
		d.cfg.Clock.Advance(by)
		d.m.Advance()
		return
	}
	if len(want) > 0 {
		d.await(kind, ids, want)
	}
}

// describe renders a call on one line.
func describe(c refmodel.Call, status int) string {
	var parts []string
	for k, v := range c.Path {
		parts = append(parts, k+"="+v)
	}
	if len(c.Query) > 0 {
		parts = append(parts, "?"+c.Query.Encode())
	}
	if c.Body != nil {
		parts = append(parts, shortJSON(c.Body))
	}
	if c.Form != nil {
		parts = append(parts, fmt.Sprintf("form %s + %d files", shortJSON(c.Form.Fields), len(c.Form.Files)))
	}
	if c.Raw != nil {
		parts = append(parts, fmt.Sprintf("raw %d bytes", len(c.Raw)))
	}
	if c.ContentType != "" {
		parts = append(parts, "Content-Type: "+c.ContentType)
	}
	if c.Accept != "" {
		parts = append(parts, "Accept: "+c.Accept)
	}
	key := map[refmodel.Key]string{refmodel.KeyA: "A", refmodel.KeyB: "B", refmodel.KeyBad: "near-miss key", refmodel.KeyNone: "no key"}[c.Key]
	return strings.TrimSpace(fmt.Sprintf("%s [%s] %s → %d", c.Op, key, strings.Join(parts, " "), status))
}
