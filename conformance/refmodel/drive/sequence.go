package drive

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"contractkit/conformance/refmodel"
)

// drive runs the whole sequence: the baseline (every list walked: what
// the accounts hold is adopted), every operation once as it should
// succeed, the tour of states, the effects, every operation with every
// intent and named value, random steps, and the lists again.
func (d *driver) drive() {
	g := d.g
	for _, k := range d.keys() {
		d.walkAll(k)
	}
	for _, k := range d.keys() {
		for _, r := range d.m.Resources(k) {
			g.protected[r.Kind+"/"+r.ID] = true
		}
	}
	ops := d.opIDs()
	// Every operation once as it should succeed: the values a server takes
	// are known before states and refusals are probed.
	g.key = refmodel.KeyA
	for _, op := range ops {
		if c, ok := g.call(op, success); ok && !strings.HasPrefix(op, "delete") {
			d.do(c)
		}
	}
	d.tour(g)
	d.effects(g)
	// Every operation with every intent for the first key; for the second,
	// what tells the accounts apart.
	for _, k := range d.keys() {
		g.key = k
		for _, op := range ops {
			for _, in := range intents {
				if k == refmodel.KeyB && in != success && in != foreignID && in != nearMiss {
					continue
				}
				if c, ok := g.call(op, in); ok {
					d.do(c)
				}
			}
			if k == refmodel.KeyA {
				for _, c := range g.named(op) {
					d.do(c)
				}
			}
		}
	}
	d.random(g, d.cfg.Steps)
	for _, k := range d.keys() {
		d.walkAll(k)
	}
	if !d.cfg.Keep {
		d.cleanup()
	}
}

// cleanup deletes what the run made and is still there, children first:
// running evaluations are awaited (a running one cannot be deleted). It
// runs on a context of its own, bounded by Config.Cleanup: the run's may
// be over (its time was up), what it made must still go.
func (d *driver) cleanup() {
	stopped, runCtx := d.run.Stopped, d.ctx
	d.run.Stopped = "" // a replay's bound, or the run's time, does not keep its resources
	limit, until := d.cfg.MaxCalls, d.cfg.Until
	d.cfg.MaxCalls, d.cfg.Until = 0, time.Time{}
	within := d.cfg.Cleanup
	if within <= 0 {
		within = max(time.Minute, 2*d.cfg.MaxWait)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(runCtx), within)
	d.ctx = ctx
	defer func() {
		cancel()
		d.cfg.MaxCalls, d.cfg.Until, d.ctx = limit, until, runCtx
		if stopped != "" {
			d.run.Stopped = stopped // why the run ended early, not its clean-up
		}
	}()
	for _, k := range d.keys() {
		var running []string
		for _, r := range d.m.Resources(k) {
			if r.Kind == "evaluation_id" && !r.Gone && !d.g.protected[r.Kind+"/"+r.ID] && slices.Contains(r.States["status"], "running") {
				running = append(running, r.ID)
			}
		}
		switch {
		case len(running) == 0:
		case k == refmodel.KeyA:
			d.advance(d.cfg.Eval, "evaluation_id", running, "completed", "failed")
		case d.cfg.Clock == nil:
			// The other account's running evaluations, read with its own
			// key (the first key's advance moved a test clock for both).
			d.awaitAs(k, "evaluation_id", running, []string{"completed", "failed"})
		}
		for _, kind := range []string{"conversation_id", "evaluation_id", "model_id", "dataset_id"} {
			op := map[string]string{"conversation_id": "deleteConversation", "evaluation_id": "deleteEvaluation", "model_id": "deleteModel", "dataset_id": "deleteDataset"}[kind]
			for _, r := range d.m.Resources(k) {
				if r.Kind == kind && !r.Gone && !d.g.protected[r.Kind+"/"+r.ID] {
					d.do(refmodel.Call{Op: op, Key: k, Path: map[string]string{kind: r.ID}})
				}
			}
		}
	}
}

// keys are the accounts driven.
func (d *driver) keys() []refmodel.Key {
	if d.cfg.OneAccount {
		return []refmodel.Key{refmodel.KeyA}
	}
	return []refmodel.Key{refmodel.KeyA, refmodel.KeyB}
}

func (d *driver) opIDs() []string {
	var out []string
	for id := range d.ops {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// walkAll reads every list of the account to its end: the models'
// conversations once the models are known, the conversations' messages
// once the conversations are.
func (d *driver) walkAll(k refmodel.Key) {
	d.do(refmodel.Call{Op: "listModels", Key: k})
	d.do(refmodel.Call{Op: "listDatasets", Key: k})
	d.walk(refmodel.Call{Op: "listEvaluations", Key: k}, "page", "per_page", 1)
	for _, kind := range []string{"model_id", "conversation_id"} {
		for _, r := range d.m.Resources(k) {
			switch {
			case r.Gone || r.Kind != kind:
			case kind == "model_id":
				d.walk(refmodel.Call{Op: "listConversations", Key: k, Query: query("model_id", r.ID)}, "offset", "limit", 0)
			default:
				d.walk(refmodel.Call{Op: "listMessages", Key: k, Path: map[string]string{"conversation_id": r.ID}}, "offset", "limit", 0)
			}
		}
	}
}

// walk reads a paged list page by page until a page is empty: by pages
// (first 1) or by offsets (first 0), each offset after the items read.
func (d *driver) walk(c refmodel.Call, at, size string, first int) {
	const per = 5
	next := first
	for range 40 {
		if d.stopped() {
			return
		}
		q := query()
		for k, v := range c.Query {
			q[k] = v
		}
		q.Set(size, strconv.Itoa(per))
		q.Set(at, strconv.Itoa(next))
		c.Query = q
		a := d.do(c)
		n := items(a)
		if a.Status != 200 || n == 0 {
			return
		}
		if first == 1 {
			next++
		} else {
			next += n
		}
	}
}

// items counts the items of a list answer.
func items(a refmodel.Answer) int {
	data, _ := a.Body.(map[string]any)
	switch v := data["data"].(type) {
	case []any:
		return len(v)
	case map[string]any:
		list, _ := v["evaluations"].([]any)
		return len(list)
	}
	return 0
}

// tour runs every operation against resources in each of their states:
// models pending, training and ready (the fixtures have a failed one), and
// evaluations pending, running, completed and failed (no data to answer
// from: a dataset of URLs only).
func (d *driver) tour(g *gen) {
	g.key = refmodel.KeyA
	modelOps := []string{"getModel", "listConversations", "createConversation", "runInference", "createEvaluation", "deleteModel"}
	// Each stage's models are made, then the clock moved (or, on a real
	// server, their states awaited): pending, training twice, ended.
	train := d.cfg.Train
	for _, stage := range []struct {
		by   time.Duration
		want []string
	}{{0, nil}, {train / 5, []string{"training", "ready", "failed"}}, {train * 3 / 5, []string{"training", "ready", "failed"}}, {train, []string{"ready", "failed"}}} {
		var made []string
		for range 2 {
			if c, ok := g.call("createModel", success); ok {
				made = append(made, createdID(d.do(c)))
			}
		}
		d.advance(stage.by, "model_id", made, stage.want...)
		d.touring(g, modelOps, "model_id", made)
	}
	if failed, ok := g.pick("model_id", refmodel.KeyA, in("only", "failed")); ok {
		d.touring(g, modelOps[:len(modelOps)-1], "model_id", []string{failed.ID})
	}
	// Evaluations: the operations that move a state each get an evaluation
	// of their own in each stage; the others share one.
	shared := []string{"getEvaluation", "updateEvaluation", "listEvaluations", "checkEvaluationName"}
	moving := []string{"runRagasEvaluation", "startEvaluation", "deleteEvaluation"}
	noData, _ := d.modelWithoutData(g)
	withData := d.modelWithData(g)
	for _, stage := range []string{"pending", "running", "completed", "failed"} {
		var ids []string
		for range 1 + len(moving) {
			c, ok := g.call("createEvaluation", success)
			if !ok {
				continue
			}
			aim(&c, "model_id", withData)
			if stage == "failed" {
				aim(&c, "model_id", noData)
			}
			if id := createdID(d.do(c)); id != "" {
				ids = append(ids, id)
			}
		}
		if len(ids) < 1+len(moving) {
			continue
		}
		for _, id := range ids {
			if stage != "pending" {
				d.do(refmodel.Call{Op: "startEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": id}})
			}
		}
		if stage == "completed" || stage == "failed" {
			d.advance(d.cfg.Eval, "evaluation_id", ids, "completed", "failed")
		}
		d.touring(g, shared, "evaluation_id", ids[:1])
		for i, op := range moving {
			d.touring(g, []string{op}, "evaluation_id", ids[1+i:2+i])
		}
	}
}

// effects runs each write whose effect reaches other resources, then reads
// what it reached: two exchanges in a conversation, an upload and a soft
// and a permanent delete of a trained model's dataset, the delete of a
// model with conversations and evaluations, a scoring run.
func (d *driver) effects(g *gen) {
	g.key = refmodel.KeyA
	ds := createdID(d.do(create(g, "createDataset")))
	mid := createdID(d.do(refmodel.Call{Op: "createModel", Key: refmodel.KeyA, Body: map[string]any{"model_name": g.text("model"), "dataset_id": ds}}))
	if ds == "" || mid == "" {
		return // a lost answer (TestLostAnswersBreakNothing)
	}
	d.advance(d.cfg.Train, "model_id", []string{mid}, "ready", "failed")
	conv := createdID(d.do(refmodel.Call{Op: "createConversation", Key: refmodel.KeyA, Body: map[string]any{"model_id": num(mid)}}))
	eval := createdID(d.do(refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": g.text("eval"), "model_id": num(mid)}}))
	readModel := func() {
		d.do(refmodel.Call{Op: "getModel", Key: refmodel.KeyA, Path: map[string]string{"model_id": mid}})
		d.do(refmodel.Call{Op: "listModels", Key: refmodel.KeyA})
	}
	for range 2 {
		d.do(refmodel.Call{Op: "runInference", Key: refmodel.KeyA, Body: map[string]any{"query": "How long is the warranty?", "model_id": num(mid), "conversation_id": conv}})
		d.walk(refmodel.Call{Op: "listConversations", Key: refmodel.KeyA, Query: query("model_id", mid)}, "offset", "limit", 0)
		d.walk(refmodel.Call{Op: "listMessages", Key: refmodel.KeyA, Path: map[string]string{"conversation_id": conv}}, "offset", "limit", 0)
	}
	up, _ := g.call("uploadDatasetFiles", success)
	up.Form.Fields["dataset_id"] = []string{ds}
	d.do(up)
	d.do(refmodel.Call{Op: "getDataset", Key: refmodel.KeyA, Path: map[string]string{"dataset_id": ds}})
	readModel()
	d.do(refmodel.Call{Op: "runRagasEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": eval}, Body: g.ragas()})
	d.do(refmodel.Call{Op: "getEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": eval}})
	d.do(refmodel.Call{Op: "deleteDataset", Key: refmodel.KeyA, Path: map[string]string{"dataset_id": ds}})
	readModel()
	d.do(refmodel.Call{Op: "deleteModel", Key: refmodel.KeyA, Path: map[string]string{"model_id": mid}})
	d.do(refmodel.Call{Op: "getEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": eval}})
	d.do(refmodel.Call{Op: "listMessages", Key: refmodel.KeyA, Path: map[string]string{"conversation_id": conv}})
	d.do(refmodel.Call{Op: "listConversations", Key: refmodel.KeyA, Query: query("model_id", mid)})
	d.do(refmodel.Call{Op: "startEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": eval}})
	d.advance(d.cfg.Eval, "evaluation_id", []string{eval}, "completed", "failed")
	d.walk(refmodel.Call{Op: "listEvaluations", Key: refmodel.KeyA}, "page", "per_page", 1)
	// A dataset erased for good under a trained model.
	ds2 := createdID(d.do(create(g, "createDataset")))
	m2 := createdID(d.do(refmodel.Call{Op: "createModel", Key: refmodel.KeyA, Body: map[string]any{"model_name": g.text("model"), "dataset_id": ds2}}))
	d.advance(d.cfg.Train, "model_id", []string{m2}, "ready", "failed")
	d.do(refmodel.Call{Op: "deleteDataset", Key: refmodel.KeyA, Path: map[string]string{"dataset_id": ds2}, Query: query("permanent", "true")})
	d.do(refmodel.Call{Op: "getModel", Key: refmodel.KeyA, Path: map[string]string{"model_id": m2}})
}

// touring runs each of ops against each of the resources ids, after a read
// that shows the state each is in, and counts the states it met.
func (d *driver) touring(g *gen, ops []string, kind string, ids []string) {
	seen := map[string]string{}
	for _, id := range ids {
		if id != "" {
			seen[id] = d.read(kind, id)
		}
	}
	for _, op := range ops {
		for _, id := range ids {
			if c, ok := g.success(op); ok && id != "" {
				c = minimal(c)
				aim(&c, kind, id)
				d.tally(op, kind, id, seen[id])
				d.do(c)
			}
		}
	}
}

// tally counts the state the resource id is in when op is sent to it: the
// model's, when it knows one state; else the one its last read showed (a
// real server's clock may have moved it since).
func (d *driver) tally(op, kind, id, read string) {
	state := read
	for _, r := range d.m.Resources(refmodel.KeyA) {
		if r.Kind == kind && r.ID == id && len(r.States["status"]) == 1 {
			state = r.States["status"][0]
		}
	}
	if state == "" {
		return
	}
	if d.run.Toured[op] == nil {
		d.run.Toured[op] = map[string]int{}
	}
	d.run.Toured[op][state]++
}

// modelWithoutData makes a model of a dataset of URLs only: nothing to
// answer from, so an evaluation of it fails (D-12).
func (d *driver) modelWithoutData(g *gen) (string, bool) {
	ds := createdID(d.do(refmodel.Call{Op: "createDataset", Key: refmodel.KeyA, Form: &refmodel.Form{Fields: map[string][]string{
		"dataset_name": {g.text("links")}, "urls": {"https://docs.example.com/only-a-link"}}}}))
	if ds == "" {
		return "", false
	}
	id := createdID(d.do(refmodel.Call{Op: "createModel", Key: refmodel.KeyA, Body: map[string]any{"model_name": g.text("model"), "dataset_id": ds}}))
	d.advance(d.cfg.Train, "model_id", []string{id}, "ready", "failed")
	return id, id != ""
}

// modelWithData makes a trained model of a dataset of readable text: an
// evaluation of it completes.
func (d *driver) modelWithData(g *gen) string {
	ds := createdID(d.do(refmodel.Call{Op: "createDataset", Key: refmodel.KeyA, Form: &refmodel.Form{Fields: map[string][]string{
		"dataset_name": {g.text("handbook")}}, Files: []refmodel.File{g.file("employee-handbook.md")}}}))
	id := createdID(d.do(refmodel.Call{Op: "createModel", Key: refmodel.KeyA, Body: map[string]any{"model_name": g.text("model"), "dataset_id": ds}}))
	d.advance(d.cfg.Train, "model_id", []string{id}, "ready", "failed")
	return id
}

// createdID is the id a create answered with, "" when it failed.
func createdID(a refmodel.Answer) string {
	if a.Status != 200 {
		return ""
	}
	data, _ := a.Body.(map[string]any)
	obj, _ := data["data"].(map[string]any)
	switch id := obj["id"].(type) {
	case string:
		return id
	case fmt.Stringer:
		return id.String()
	}
	return ""
}

// create is a create of op that needs no other resource (a dataset).
func create(g *gen, op string) refmodel.Call {
	c, _ := g.call(op, success)
	return c
}

// aim points a call at the model id.
func aim(c *refmodel.Call, param, id string) {
	switch {
	case c.Path != nil && c.Path[param] != "":
		c.Path[param] = id
	case c.Query.Has(param):
		c.Query.Set(param, id)
	default:
		if b, ok := c.Body.(map[string]any); ok {
			b[param] = num(id)
			delete(b, "conversation_id")
		}
	}
}

// random runs n random steps: any operation, any intent (successes most
// often), either key, the clock moved now and then, a call repeated.
func (d *driver) random(g *gen, n int) {
	ops := d.opIDs()
	var last *refmodel.Call
	for range n {
		g.key = refmodel.Key(g.r.IntN(2))
		if d.cfg.OneAccount {
			g.key = refmodel.KeyA
		}
		if g.chance(8) {
			// With a Clock only: a real server's time moves by itself.
			d.advance([]time.Duration{d.cfg.Train / 20, d.cfg.Train / 5, d.cfg.Train * 3 / 5, d.cfg.Train * 11 / 10}[g.r.IntN(4)], "", nil)
		}
		if last != nil && g.chance(10) {
			d.do(*last)
			continue
		}
		in := success
		if g.chance(3) {
			in = intents[g.r.IntN(len(intents))]
		}
		c, ok := g.call(ops[g.r.IntN(len(ops))], in)
		if !ok {
			continue
		}
		d.do(c)
		last = &c
	}
}
