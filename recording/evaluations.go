package recording

import (
	"encoding/json"
	"net/http"
	"net/url"
)

// readEvaluation: a create, read, update or run-ragas answers one
// Evaluation (seed §4.5); a read by id answered 404 means it is gone.
func readEvaluation(a *account, x Exchange, in request) string {
	id := in.id
	if x.Status == http.StatusNotFound {
		if n, ok := pathID(id); ok {
			delete(a.evaluations, n)
		}
		return ""
	}
	var w evaluationWire
	if json.Unmarshal(payload(x.ResponseBody), &w) != nil {
		return "evaluation: the answer is not an evaluation"
	}
	if n, ok := pathID(id); ok && !w.ID.ok {
		w.ID = flexID{v: n, ok: true}
	}
	if !w.ID.ok {
		return "evaluation: the answer holds no evaluation id"
	}
	a.evaluation(w.ID.v).merge(w)
	return ""
}

func listEvaluations(a *account, x Exchange, _ request) string {
	var page struct {
		Evaluations []evaluationWire `json:"evaluations"`
		Total       *int             `json:"total"`
	}
	if json.Unmarshal(payload(x.ResponseBody), &page) != nil {
		return "evaluation list: the answer is not a page"
	}
	listed := map[int64]bool{}
	for _, w := range page.Evaluations {
		if w.ID.ok {
			a.evaluation(w.ID.v).merge(w)
			listed[w.ID.v] = true
		}
	}
	// Only an unfiltered page that holds every evaluation is the whole list
	// (seed §4.5 pages and filters it): then what it lacks is gone.
	q, _ := url.ParseQuery(x.RawQuery)
	whole := page.Total != nil && *page.Total == len(page.Evaluations) && q.Get("status") == ""
	if whole {
		for id := range a.evaluations {
			if !listed[id] {
				delete(a.evaluations, id)
			}
		}
	}
	return ""
}

// setEvaluationState: an action that moves an evaluation to one state
// (the x-effect rule "state": a start, seed §2.10) says it is there.
func setEvaluationState(a *account, id, field, to string) string {
	n, ok := pathID(id)
	if !ok {
		return "evaluation " + field + ": the id is not a number"
	}
	if field == "status" {
		a.evaluation(n).status = to
	}
	return ""
}

func deleteEvaluation(a *account, _ Exchange, in request) string {
	id := in.id
	n, ok := pathID(id)
	if !ok {
		return "evaluation delete: the id is not a number"
	}
	delete(a.evaluations, n)
	return ""
}

func (a *account) evaluation(id int64) *evaluation {
	e := a.evaluations[id]
	if e == nil {
		e = &evaluation{id: id}
		a.evaluations[id] = e
	}
	return e
}

func (e *evaluation) merge(w evaluationWire) {
	w.Name.to(&e.name)
	w.Type.to(&e.typ)
	w.BenchmarkType.to(&e.benchmark)
	w.Description.to(&e.description)
	w.Status.to(&e.status)
	if w.ModelID.ok {
		e.modelID = w.ModelID.v
	}
	if w.QuestionCount != nil {
		e.questionCount = *w.QuestionCount
	}
}
