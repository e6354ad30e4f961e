package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/report"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// What checks create and remove: a fresh name per run, a create that
// registers the removal at once, the removal itself, and the resources
// several areas share (a dataset, a ready model), made on first need.

// name returns a fresh name carrying the run's prefix, so two runs against
// one server do not collide.
func (e *env) name(kind string) string { return e.prefix + kind + "-" + randomHex(2) }

// created is a create request's outcome: the exchange to judge, and the
// new id when the response carried one.
type created struct {
	x    *exchange.Exchange
	id   string
	data judge.J
}

// create sends a create request and, when the answer carries an id,
// registers the resource's removal (DeferCleanup, tolerant of not-found)
// at once, unless --keep. collection is the path the id is appended to.
func (e *env) create(ctx context.Context, r client.Request, collection string) created {
	GinkgoHelper()
	c := e.made(ctx, r)
	if c.id != "" {
		e.removeLater(at(collection, c.id), r.Auth)
	}
	return c
}

// made sends a create request and reads its outcome; its removal is the
// caller's to register.
func (e *env) made(ctx context.Context, r client.Request) created {
	GinkgoHelper()
	x := e.do(ctx, r)
	body, _ := judge.ParseJSON(x.Raw)
	data := body.Get("data")
	c := created{x: x, data: data}
	if x.Status/100 == 2 {
		c.id = data.Get("id").ID()
	}
	return c
}

// removeLater registers the removal of the resource at p by the account
// that created it.
func (e *env) removeLater(p string, auth client.Auth) {
	if e.cfg.Keep {
		return
	}
	DeferCleanup(func(ctx SpecContext) { e.remove(ctx, p, auth) })
}

// remove deletes the resource at p, on a context of its own (a clean-up
// runs even when its phase's time is up: cleanupContext). Gone already is
// fine; a delete refused while an evaluation still runs is tried again
// within deleteWaits' allowance; anything else is recorded as a leak and
// reported at the end, never as a check failure.
func (e *env) remove(ctx context.Context, p string, auth client.Auth) {
	ctx, cancel := e.cleanupContext(ctx)
	defer cancel()
	r := client.Request{Method: http.MethodDelete, Path: p, Auth: auth}
	if e.cfg.Spend.active() && strings.HasPrefix(p, pathDatasets+"/") {
		// D-40: a run that counts its spending leaves no dataset behind,
		// soft-deleted ones included (a soft delete keeps the files).
		r.Query = url.Values{"permanent": {"true"}}
	}
	x := e.client.Do(ctx, r)
	switch {
	case x.Withheld != nil && !errors.Is(x.Withheld, client.ErrStopped):
		return // a resource the run reuses: never removed
	case x.Status == http.StatusNotFound:
		e.spend.gone(p)
		return
	case x.Status/100 == 2:
		return
	}
	if strings.HasPrefix(p, pathEvaluations) && x.Status/100 == 4 {
		if again, gone := e.awaitDelete(ctx, pathEvaluations, r); gone {
			return
		} else if again != nil {
			x = again
		}
	}
	e.leaks = append(e.leaks, fmt.Sprintf("%s: %s", p, x.Line()))
}

// awaitDelete sends the delete r again every pollInterval until the
// server deletes (or no longer has) the resource, for as long as
// deleteWaits allows for kind. It returns the last answer (nil when it
// sent nothing) and whether the resource is gone.
func (e *env) awaitDelete(ctx context.Context, kind string, r client.Request) (*exchange.Exchange, bool) {
	wait := e.deletes.allowance(kind, e.cfg.Timeout)
	if wait <= 0 {
		return nil, false
	}
	start := time.Now()
	var x *exchange.Exchange
	for time.Since(start) < wait && client.Pause(ctx, min(pollInterval, wait-time.Since(start))) {
		x = e.client.Do(ctx, r)
		switch {
		case x.Status == http.StatusNotFound:
			e.spend.gone(r.Path)
			fallthrough
		case x.Status/100 == 2:
			e.deletes.waited(kind, time.Since(start), true)
			return x, true
		case x.Withheld != nil:
			e.deletes.waited(kind, time.Since(start), false)
			return x, false
		}
	}
	e.deletes.waited(kind, time.Since(start), false)
	return x, false
}

// sharedResources are the dataset and the ready model that several areas
// need as a precondition (conversations, inference, evaluations,
// isolation, invalid input). Each is made once, on first need, and removed
// by AfterSuite.
type sharedResources struct {
	dataset, model lazy
	// paths are removed in reverse order after the suite.
	paths []string
}

// lazy is a resource made on first need.
type lazy struct {
	tried   bool
	failure string
	id      string
}

// get returns l's id, making it with mk on the first call. When making it
// fails (no id, or the model never became ready), every caller is skipped
// with the reason: the precondition cannot be met, and the check that owns
// the failed step (the dataset or model creation, the wait for ready) fails
// on its own, so the failure is reported once, where it belongs.
func (e *env) get(l *lazy, what string, mk func() string) string {
	GinkgoHelper()
	if !l.tried {
		l.tried = true
		// A request mk needs that the budget withholds skips the check
		// (a panic through here): every later caller is skipped with why.
		done := false
		defer func() {
			if !done {
				l.failure = e.withheldWhy
			}
		}()
		err := InterceptGomegaFailure(func() { l.id = mk() })
		done = true
		if err != nil {
			l.failure = report.FirstParagraph(err.Error())
		}
	}
	if l.failure != "" {
		Skip("the shared " + what + " this check needs could not be prepared: " + l.failure)
	}
	return l.id
}

// createdID is the id of a resource a check needs, read tolerantly from its
// create answer: a 2xx with an id is enough. The answer's other differences
// from the contract are the create check's to report, not this check's.
// Without an id the need cannot be met: a Gomega failure saying why (for
// get), or, through need, a skip.
func (e *env) createdID(x *exchange.Exchange, what string) string {
	GinkgoHelper()
	body, _ := judge.ParseJSON(x.Raw)
	id := ""
	if x.Status/100 == 2 {
		id = body.Get("data").Get("id").ID()
	}
	e.want(x, id != "", "/data/id", "the id of the "+what+" created", "none")
	return id
}

// need returns the id of c, a resource the check needs; without one the
// check is skipped with the reason (the create check of its area judges
// the create answer).
func (e *env) need(c created, what string) string {
	GinkgoHelper()
	if c.id == "" {
		Skip(fmt.Sprintf("the %s this check needs was not created: %s (its create check judges that answer)", what, c.x.Line()))
	}
	return c.id
}

// sharedDataset returns the id of a dataset of the first account built
// from the employee handbook and the warranty policy.
func (e *env) sharedDataset(ctx context.Context) string {
	GinkgoHelper()
	return e.get(&e.shared.dataset, "dataset", func() string {
		x := e.do(ctx, client.Request{Method: http.MethodPost, Path: pathDatasets, Form: sharedDatasetForm(e.name("shared-data"))})
		id := e.createdID(x, "shared dataset")
		if !e.cfg.Keep {
			e.shared.paths = append(e.shared.paths, at(pathDatasets, id))
		}
		return id
	})
}

// sharedDatasetForm is the shared dataset's create form.
func sharedDatasetForm(name string) *exchange.Form {
	return datasetForm(name, "employee-handbook.md", "warranty-policy.pdf")
}

// sharedModelRequest is the shared model's create request.
func sharedModelRequest(name, dataset string) client.Request {
	return client.Request{Method: http.MethodPost, Path: pathModels,
		JSON: map[string]any{"model_name": name, "dataset_id": dataset, "description": "conformance run model"}}
}

// readyModel returns the id of a ready model of the first account, trained
// on the shared dataset: the one BeforeSuite started (early.go), or one
// made now. Only a check labelled needs:ready-model may ask for it, so
// that the head start knows which runs need one.
func (e *env) readyModel(ctx context.Context) string {
	GinkgoHelper()
	if !slices.Contains(CurrentSpecReport().Labels(), labelNeedsModel) {
		Fail("conformance: internal: a check without the label " + labelNeedsModel + " asked for the shared ready model")
	}
	return e.get(&e.shared.model, "model", func() string {
		x, started := e.early.sharedModel, e.early.sharedModel != nil
		if !started {
			x = e.do(ctx, sharedModelRequest(e.name("shared-model"), e.sharedDataset(ctx)))
		}
		id := e.createdID(x, "shared model")
		if !started && !e.cfg.Keep { // a head start's is registered already
			e.shared.paths = append(e.shared.paths, at(pathModels, id))
		}
		e.waitModelReady(ctx, id)
		return id
	})
}

// removeShared removes the shared resources (AfterSuite).
func (e *env) removeShared(ctx context.Context) {
	for i := len(e.shared.paths) - 1; i >= 0; i-- {
		e.remove(ctx, e.shared.paths[i], client.AuthKey)
	}
}
