package conformance

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Waiting for states: a model ready, an evaluation ended, each within
// --timeout.

// readyStates and failedStates are the model states real clients of the
// service know (the evidence of D-11); the contract's own are D-11.
var (
	readyStates  = map[string]bool{"ready": true, "completed": true, "complete": true, "active": true, "deployed": true, "available": true, "success": true}
	failedStates = map[string]bool{"failed": true, "error": true, "cancelled": true}
)

// modelReady tells a ready model as real clients do: a ready status, or
// the graph built.
func modelReady(m judge.J) bool {
	if readyStates[strings.ToLower(m.Get("status").Str())] {
		return true
	}
	p, _ := m.Get("graph_build_progress").Int()
	return strings.ToLower(m.Get("graph_status").Str()) == "ready" && p == 100
}

// waitModelReady polls the model until it is ready, within --timeout, and
// returns it. A failed model stops the wait.
func (e *env) waitModelReady(ctx context.Context, id string) judge.J {
	GinkgoHelper()
	var model judge.J
	Eventually(ctx, func(g Gomega) {
		x := e.client.Do(ctx, client.Request{Method: http.MethodGet, Path: at(pathModels, id)})
		g.Expect(x.Status).To(Equal(http.StatusOK), "%s", x.Line())
		body, _ := judge.ParseJSON(x.Raw)
		m := body.Get("data")
		if st := strings.ToLower(m.Get("status").Str()); failedStates[st] {
			StopTrying(fmt.Sprintf("model %s failed (status %q) instead of becoming ready", id, st)).Now()
		}
		g.Expect(modelReady(m)).To(BeTrue(), "model %s is not ready: status %s, graph_status %s, graph_build_progress %s",
			id, m.Get("status"), m.Get("graph_status"), m.Get("graph_build_progress"))
		model = m
	}).WithTimeout(e.cfg.Timeout).Should(Succeed(), "model %s did not become ready within --timeout %s", id, e.cfg.Timeout)
	return model
}

// evaluationStatus reads an evaluation's status.
func (e *env) evaluationStatus(ctx context.Context, id string) (string, *exchange.Exchange) {
	x := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathEvaluations, id)})
	body, _ := judge.ParseJSON(x.Raw)
	return body.Get("data", "status").Str(), x
}

// waitEvaluationEnd polls until the evaluation is completed or failed,
// within --timeout, and returns the final status.
func (e *env) waitEvaluationEnd(ctx context.Context, id string) string {
	GinkgoHelper()
	var status string
	Eventually(ctx, func(g Gomega) {
		st, x := e.evaluationStatus(ctx, id)
		g.Expect(x.Status).To(Equal(http.StatusOK), "%s", x.Line())
		status = st
		g.Expect(st).To(BeElementOf("completed", "failed"), "evaluation %s is %q", id, st)
	}).WithTimeout(e.cfg.Timeout).Should(Succeed(), "evaluation %s did not reach completed or failed within --timeout %s", id, e.cfg.Timeout)
	return status
}
