package drive

import (
	"encoding/json"
	"strconv"
	"strings"

	"contractkit/conformance/refmodel"
)

// Each operation's call, valid and aimed at live resources, with values
// drawn the way clients of the service send them.

func (g *gen) success(op string) (refmodel.Call, bool) {
	c := refmodel.Call{Op: op, Key: g.key}
	item := func(kind string, ok func(refmodel.Resource) bool) bool {
		if g.writes[op] {
			ok = g.mine(ok)
		}
		r, found := g.pick(kind, g.key, ok)
		if found {
			c.Path = map[string]string{kind: r.ID}
		}
		return found
	}
	switch op {
	case "listModels", "listDatasets":
		return c, true
	case "getModel", "deleteModel", "getDataset", "getEvaluation":
		return c, item(map[string]string{"getModel": "model_id", "deleteModel": "model_id", "getDataset": "dataset_id", "getEvaluation": "evaluation_id"}[op], live)
	case "deleteDataset":
		if g.chance(3) {
			c.Query = query("permanent", strconv.FormatBool(g.chance(2)))
		}
		return c, item("dataset_id", live)
	case "createModel":
		d, ok := g.pick("dataset_id", g.key, live)
		body := map[string]any{"model_name": g.text("model"), "dataset_id": d.ID}
		if g.chance(2) {
			body["description"] = g.text("description")
		}
		if g.chance(3) {
			body["base_model_id"], body["training_type_id"], body["use_case_id"], body["persona_id"] = num("3"), "fine-tune", num("12"), num("4")
		}
		c.Body = body
		return c, ok
	case "listConversations":
		m, ok := g.pick("model_id", g.key, live)
		c.Query = query("model_id", m.ID)
		if g.chance(3) {
			c.Query.Set("limit", strconv.Itoa(1+g.r.IntN(4)))
			c.Query.Set("offset", strconv.Itoa(g.r.IntN(3)))
		}
		return c, ok
	case "createConversation":
		m, ok := g.pick("model_id", g.key, live)
		body := map[string]any{"model_id": num(m.ID)}
		if g.chance(4) != true {
			body["title"] = g.text("thread")
		}
		c.Body = body
		return c, ok
	case "renameConversation":
		if g.chance(4) {
			c.Query = query("title", g.text("renamed"))
		} else {
			c.Body = map[string]any{"title": g.text("renamed")}
		}
		return c, item("conversation_id", live)
	case "deleteConversation":
		return c, item("conversation_id", live)
	case "listMessages":
		if g.chance(3) {
			c.Query = query("limit", strconv.Itoa(1+g.r.IntN(3)), "offset", strconv.Itoa(g.r.IntN(3)))
		}
		return c, item("conversation_id", live)
	case "createDataset":
		f := &refmodel.Form{Fields: map[string][]string{"dataset_name": {g.text("data")}}}
		if g.chance(2) {
			f.Fields["description"] = []string{g.text("description")}
		}
		if g.chance(3) {
			f.Fields["tags"] = []string{"support, faq\nwarranty"}
		}
		if g.chance(4) {
			f.Fields["urls"] = []string{"https://docs.example.com/a, https://docs.example.com/b"}
		}
		if f.Fields["urls"] == nil || g.chance(2) {
			f.Files = g.files(op)
		}
		c.Form = f
		return c, true
	case "uploadDatasetFiles":
		d, ok := g.pick("dataset_id", g.key, g.mine(live))
		c.Form = &refmodel.Form{Fields: map[string][]string{"dataset_id": {d.ID}}, Files: g.files(op)}
		return c, ok
	case "runInference":
		return g.inference(c)
	case "listEvaluations":
		c.Query = query()
		if g.chance(2) {
			c.Query.Set("status", g.cycle("status", "pending", "running", "completed", "failed"))
		}
		if g.chance(2) {
			c.Query.Set("per_page", strconv.Itoa(1+g.r.IntN(3)))
			c.Query.Set("page", strconv.Itoa(1+g.r.IntN(3)))
		}
		return c, true
	case "createEvaluation":
		m, ok := g.pick("model_id", g.key, live)
		body := map[string]any{"name": g.text("eval"), "model_id": num(m.ID)}
		if g.chance(2) {
			body["type"], body["benchmark_type"] = "ragas", "beir"
		}
		if g.chance(3) {
			body["question_count"], body["description"] = num(strconv.Itoa(1+g.r.IntN(5))), g.text("weekly check")
		}
		c.Body = body
		return c, ok
	case "checkEvaluationName":
		name := g.text("eval")
		if e, ok := g.pick("evaluation_id", g.key, live); ok && g.chance(2) {
			name, _ = e.Fields["name"].(string)
			if g.chance(2) {
				name = strings.ToUpper(name)
			}
		}
		if g.chance(6) {
			name = "bad!name"
		}
		c.Query = query("name", name)
		return c, true
	case "updateEvaluation":
		body := map[string]any{}
		if g.chance(2) {
			body["name"] = g.text("eval")
		}
		if g.chance(2) {
			body["description"] = g.text("description")
		}
		c.Body = body
		return c, item("evaluation_id", live)
	case "deleteEvaluation", "startEvaluation":
		return c, item("evaluation_id", in("none", "running"))
	case "runRagasEvaluation":
		c.Body = g.ragas()
		return c, item("evaluation_id", in("none", "running"))
	}
	return c, false // an operation the contract gained since: no call for it yet (the coverage report names it)
}

func (g *gen) inference(c refmodel.Call) (refmodel.Call, bool) {
	// A ready model most of the time: what an inference on it may carry is
	// the reference's alone (a training one's is D-23's).
	m, ok := g.pick("model_id", g.key, in("only", "ready"))
	if !ok || g.chance(3) {
		m, ok = g.pick("model_id", g.key, in("none", "failed"))
	}
	if !ok {
		return c, false
	}
	body := map[string]any{"query": g.cycle("query", "How long is the warranty?", "Jak dlouhá je záruka?", "What does the FAQ say about returns?"), "model_id": num(m.ID)}
	if conv, ok := g.pick("conversation_id", g.key, g.mine(func(r refmodel.Resource) bool { return !r.Gone && r.Parent == m.ID })); ok && g.chance(2) {
		body["conversation_id"] = conv.ID
	}
	if g.chance(3) {
		body["thread_id"] = "0d3f5c8e-1b2a-4c6d-9e8f-7a6b5c4d3e2f"
	}
	if g.chance(3) {
		body["max_tokens"] = num(strconv.Itoa(1 + g.r.IntN(40)))
	}
	if g.chance(3) {
		body["temperature"] = num(g.cycle("temperature", "0", "0.5", "1"))
	}
	if g.chance(3) {
		body["response_length_preference"] = g.cycle("length", "concise", "balanced", "detailed")
	}
	if g.chance(4) {
		body["enable_web_search"] = g.chance(2)
	}
	c.Body = body
	if g.chance(3) {
		c.Accept = "application/json"
	}
	return c, true
}

func (g *gen) ragas() map[string]any {
	if g.chance(4) {
		return map[string]any{"samples": []any{}, "selected_questions": []any{}}
	}
	samples := []any{
		map[string]any{"question": "How long is the standard warranty?", "answer": "The standard warranty period is 24 months.", "contexts": []any{"The standard warranty period is 24 months from the date of delivery."}, "ground_truth": "24 months from delivery."},
		map[string]any{"question": "Who pays for returns?", "answer": "The customer pays for returns.", "contexts": []any{"Returns are shipped at the customer's cost."}},
	}
	body := map[string]any{"samples": samples}
	if g.chance(2) {
		body["selected_questions"] = []any{"Who pays for returns?"}
	}
	return body
}

// invalid makes a call the contract refuses.
func (g *gen) invalid(c refmodel.Call) (refmodel.Call, bool) {
	body, _ := c.Body.(map[string]any)
	set := func(k string, v any) (refmodel.Call, bool) {
		nb := cloneMap(body)
		if v == nil {
			delete(nb, k)
		} else {
			nb[k] = v
		}
		c.Body = nb
		return c, true
	}
	switch c.Op {
	case "createModel":
		return set("model_name", nil)
	case "listConversations", "listMessages":
		if c.Query == nil {
			c.Query = query()
		}
		c.Query.Set("limit", []string{"abc", "0", "-1"}[g.r.IntN(3)])
		return c, true
	case "createConversation":
		return set("title", json.Number("5"))
	case "renameConversation":
		c.Body, c.Query = map[string]any{}, nil
		return c, true
	case "createDataset":
		c.Form = &refmodel.Form{Fields: map[string][]string{"dataset_name": {g.text("data")}}}
		if g.chance(2) {
			c.Form.Fields["urls"] = []string{"ftp://not-http.example"}
		}
		return c, true
	case "uploadDatasetFiles":
		f := *c.Form
		f.Files = nil
		c.Form = &f
		return c, true
	case "runInference":
		switch g.r.IntN(3) {
		case 0:
			return set("temperature", json.Number("1.5"))
		case 1:
			return set("response_length_preference", "verbose")
		}
		m, _ := body["model_id"].(json.Number)
		conv, ok := g.pick("conversation_id", g.key, func(r refmodel.Resource) bool { return !r.Gone && r.Parent != string(m) })
		if !ok {
			return set("temperature", json.Number("-1"))
		}
		return set("conversation_id", conv.ID)
	case "listEvaluations":
		c.Query = query("status", "done")
		return c, true
	case "createEvaluation":
		if g.chance(2) {
			return set("name", "bad!name")
		}
		return set("question_count", "ten")
	case "checkEvaluationName":
		c.Query = nil
		return c, true
	case "updateEvaluation":
		return set("name", []string{"", "what?", "😀"}[g.r.IntN(3)])
	case "runRagasEvaluation":
		return set("selected_questions", []any{"a question no sample has"})
	case "deleteDataset":
		c.Query = query("permanent", "perhaps")
		return c, true
	}
	return c, false
}

// conflict makes a call a resource's state or a taken name refuses.
func (g *gen) conflict(op string) (refmodel.Call, bool) {
	c := refmodel.Call{Op: op, Key: g.key}
	switch op {
	case "startEvaluation", "deleteEvaluation", "runRagasEvaluation":
		e, ok := g.pick("evaluation_id", g.key, g.mine(in("only", "running")))
		c.Path = map[string]string{"evaluation_id": e.ID}
		if op == "runRagasEvaluation" {
			c.Body = g.ragas()
		}
		return c, ok
	case "createEvaluation", "updateEvaluation":
		e, ok := g.pick("evaluation_id", g.key, live)
		if !ok {
			return c, false
		}
		name, _ := e.Fields["name"].(string)
		if g.chance(2) {
			name = strings.ToLower(name)
		}
		if op == "updateEvaluation" {
			other, ok := g.pick("evaluation_id", g.key, g.mine(func(r refmodel.Resource) bool { return !r.Gone && r.ID != e.ID }))
			c.Path, c.Body = map[string]string{"evaluation_id": other.ID}, map[string]any{"name": name}
			return c, ok && name != ""
		}
		m, ok := g.pick("model_id", g.key, live)
		c.Body = map[string]any{"name": name, "model_id": num(m.ID)}
		return c, ok && name != ""
	case "runInference":
		m, ok := g.pick("model_id", g.key, in("only", "failed"))
		c.Body = map[string]any{"query": "Anything?", "model_id": num(m.ID)}
		return c, ok
	}
	return c, false
}

// minimal keeps only what an operation requires: a call whose values the
// server has accepted before, so that a refusal of it is about the state
// it meets, not about a value.
func minimal(c refmodel.Call) refmodel.Call {
	keep := map[string][]string{
		"runInference":       {"query", "model_id"},
		"createConversation": {"model_id"},
		"createEvaluation":   {"name", "model_id"},
		"updateEvaluation":   {"description"},
	}[c.Op]
	body, ok := c.Body.(map[string]any)
	if !ok || keep == nil {
		return c
	}
	out := map[string]any{}
	for _, k := range keep {
		if v, ok := body[k]; ok {
			out[k] = v
		}
	}
	switch c.Op {
	case "runInference":
		out["query"] = "How long is the warranty?"
	case "updateEvaluation":
		out["description"] = "Weekly quality check"
	}
	c.Body, c.Accept = out, ""
	return c
}

// named are calls of op carrying, one by one, each value the reference
// names for it (an enum member, the ends of a stated range, the values it
// shows): each must be accepted whatever the seed.
func (g *gen) named(op string) []refmodel.Call {
	var out []refmodel.Call
	with := func(field string, values ...any) {
		for _, v := range values {
			c, ok := g.success(op)
			if !ok {
				return
			}
			c = minimal(c)
			switch {
			case c.Body != nil:
				c.Body.(map[string]any)[field] = v
			default:
				c.Query = query(field, v.(string))
			}
			out = append(out, c)
		}
	}
	switch op {
	case "runInference":
		with("response_length_preference", "concise", "balanced", "detailed")
		with("temperature", num("0"), num("1"))
		with("enable_web_search", true, false)
	case "listEvaluations":
		with("status", "pending", "running", "completed", "failed")
	case "createEvaluation":
		with("type", "ragas")
		with("benchmark_type", "beir")
	}
	return out
}
