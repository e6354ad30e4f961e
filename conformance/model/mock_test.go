package model_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"contractkit/conformance/model"
	"contractkit/mockserver"
	"contractkit/spec"
)

// The mock and the model judge each other: two implementations of the
// same semantics, one a server, one an oracle. Seeded sequences run every
// operation against the in-process mock, with both keys, near-miss ids and
// keys, repeats and every operation interleaved with each state of models
// and evaluations; the model must find nothing. A disagreement names the
// operation, the field and both values, with the calls that led to it.
//
// MODEL_SEEDS=1,2,3 runs other seeds; MODEL_STEPS the random steps of each.

func seeds(t *testing.T) []uint64 {
	if s := os.Getenv("MODEL_SEEDS"); s != "" {
		var out []uint64
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
			if err != nil {
				t.Fatalf("MODEL_SEEDS: %v", err)
			}
			out = append(out, n)
		}
		return out
	}
	return []uint64{1}
}

func steps() int {
	if n, err := strconv.Atoi(os.Getenv("MODEL_STEPS")); err == nil {
		return n
	}
	return 60
}

// Beside it, a model that does not know when the server's clock moves (as
// the explore phase does not) watches the same exchanges: it makes no firm
// finding; a state that may have moved gives it at most a timing finding,
// to be confirmed by replay.
func TestMockAndModelAgree(t *testing.T) {
	for _, seed := range seeds(t) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			d := newDriver(t, startMock(t, nil))
			d.shadow = model.New(model.Config{})
			drive(d, seed, steps())
			t.Logf("seed %d: %d calls; the unfrozen model's timing findings: %d", seed, len(d.steps), d.timing)
			if len(d.found) > 0 {
				t.Errorf("the mock and the model disagree (seed %d, %d calls):%s", seed, len(d.steps), d.report())
			}
			for _, f := range d.firm {
				t.Errorf("the unfrozen model's firm finding after call #%d: %s %s", f.step, f.f.Operation, f.f)
			}
			d.checkCoverage(t)
		})
	}
}

// A server that loses one answer in seven (a 500 before anything is done)
// breaks no prediction: a lost answer teaches the model nothing, and what
// the lost call may have written is learned again when it is read.
func TestLostAnswersBreakNothing(t *testing.T) {
	proofs(t)
	for _, seed := range seeds(t) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			srv := startMock(t, nil, func(c *mockserver.Config) { c.ErrorRate = 1.0 / 7 })
			d := run(t, srv, seed+100, 40)
			lost := 0
			for _, got := range d.cover {
				lost += got[500]
			}
			if lost == 0 {
				t.Fatal("no answer was lost: the test proves nothing")
			}
			if len(d.found) > 0 {
				t.Errorf("lost answers made the model find (%d calls, %d lost):%s", len(d.steps), lost, d.report())
			}
		})
	}
}

// run drives a server through a whole sequence: the baseline (every list
// walked: the fixtures are adopted), a tour of every state, every
// operation with every intent, random steps, and the lists again.
func run(t testing.TB, srv server, seed uint64, n int) *driver {
	d := newDriver(t, srv)
	drive(d, seed, n)
	return d
}

// drive runs the sequence of run with d's model.
func drive(d *driver, seed uint64, n int) {
	t := d.t
	g := &gen{t: t, r: rand.New(rand.NewPCG(seed, 0x6d6f64656c)), m: d.m}
	for _, k := range []model.Key{model.KeyA, model.KeyB} {
		d.walkAll(k)
	}
	ops := d.opIDs()
	// Every operation once as it should succeed: the values a server takes
	// are known before states and refusals are probed.
	g.key = model.KeyA
	for _, op := range ops {
		if c, ok := g.call(op, success); ok && !strings.HasPrefix(op, "delete") {
			d.do(c)
		}
	}
	d.tour(g)
	d.effects(g)
	// Every operation with every intent for the first key; for the second,
	// what tells the accounts apart.
	for _, k := range []model.Key{model.KeyA, model.KeyB} {
		g.key = k
		for _, op := range ops {
			for _, in := range intents {
				if k == model.KeyB && in != success && in != foreignID && in != nearMiss {
					continue
				}
				if c, ok := g.call(op, in); ok {
					d.do(c)
				}
			}
			if k == model.KeyA {
				for _, c := range g.named(op) {
					d.do(c)
				}
			}
		}
	}
	d.random(g, n)
	for _, k := range []model.Key{model.KeyA, model.KeyB} {
		d.walkAll(k)
	}
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
func (d *driver) walkAll(k model.Key) {
	d.do(model.Call{Op: "listModels", Key: k})
	d.do(model.Call{Op: "listDatasets", Key: k})
	d.walk(model.Call{Op: "listEvaluations", Key: k}, "page", "per_page", 1)
	for _, kind := range []string{"model_id", "conversation_id"} {
		for _, r := range d.m.Resources(k) {
			switch {
			case r.Gone || r.Kind != kind:
			case kind == "model_id":
				d.walk(model.Call{Op: "listConversations", Key: k, Query: query("model_id", r.ID)}, "offset", "limit", 0)
			default:
				d.walk(model.Call{Op: "listMessages", Key: k, Path: map[string]string{"conversation_id": r.ID}}, "offset", "limit", 0)
			}
		}
	}
}

// walk reads a paged list page by page until a page is empty: by pages
// (first 1) or by offsets (first 0), each offset after the items read.
func (d *driver) walk(c model.Call, at, size string, first int) {
	const per = 5
	next := first
	for range 40 {
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
func items(a model.Answer) int {
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
	g.key = model.KeyA
	modelOps := []string{"getModel", "listConversations", "createConversation", "runInference", "createEvaluation", "deleteModel"}
	for _, wait := range []time.Duration{0, 2 * time.Second, 6 * time.Second, trainFor} {
		var made []string
		for range 2 {
			if c, ok := g.call("createModel", success); ok {
				made = append(made, createdID(d.do(c)))
			}
		}
		d.advance(wait)
		d.touring(g, modelOps, "model_id", made)
	}
	if failed, ok := g.pick("model_id", model.KeyA, in("only", "failed")); ok {
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
				d.do(model.Call{Op: "startEvaluation", Key: model.KeyA, Path: map[string]string{"evaluation_id": id}})
			}
		}
		if stage == "completed" || stage == "failed" {
			d.advance(evalFor)
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
	g.key = model.KeyA
	ds := createdID(d.do(mustCall(g, "createDataset")))
	mid := createdID(d.do(model.Call{Op: "createModel", Key: model.KeyA, Body: map[string]any{"model_name": g.text("model"), "dataset_id": ds}}))
	if ds == "" || mid == "" {
		return // a lost answer (TestLostAnswersBreakNothing)
	}
	d.advance(trainFor)
	conv := createdID(d.do(model.Call{Op: "createConversation", Key: model.KeyA, Body: map[string]any{"model_id": num(mid)}}))
	eval := createdID(d.do(model.Call{Op: "createEvaluation", Key: model.KeyA, Body: map[string]any{"name": g.text("eval"), "model_id": num(mid)}}))
	readModel := func() {
		d.do(model.Call{Op: "getModel", Key: model.KeyA, Path: map[string]string{"model_id": mid}})
		d.do(model.Call{Op: "listModels", Key: model.KeyA})
	}
	for range 2 {
		d.do(model.Call{Op: "runInference", Key: model.KeyA, Body: map[string]any{"query": "How long is the warranty?", "model_id": num(mid), "conversation_id": conv}})
		d.walk(model.Call{Op: "listConversations", Key: model.KeyA, Query: query("model_id", mid)}, "offset", "limit", 0)
		d.walk(model.Call{Op: "listMessages", Key: model.KeyA, Path: map[string]string{"conversation_id": conv}}, "offset", "limit", 0)
	}
	up, _ := g.call("uploadDatasetFiles", success)
	up.Form.Fields["dataset_id"] = []string{ds}
	d.do(up)
	d.do(model.Call{Op: "getDataset", Key: model.KeyA, Path: map[string]string{"dataset_id": ds}})
	readModel()
	d.do(model.Call{Op: "runRagasEvaluation", Key: model.KeyA, Path: map[string]string{"evaluation_id": eval}, Body: g.ragas()})
	d.do(model.Call{Op: "getEvaluation", Key: model.KeyA, Path: map[string]string{"evaluation_id": eval}})
	d.do(model.Call{Op: "deleteDataset", Key: model.KeyA, Path: map[string]string{"dataset_id": ds}})
	readModel()
	d.do(model.Call{Op: "deleteModel", Key: model.KeyA, Path: map[string]string{"model_id": mid}})
	d.do(model.Call{Op: "getEvaluation", Key: model.KeyA, Path: map[string]string{"evaluation_id": eval}})
	d.do(model.Call{Op: "listMessages", Key: model.KeyA, Path: map[string]string{"conversation_id": conv}})
	d.do(model.Call{Op: "listConversations", Key: model.KeyA, Query: query("model_id", mid)})
	d.do(model.Call{Op: "startEvaluation", Key: model.KeyA, Path: map[string]string{"evaluation_id": eval}})
	d.advance(evalFor)
	d.walk(model.Call{Op: "listEvaluations", Key: model.KeyA}, "page", "per_page", 1)
	// A dataset erased for good under a trained model.
	ds2 := createdID(d.do(mustCall(g, "createDataset")))
	m2 := createdID(d.do(model.Call{Op: "createModel", Key: model.KeyA, Body: map[string]any{"model_name": g.text("model"), "dataset_id": ds2}}))
	d.advance(trainFor)
	d.do(model.Call{Op: "deleteDataset", Key: model.KeyA, Path: map[string]string{"dataset_id": ds2}, Query: query("permanent", "true")})
	d.do(model.Call{Op: "getModel", Key: model.KeyA, Path: map[string]string{"model_id": m2}})
}

// touring runs each of ops against each of the resources ids, after a read
// that shows the state each is in, and counts the states it met.
func (d *driver) touring(g *gen, ops []string, kind string, ids []string) {
	get := map[string]string{"model_id": "getModel", "evaluation_id": "getEvaluation"}[kind]
	for _, id := range ids {
		if id != "" {
			d.do(model.Call{Op: get, Key: model.KeyA, Path: map[string]string{kind: id}})
		}
	}
	for _, op := range ops {
		for _, id := range ids {
			if c, ok := g.success(op); ok && id != "" {
				c = minimal(c)
				aim(&c, kind, id)
				d.tally(op, kind, id)
				d.do(c)
			}
		}
	}
}

// tally counts the state the resource id is in when op is sent to it.
func (d *driver) tally(op, kind, id string) {
	for _, r := range d.m.Resources(model.KeyA) {
		if r.Kind == kind && r.ID == id && len(r.States["status"]) == 1 {
			if d.toured[op] == nil {
				d.toured[op] = map[string]int{}
			}
			d.toured[op][r.States["status"][0]]++
		}
	}
}

// modelWithoutData makes a model of a dataset of URLs only: nothing to
// answer from, so an evaluation of it fails (D-12).
func (d *driver) modelWithoutData(g *gen) (string, bool) {
	ds := createdID(d.do(model.Call{Op: "createDataset", Key: model.KeyA, Form: &model.Form{Fields: map[string][]string{
		"dataset_name": {g.text("links")}, "urls": {"https://docs.example.com/only-a-link"}}}}))
	if ds == "" {
		return "", false
	}
	id := createdID(d.do(model.Call{Op: "createModel", Key: model.KeyA, Body: map[string]any{"model_name": g.text("model"), "dataset_id": ds}}))
	d.advance(trainFor)
	return id, id != ""
}

// modelWithData makes a trained model of a dataset of readable text: an
// evaluation of it completes.
func (d *driver) modelWithData(g *gen) string {
	ds := createdID(d.do(model.Call{Op: "createDataset", Key: model.KeyA, Form: &model.Form{Fields: map[string][]string{
		"dataset_name": {g.text("handbook")}}, Files: []model.File{g.file("employee-handbook.md")}}}))
	id := createdID(d.do(model.Call{Op: "createModel", Key: model.KeyA, Body: map[string]any{"model_name": g.text("model"), "dataset_id": ds}}))
	d.advance(trainFor)
	return id
}

// createdID is the id a create answered with, "" when it failed.
func createdID(a model.Answer) string {
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

func mustCall(g *gen, op string) model.Call {
	c, ok := g.call(op, success)
	if !ok {
		g.t.Fatalf("no call for %s", op)
	}
	return c
}

// aim points a call at the model id.
func aim(c *model.Call, param, id string) {
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
	var last *model.Call
	for range n {
		g.key = model.Key(g.r.IntN(2))
		if g.chance(8) {
			d.advance([]time.Duration{500 * time.Millisecond, 2 * time.Second, 6 * time.Second, 11 * time.Second}[g.r.IntN(4)])
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

// checkCoverage requires every operation to have succeeded, and each
// operation of the tour to have met its resource in each of its states.
func (d *driver) checkCoverage(t *testing.T) {
	for op, states := range map[string][]string{
		"getModel": {"pending", "training", "ready", "failed"}, "listConversations": {"pending", "training", "ready", "failed"},
		"createConversation": {"pending", "training", "ready", "failed"}, "runInference": {"pending", "training", "ready", "failed"},
		"createEvaluation": {"pending", "training", "ready", "failed"}, "deleteModel": {"pending", "training", "ready"},
		"getEvaluation": {"pending", "running", "completed", "failed"}, "updateEvaluation": {"pending", "running", "completed", "failed"},
		"runRagasEvaluation": {"pending", "running", "completed", "failed"}, "startEvaluation": {"pending", "running", "completed", "failed"},
		"deleteEvaluation": {"pending", "running", "completed", "failed"},
	} {
		for _, s := range states {
			if d.toured[op][s] == 0 {
				t.Errorf("%s never met its resource %s (met %v)", op, s, d.toured[op])
			}
		}
	}
	var rows []string
	for _, op := range spec.Strict().Operations {
		got := d.cover[op.ID]
		for _, code := range provokable(op) {
			if got[code] == 0 {
				t.Errorf("%s never answered %d, a status a client can provoke", op.ID, code)
			}
		}
		var codes []string
		for _, s := range op.Statuses {
			n, _ := strconv.Atoi(s)
			codes = append(codes, fmt.Sprintf("%s:%d", s, got[n]))
		}
		rows = append(rows, fmt.Sprintf("%-20s %s", op.ID, strings.Join(codes, " ")))
	}
	t.Logf("coverage (documented status: answers):\n%s", strings.Join(rows, "\n"))
}

// provokable are the documented statuses of op a client can provoke: a
// success and a refused key always; 404 with an id in the path or the body;
// 400 (malformed), 413 (too large) and 422 (invalid) with a body, 422 with
// a query parameter the contract constrains; 409 where it is documented (a
// state or a taken name). 429 and 500 are the server's to give.
func provokable(op spec.Operation) []int {
	kin := spec.Strict().Kin.Paths.Value(op.Path).GetOperation(strings.ToUpper(op.Method))
	documented := func(c string) bool { return slices.Contains(op.Statuses, c) }
	out := []int{200, 401}
	body := kin.RequestBody != nil
	ids := strings.Contains(op.Path, "{")
	query := false
	for _, p := range append(spec.Strict().Kin.Paths.Value(op.Path).Parameters, kin.Parameters...) {
		if p.Value != nil && p.Value.In == "query" {
			query = true
			ids = ids || strings.HasSuffix(p.Value.Name, "_id")
		}
	}
	if body {
		ids = true // every body of the contract names a resource, or creates one that needs none
		out = append(out, 400, 422)
		if documented("413") {
			out = append(out, 413)
		}
	} else if query {
		out = append(out, 422)
	}
	if ids && documented("404") && op.ID != "createDataset" {
		out = append(out, 404)
	}
	if documented("409") {
		out = append(out, 409)
	}
	return out
}
