package conformance

import (
	"context"
	"net/http"
	"regexp"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"
)

// Long waits overlap (issue #25): what takes long on a real deployment —
// training a model, running an evaluation — is started as early as the run
// can, and judged as late as it can, so that a run against a server whose
// training takes T and evaluation E lasts about T+E plus the rest (max(T,
// E) plus the rest with --reuse-model), not the sum of every wait.
//
//   - BeforeSuite starts the trainings the selected checks will wait for:
//     the shared ready model's (checks labelled needs:ready-model) and the
//     Models area's own (checks labelled trains:model). Nothing waits
//     there; the first check that needs a model waits what is left.
//   - The areas that wait on a run of their own go after the others:
//     Evaluations (SpecPriority(-1)), whose run waits while the Models
//     area's training goes on, then Models (-2), whose training started
//     first; Explore is last (-3).
//
// What "selected" means is Ginkgo's: the run's label filter and --focus,
// evaluated against each check's labels and full text as registered
// (describe, check), so a --label-filter auth run trains nothing.
// An early start is only a head start: when the budget has nothing left
// it sends nothing, and the check that owns the step meets the budget as
// it would have; a create that fails is kept for the check that owns it to
// judge, not sent again (a paid call is not made twice).

// Labels of the checks that wait on a training.
const (
	// labelNeedsModel marks a check that needs the run's shared ready model
	// (or the one of --reuse-model).
	labelNeedsModel = "needs:ready-model"
	// labelTrains marks the Models area's life of a model, which trains
	// its own.
	labelTrains = "trains:model"
)

// needsModel decorates the checks and containers that call readyModel.
var needsModel = Label(labelNeedsModel)

// suiteName is the suite's description, which Ginkgo's focus matches with
// each check's text.
const suiteName = "API conformance"

// registry is the spec tree as the suite registered it: the containers open
// while a check is registered (describe) and every check with its full text
// and labels, the way Ginkgo will filter it.
type registry struct {
	open   []frame
	checks []frame
}

// frame is a container or a check: its text and its labels, a check's
// with its containers' (Ginkgo's union).
type frame struct {
	text   string
	labels []string
}

// describe is Ginkgo's Describe, with the container's text and labels
// kept open while its body registers checks.
func (e *env) describe(text string, args ...any) bool {
	var labels []string
	for _, a := range args {
		if l, ok := a.(Labels); ok {
			labels = append(labels, l...)
		}
	}
	for i, a := range args {
		if body, ok := a.(func()); ok {
			args[i] = func() {
				e.reg.open = append(e.reg.open, frame{text, labels})
				defer func() { e.reg.open = e.reg.open[:len(e.reg.open)-1] }()
				body()
			}
		}
	}
	return Describe(text, args...)
}

// registered records a check with its containers' texts and labels.
func (r *registry) registered(text string, labels []string) {
	f := frame{}
	for _, c := range r.open {
		f.text += c.text + " "
		f.labels = append(f.labels, c.labels...)
	}
	f.text += text
	f.labels = append(f.labels, labels...)
	r.checks = append(r.checks, f)
}

// selected reports whether the run selects a check labelled label: its
// label filter and --focus, as Ginkgo applies them.
func (e *env) selected(label string) bool {
	filter, err := types.ParseLabelFilter(e.cfg.labelFilter())
	if err != nil {
		return false // Validate refuses the run before this
	}
	var focus *regexp.Regexp
	if e.cfg.Focus != "" {
		if focus, err = regexp.Compile(e.cfg.Focus); err != nil {
			return false
		}
	}
	for _, c := range e.reg.checks {
		if slices.Contains(c.labels, label) && filter(c.labels) && (focus == nil || focus.MatchString(suiteName+" "+c.text)) {
			return true
		}
	}
	return false
}

// headStart is what BeforeSuite started: the shared model's create
// answer (the model not yet ready), and the Models area's dataset and
// model (created, not judged). A nil exchange: nothing was sent.
type headStart struct {
	sharedModel         *exchange.Exchange
	lifeData, lifeModel created
	lifeName            string
}

// startEarly starts the trainings the selected checks will wait for
// (BeforeSuite). It never fails or skips the suite: what does not start
// is left to the check that needs it, which judges it.
func (e *env) startEarly(ctx context.Context) {
	if e.client == nil {
		return
	}
	defer e.client.SetArea("")
	if !e.shared.model.tried && e.selected(labelNeedsModel) && e.affordsTraining() {
		e.client.SetArea(areaSetup)
		ds := e.earlyCreate(ctx, client.Request{Method: http.MethodPost, Path: pathDatasets,
			Form: sharedDatasetForm(e.name("shared-data"))}, pathDatasets)
		if ds.id != "" {
			e.shared.dataset = lazy{tried: true, id: ds.id}
			e.early.sharedModel = e.earlyCreate(ctx, sharedModelRequest(e.name("shared-model"), ds.id), pathModels).x
		}
	}
	if e.selected(labelTrains) && e.affordsTraining() {
		e.client.SetArea(areaModels)
		ds := e.earlyCreate(ctx, lifeDatasetRequest(e.name("model-data")), pathDatasets)
		if ds.id != "" {
			e.early.lifeData, e.early.lifeName = ds, e.name("model")
			e.early.lifeModel = e.earlyCreate(ctx, lifeModelRequest(e.early.lifeName, ds.id), pathModels)
		}
	}
}

// areaSetup is the area of the requests BeforeSuite sends for several
// areas; areaModels is the Models area's (its top-level text).
const (
	areaSetup  = "setup"
	areaModels = "Models"
)

// affordsTraining reports whether the budget leaves a dataset and a model
// to create: a head start never takes what a check could not have.
func (e *env) affordsTraining() bool {
	return e.spend.ledger.Available(spec.CostDatasets) && e.spend.ledger.Available(spec.CostModels)
}

// earlyCreate sends a create ahead of its check. The resource it names is
// removed after the suite, with the shared ones: BeforeSuite has no check
// to clean up after. A withheld create leaves an empty answer (nil x); a
// failed one, its exchange for the owning check to judge.
func (e *env) earlyCreate(ctx context.Context, r client.Request, collection string) created {
	x := e.client.Do(ctx, r)
	if x.Withheld != nil {
		return created{}
	}
	c := created{x: x}
	if x.Status/100 == 2 {
		body, _ := judge.ParseJSON(x.Raw)
		c.data = body.Get("data")
		c.id = c.data.Get("id").ID()
	}
	if c.id != "" && !e.cfg.Keep {
		e.shared.paths = append(e.shared.paths, at(collection, c.id))
	}
	return c
}
