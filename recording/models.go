package recording

import (
	"encoding/json"
	"net/http"
)

// readModel: a model create (POST /user/model) or read answers one Model
// (seed §4.1); a read by id answered 404 means the model is gone.
func readModel(a *account, x Exchange, in request) string {
	id := in.id
	if x.Status == http.StatusNotFound {
		if n, ok := pathID(id); ok {
			delete(a.models, n)
		}
		return ""
	}
	var w modelWire
	if json.Unmarshal(payload(x.ResponseBody), &w) != nil {
		return "model: the answer is not a model"
	}
	if n, ok := pathID(id); ok && !w.ID.ok {
		w.ID = flexID{v: n, ok: true}
	}
	if !w.ID.ok {
		return "model: the answer holds no model id"
	}
	a.model(w.ID.v).merge(w)
	return ""
}

func listModels(a *account, x Exchange, _ request) string {
	var ws []modelWire
	if json.Unmarshal(payload(x.ResponseBody), &ws) != nil {
		return "model list: the answer is not a list"
	}
	// The list is whole (seed §4.1 "lists all models"): what it lacks is gone.
	listed := map[int64]bool{}
	for _, w := range ws {
		if w.ID.ok {
			a.model(w.ID.v).merge(w)
			listed[w.ID.v] = true
		}
	}
	for id := range a.models {
		if !listed[id] {
			delete(a.models, id)
		}
	}
	return ""
}

func deleteModel(a *account, _ Exchange, in request) string {
	id := in.id
	n, ok := pathID(id)
	if !ok {
		return "model delete: the id is not a number"
	}
	delete(a.models, n)
	return ""
}

func (a *account) model(id int64) *model {
	m := a.models[id]
	if m == nil {
		m = &model{id: id}
		a.models[id] = m
	}
	return m
}

func (m *model) merge(w modelWire) {
	w.Name.to(&m.name)
	w.Description.to(&m.description)
	w.Category.to(&m.category)
	w.BaseModelName.to(&m.baseModelName)
	w.FineTune.to(&m.fineTune)
	w.Status.to(&m.status)
	if w.DatasetID.ok {
		m.datasetID = w.DatasetID.v
	}
}
