package conformance

import (
	"context"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/judge"
	"contractkit/spec"
)

// reuseModel declares the model of --reuse-model as the run's shared ready
// model (BeforeSuite): every check that needs one uses it instead of
// training one, and the ledger withholds every write to it and to its
// dataset (budget.Ledger.Reuse), so the run never changes or
// deletes them. A model that is not a ready model of the account fails
// the suite with the reason: nothing would be checked as asked.
func (e *env) reuseModel(ctx context.Context) {
	id := e.cfg.ReuseModel
	if id == "" || e.client == nil {
		return
	}
	e.spend.ledger.Reuse(spec.CostModels, id)
	x := e.client.Do(ctx, client.Request{Method: http.MethodGet, Path: at(pathModels, id)})
	body, _ := judge.ParseJSON(x.Raw)
	m := body.Get("data")
	if x.Status != http.StatusOK || !modelReady(m) {
		Fail(fmt.Sprintf("--reuse-model %s: not a ready model of the account (%s; status %s)", id, x.Line(), m.Get("status")))
	}
	e.shared.model = lazy{tried: true, id: id}
	// Its dataset is guarded, not shared: the checks that write to the
	// shared dataset (uploads, refused or not) need one the run owns.
	if ds := m.Get("dataset_id").ID(); ds != "" {
		e.spend.ledger.Reuse(spec.CostDatasets, ds)
	}
}
