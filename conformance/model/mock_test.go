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
	return []uint64{1, 2}
}

func steps() int {
	if n, err := strconv.Atoi(os.Getenv("MODEL_STEPS")); err == nil {
		return n
	}
	return 250
}

func TestMockAndModelAgree(t *testing.T) {
	for _, seed := range seeds(t) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			d := run(t, startMock(t, nil), seed, steps())
			if len(d.found) > 0 {
				t.Errorf("the mock and the model disagree (seed %d, %d calls):%s", seed, len(d.steps), d.report())
			}
			d.checkCoverage(t)
		})
	}
}

// run drives a server through a whole sequence: the baseline (every list
// walked: the fixtures are adopted), a tour of every state, every
// operation with every intent, random steps, and the lists again.
func run(t testing.TB, srv server, seed uint64, n int) *driver {
	d := newDriver(t, srv)
	g := &gen{t: t, r: rand.New(rand.NewPCG(seed, 0x6d6f64656c)), m: d.m}
	for _, k := range []model.Key{model.KeyA, model.KeyB} {
		d.walkAll(k)
	}
	d.tour(g)
	ops := d.opIDs()
	for _, k := range []model.Key{model.KeyA, model.KeyB} {
		g.key = k
		for _, op := range ops {
			for _, in := range intents {
				if c, ok := g.call(op, in); ok {
					d.do(c)
				}
			}
		}
	}
	d.random(g, n)
	for _, k := range []model.Key{model.KeyA, model.KeyB} {
		d.walkAll(k)
	}
	return d
}

func (d *driver) opIDs() []string {
	var out []string
	for id := range d.ops {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// walkAll reads every list of the account to its end.
func (d *driver) walkAll(k model.Key) {
	d.do(model.Call{Op: "listModels", Key: k})
	d.do(model.Call{Op: "listDatasets", Key: k})
	d.walk(model.Call{Op: "listEvaluations", Key: k}, "page", "per_page", 1)
	for _, r := range d.m.Resources(k) {
		if r.Gone {
			continue
		}
		switch r.Kind {
		case "model_id":
			d.walk(model.Call{Op: "listConversations", Key: k, Query: query("model_id", r.ID)}, "offset", "limit", 0)
		case "conversation_id":
			d.walk(model.Call{Op: "listMessages", Key: k, Path: map[string]string{"conversation_id": r.ID}}, "offset", "limit", 0)
		}
	}
}

// walk reads a paged list page by page until a page is empty.
func (d *driver) walk(c model.Call, at, size string, first int) {
	const per = 3
	for i := range 40 {
		q := query()
		for k, v := range c.Query {
			q[k] = v
		}
		q.Set(size, strconv.Itoa(per))
		if first == 1 {
			q.Set(at, strconv.Itoa(first+i))
		} else {
			q.Set(at, strconv.Itoa(i*per))
		}
		c.Query = q
		a := d.do(c)
		if a.Status != 200 || empty(a) {
			return
		}
	}
}

func empty(a model.Answer) bool {
	data, _ := a.Body.(map[string]any)
	switch v := data["data"].(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		list, _ := v["evaluations"].([]any)
		return len(list) == 0
	}
	return true
}

// tour runs every operation against resources in each of their states:
// models pending, training and ready (and the fixtures' failed one), and
// evaluations pending, running, completed and failed.
func (d *driver) tour(g *gen) {
	g.key = model.KeyA
	modelOps := []string{"getModel", "listConversations", "createConversation", "runInference", "createEvaluation", "deleteModel"}
	for _, wait := range []time.Duration{0, 2 * time.Second, 6 * time.Second, trainFor} {
		ds := d.do(mustCall(g, "createDataset"))
		if ds.Status != 200 {
			continue
		}
		var made []model.Resource
		for range 2 {
			if c, ok := g.call("createModel", success); ok {
				d.do(c)
			}
		}
		d.advance(wait)
		for _, r := range d.m.Resources(model.KeyA) {
			if r.Kind == "model_id" && !r.Gone {
				made = append(made, r)
			}
		}
		for _, op := range modelOps {
			for _, r := range made {
				c, ok := g.success(op)
				if !ok {
					continue
				}
				aim(&c, "model_id", r.ID)
				d.do(c)
			}
		}
	}
	evalOps := []string{"getEvaluation", "updateEvaluation", "listEvaluations", "checkEvaluationName", "runRagasEvaluation", "startEvaluation", "deleteEvaluation"}
	for _, stage := range []string{"pending", "running", "completed"} {
		c, ok := g.call("createEvaluation", success)
		if !ok {
			continue
		}
		d.do(c)
		e, _ := g.pick("evaluation_id", model.KeyA, live)
		switch stage {
		case "running":
			d.do(model.Call{Op: "startEvaluation", Key: model.KeyA, Path: map[string]string{"evaluation_id": e.ID}})
		case "completed":
			d.do(model.Call{Op: "startEvaluation", Key: model.KeyA, Path: map[string]string{"evaluation_id": e.ID}})
			d.advance(evalFor)
		}
		for _, op := range evalOps {
			c := model.Call{Op: op, Key: model.KeyA, Path: map[string]string{"evaluation_id": e.ID}}
			switch op {
			case "updateEvaluation":
				c.Body = map[string]any{"description": g.text("note")}
			case "runRagasEvaluation":
				c.Body = g.ragas()
			case "listEvaluations", "checkEvaluationName":
				c, _ = g.success(op)
			}
			d.do(c)
		}
	}
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

// checkCoverage requires every operation to have succeeded, and to have
// got each status an intent provoked it for.
func (d *driver) checkCoverage(t *testing.T) {
	var rows []string
	for _, op := range spec.Strict().Operations {
		got := d.cover[op.ID]
		if got[200] == 0 {
			t.Errorf("%s never succeeded", op.ID)
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
