package conformance

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"

	. "github.com/onsi/ginkgo/v2"
)

// The refusal to delete a running evaluation (seed §3.1.1, §8.3), judged so
// that a conforming server is never failed by a race: a run may end between
// the GET that saw it running and the DELETE, and then the delete rightly
// succeeds. Each attempt uses a fresh evaluation (so the life flow's own is
// never deleted by a race), started and seen running just before the
// DELETE:
//
//   - the DELETE refused: the refusal is judged, and the evaluation must
//     still be there;
//   - the DELETE succeeded and a GET just after still reports the
//     evaluation running: deleted (or claimed deleted) while running: fail;
//   - the DELETE succeeded and the evaluation is gone or ended: the run may
//     have ended in between; another attempt. When every attempt is like
//     this, a probe evaluation tells whether runs last longer than the
//     window of those attempts: if a run outlasts it, the deleted ones were
//     running (fail); if not, the state cannot be pinned (skip).

// runningDeleteAttempts bounds the evaluations one check uses.
const runningDeleteAttempts = 3

// raceWindow is what an ambiguous attempt saw: how long the run had run
// when the GET saw it running, and how long after that the DELETE was
// answered.
type raceWindow struct {
	age, gap time.Duration
	note     string
}

// startedEvaluation creates and starts an evaluation of model and returns
// its id and when its start was answered; "" and the reason when it could
// not.
func (e *env) startedEvaluation(ctx context.Context, model string) (string, time.Time, string) {
	c := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: evaluationBody(e.name("running"), model)}, pathEvaluations)
	if c.id == "" {
		return "", time.Time{}, "no evaluation could be created: " + c.x.Line()
	}
	x := e.do(ctx, client.Request{Method: http.MethodPost, Path: at(pathEvaluations, c.id, "/start")})
	if x.Status/100 != 2 {
		return "", time.Time{}, "the evaluation could not be started: " + x.Line()
	}
	return c.id, time.Now(), ""
}

// checkRunningDeleteRefused is the body of the check.
func (e *env) checkRunningDeleteRefused(ctx context.Context, model string) {
	GinkgoHelper()
	var reasons []string
	var windows []raceWindow
	for attempt := 1; attempt <= runningDeleteAttempts; attempt++ {
		id, started, why := e.startedEvaluation(ctx, model)
		if id == "" {
			reasons = append(reasons, fmt.Sprintf("attempt %d: %s", attempt, why))
			continue
		}
		before, xb := e.evaluationStatus(ctx, id)
		seen := time.Now()
		if before != "running" {
			reasons = append(reasons, fmt.Sprintf("attempt %d: the evaluation was %q, not running, when the suite looked (%s)", attempt, before, xb.Line()))
			continue
		}
		x := e.do(ctx, client.Request{Method: http.MethodDelete, Path: at(pathEvaluations, id)})
		gap := time.Since(seen)
		if x.Status/100 != 2 {
			e.expectRefused(x, "D-13", http.StatusConflict)
			after := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathEvaluations, id)})
			data := e.expectSuccess(after)
			e.want(after, data.Get("id").ID() == id, "/data/id", "evaluation "+id+", kept by the refused delete", data.Get("id"))
			return
		}
		after, xa := e.evaluationStatus(ctx, id)
		if xa.Status == http.StatusOK && after == "running" {
			e.expect(x, "a running evaluation was not refused", runningNotRefused(x, id, xb, xa))
			return
		}
		windows = append(windows, raceWindow{age: seen.Sub(started), gap: gap,
			note: fmt.Sprintf("running at %s, DELETE → %d, then %s", xb.Line(), x.Status, xa.Line())})
		reasons = append(reasons, fmt.Sprintf("attempt %d: the DELETE succeeded and the evaluation was then gone or ended (%s): the run may have ended in between", attempt, xa.Line()))
	}
	if len(windows) == runningDeleteAttempts {
		e.probeRunLength(ctx, model, windows)
	}
	Skip("the refusal could not be observed:\n  " + strings.Join(reasons, "\n  "))
}

// probeRunLength settles attempts that were all ambiguous: it starts one
// more evaluation and looks at it once well past the latest moment any of
// them could have ended. Still running then, runs outlast the windows, so
// the deleted evaluations were running: the check fails. Otherwise it
// returns and the check is skipped.
func (e *env) probeRunLength(ctx context.Context, model string, windows []raceWindow) {
	GinkgoHelper()
	var latest time.Duration
	var notes []string
	for _, w := range windows {
		latest = max(latest, w.age+w.gap)
		notes = append(notes, w.note)
	}
	wait := max(4*latest, 200*time.Millisecond)
	if d, ok := ctx.Deadline(); ok && time.Until(d) < wait+e.cfg.Timeout/4 {
		return
	}
	id, started, _ := e.startedEvaluation(ctx, model)
	if id == "" || !client.Pause(ctx, time.Until(started.Add(wait))) {
		return
	}
	status, x := e.evaluationStatus(ctx, id)
	if x.Status == http.StatusOK && status == "running" {
		e.expect(x, "running evaluations were deleted", judge.Findings{finding(judge.RuleStatus,
			"a refusal of each DELETE of a running evaluation (a probe evaluation is still running "+wait.Round(time.Millisecond).String()+" after its start, so those runs cannot have ended in between)",
			fmt.Sprintf("%d DELETEs succeeded on evaluations seen running at most %s after their start:\n    %s",
				len(windows), latest.Round(time.Millisecond), strings.Join(notes, "\n    ")))})
	}
}

// checkOwnRunningDeleteRefused judges the refusal on the flow's own
// evaluation, started by the start check, when the budget allows no other
// run (D-40): one look, one DELETE. A DELETE that succeeds on a run seen
// running fails only when the run is still running after it; otherwise the
// run may have ended in between and the check is skipped with the reason.
func (e *env) checkOwnRunningDeleteRefused(ctx context.Context, id string) {
	GinkgoHelper()
	before, xb := e.evaluationStatus(ctx, id)
	if before != "running" {
		Skip(fmt.Sprintf("the budget allows no other evaluation run, and this flow's evaluation was %q, not running, when the suite looked (%s)", before, xb.Line()))
	}
	x := e.do(ctx, client.Request{Method: http.MethodDelete, Path: at(pathEvaluations, id)})
	if x.Status/100 != 2 {
		e.expectRefused(x, "D-13", http.StatusConflict)
		return
	}
	after, xa := e.evaluationStatus(ctx, id)
	if xa.Status == http.StatusOK && after == "running" {
		e.expect(x, "a running evaluation was not refused", runningNotRefused(x, id, xb, xa))
	}
	Skip(fmt.Sprintf("the DELETE succeeded and the evaluation was then gone or ended (%s): the run may have ended in between", xa.Line()))
}

// runningNotRefused is the finding of a DELETE that succeeded on an
// evaluation a GET just before and just after it (xb, xa) showed running.
func runningNotRefused(x *exchange.Exchange, id string, xb, xa *exchange.Exchange) judge.Findings {
	return judge.Findings{finding(judge.RuleStatus, "a refusal: evaluation "+id+" was running (a GET just before: "+xb.Line()+"; just after: "+xa.Line()+")",
		fmt.Sprintf("DELETE answered %d", x.Status))}
}
