package explore

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"

	"pgregory.net/rapid"
)

// One explored sequence (a rapid test case): its actions are the
// contract's operations, each drawing a request from the contract and the
// sequence's model, sending it, judging the answer by every property and
// updating the model.

// exploreCase is one sequence.
type exploreCase struct {
	x     *explorer
	t     *rapid.T
	g     gen
	m     model
	steps []step
	// replays are the steps of the failure this case replays (the first
	// case of the shrinking): an answer of another class than the
	// original's makes the replay diverge (explorer.diverged).
	replays []step
	// focus, when set, is the resource kind the sequence works on, with
	// the kinds it needs: a sequence goes deep into one resource rather
	// than wide over all of them.
	focus map[*resourceKind]bool
	// rot is which operation's action stands first.
	rot int
}

// step is one action of a sequence as a report shows it.
type step struct {
	op string
	// xs are the exchanges of the step (a list walk has one per page).
	xs []*exchange.Exchange
}

// plan is what a request is expected to meet, known before it is sent.
type plan struct {
	// invalid names what the request breaks in the declared request
	// schema ("" for a valid request).
	invalid string
	// refuse says why the request must be refused ("" when it need not
	// be), prop is the property a success breaks and decision the
	// decision that says so ("" when the seed does).
	refuse, prop, decision string
	// mayRefuse: a state the sequence cannot see may refuse it (a run it
	// started, a value it already sent where a server may want one).
	mayRefuse bool
	foreign   bool
	target    *resource
	// sent are the body fields (JSON or form) as sent; scope is the value
	// of the field that places a new resource under a parent.
	sent  map[string]any
	scope string
}

func (c *exploreCase) actions() map[string]func(*rapid.T) {
	// rapid draws an action by its key among the sorted keys and leans to
	// the first ones; the keys are positions, and which operation stands
	// first turns from one sequence to the next (rot), so every operation
	// gets its sequences where it is drawn most.
	ops := c.x.cat.ops
	acts := map[string]func(*rapid.T){}
	for i := range ops {
		op := ops[(i+c.rot)%len(ops)]
		acts[fmt.Sprintf("%03d", i)] = func(t *rapid.T) { c.act(op) }
	}
	return acts
}

// act runs one operation. Once the budget is spent nothing more is sent
// (the action does nothing, so the sequence ends quietly).
func (c *exploreCase) act(op *exploreOp) {
	if why := c.infeasible(op); why != "" {
		c.t.Skip(why) // before any draw: rapid picks another action
	}
	if !c.x.spend() {
		if c.replays != nil {
			c.x.diverged = true // a replay with no requests left tests nothing
		}
		return
	}
	c.steps = append(c.steps, step{op: op.ID})
	switch op.role {
	case roleList:
		c.list(op)
	case roleGet, roleUpdate, roleDelete, roleChild:
		c.onItem(op)
	default:
		c.send(op, nil, plan{})
	}
}

// infeasible says why op cannot act yet in this sequence ("" when it can):
// an item operation needs an item of its kind (live or deleted) to aim at,
// a request that must name a parent needs a live one. Sequences so spend
// their steps on what the model makes possible, and stay short.
func (c *exploreCase) infeasible(op *exploreOp) string {
	has := func(k *resourceKind) bool { return len(c.m.live(k)) > 0 }
	if c.focus != nil && !c.inFocus(op) {
		return "outside the sequence's focus"
	}
	if b, ok := c.x.host.(Budgeted); ok && op.Cost != nil && !b.Affords(op.Operation) {
		return "over the run's budget"
	}
	if _, stopped := c.x.host.Client().Stopped(op.ID); stopped {
		return "the server stopped answering it"
	}
	switch op.role {
	case roleGet, roleUpdate, roleDelete, roleChild:
		if len(c.m.live(op.kind))+len(c.m.deleted(op.kind)) == 0 {
			return "no " + op.kind.param + " yet"
		}
	case roleList:
		if op.kind.scope != "" && !has(c.x.cat.byParam[op.kind.scope]) {
			return "no " + op.kind.scope + " yet"
		}
	}
	if op.body != nil {
		for _, name := range op.body.Required {
			if k := c.x.cat.byParam[name]; k != nil && k != op.kind && !has(k) {
				return "no " + name + " yet"
			}
		}
	}
	for _, p := range op.query {
		if k := c.x.cat.byParam[p.Name]; k != nil && p.Required && op.role != roleList && !has(k) {
			return "no " + p.Name + " yet"
		}
	}
	return ""
}

// inFocus reports whether op works on the sequence's focus.
func (c *exploreCase) inFocus(op *exploreOp) bool {
	if op.kind != nil {
		return c.focus[op.kind]
	}
	for _, k := range c.x.cat.namedBy(op) {
		if c.focus[k] {
			return true
		}
	}
	return false
}

// do sends r and records the exchange in the current step. The phase's
// deadline is checked before each request (spend), not during one: a
// request in flight then ends (within the client's timeout), so what it
// made is known and the clean-up removes it.
func (c *exploreCase) do(r client.Request) *exchange.Exchange {
	x := c.x.host.Client().Do(c.x.ctx, r)
	c.record(x)
	return x
}

func (c *exploreCase) record(x *exchange.Exchange) {
	s := &c.steps[len(c.steps)-1]
	s.xs = append(s.xs, x)
	c.x.requests++
	if i, j := len(c.steps)-1, len(s.xs)-1; c.replays != nil && i < len(c.replays) {
		// Another operation at this step, or another class of answer:
		// the replay left the original's path.
		if s.op != c.replays[i].op || j < len(c.replays[i].xs) && divergent(c.replays[i].xs[j].Status, x.Status) {
			c.x.diverged = true
		}
	}
	if !c.x.shrinking {
		c.x.tally(s.op, x.Status)
	}
}

// ---- the actions ----

// onItem acts on one item: get, update, delete, or a child operation.
func (c *exploreCase) onItem(op *exploreOp) {
	id, r, why := c.target(op.kind, op.role != roleGet && op.Method != "get")
	p := plan{target: r}
	switch why {
	case "deleted":
		decision := op.kind.gone
		c.expectRefusal(&p, "acts on a deleted "+op.kind.param, PropGone, decision)
	case "unknown":
		c.expectRefusal(&p, "acts on an id no "+op.kind.param+" has", PropGone, "")
	}
	if r != nil && !r.deleted && c.x.cfg.SecondAccount && c.g.chance(6, "foreign") {
		p.foreign = true
		c.expectRefusal(&p, "acts as another account on its "+op.kind.param, PropIsolation, "")
	}
	if r != nil && r.busy && (op.role == roleDelete || op.role == roleChild) {
		p.mayRefuse = true
	}
	c.send(op, &id, p)
}

// send builds, sends and judges one request, then updates the model.
func (c *exploreCase) send(op *exploreOp, id *string, p plan) {
	pathID := ""
	if id != nil {
		pathID = *id
	}
	if op.role == roleCreate && op.kind != nil {
		// A create that names resources of the other account.
		if c.x.cfg.SecondAccount && c.g.chance(8, "foreign.create") && op.body != nil {
			p.foreign = true
		}
	}
	r := c.build(op, pathID, &p)
	if p.foreign {
		r.Auth = client.AuthKey2
		if op.role == roleCreate && p.refuse == "" {
			if !c.namesLive(op, p.sent) {
				p.foreign = false
				r.Auth = client.AuthKey
			} else {
				c.expectRefusal(&p, "names the other account's resources", PropIsolation, "")
			}
		}
	}
	c.x.noteDuplicates(op, &p)
	if op.stream {
		c.stream(op, r, p)
		return
	}
	x := c.do(r)
	data := c.judge(op, x, p, nil, false)
	if x.Status/100 != 2 || p.foreign || p.invalid != "" {
		return
	}
	c.apply(op, x, p, data)
	if op.role == roleCreate || op.role == roleUpdate {
		c.readBack(op.kind, data.Get("id").ID(), p.target)
	}
}

// readBack reads a resource just written, by id and in its list, as part
// of the write's step: what was written is what is read.
func (c *exploreCase) readBack(k *resourceKind, id string, r *resource) {
	if r == nil {
		r = c.m.find(k, id)
	}
	if r == nil || r.deleted {
		return
	}
	get, list := c.x.cat.opOf(k, roleGet), c.x.cat.opOf(k, roleList)
	if get != nil && c.x.spend() {
		x := c.do(client.Request{Method: "GET", Path: strings.Replace(get.Path, "{"+k.param+"}", r.id, 1)})
		data := c.judge(get, x, plan{target: r}, nil, false)
		if x.Status/100 == 2 {
			c.compareStored(x, r, data, "a later read by id", false)
			c.observe(x, r, data, false)
		} else if x.Status == http.StatusTooManyRequests {
			// A 429 the client could not wait out (the phase's deadline
			// came first) leaves the property unjudged.
			c.x.limited++
		} else if x.Status/100 == 4 {
			c.x.violate(c, finding{prop: PropStored, x: x,
				what:   fmt.Sprintf("%s: a resource just written cannot be read", get.ID),
				detail: fmt.Sprintf("%s %s was written and then answered %d", k.param, r.id, x.Status),
				fs:     breaks(get.ID, "status", "readable", "a 2xx: the resource just written", strconv.Itoa(x.Status), "")})
		}
	}
	if list != nil && (get == nil || c.g.chance(2, "readback.list")) && c.x.spend() {
		base := url.Values{}
		if k.scope != "" {
			base.Set(k.scope, r.scope)
		}
		w := c.walk(list, base, c.pageSize(), false, plan{})
		if w.refused == nil {
			c.judgeList(list, w, r.scope, "", "", "")
		}
	}
}

// namesLive reports whether a body names a live resource of the model.
func (c *exploreCase) namesLive(op *exploreOp, body map[string]any) bool {
	for name, v := range body {
		if k := c.x.cat.byParam[name]; k != nil {
			if r := c.m.find(k, fmt.Sprint(v)); r != nil && !r.deleted {
				return true
			}
		}
	}
	return false
}

// apply updates the model after a success and judges what the answer
// shows of what was written.
func (c *exploreCase) apply(op *exploreOp, x *exchange.Exchange, p plan, data judge.J) {
	switch op.role {
	case roleCreate:
		id := data.Get("id").ID()
		if id == "" {
			return
		}
		r := &resource{kind: op.kind, id: id, scope: p.scope, stored: map[string]written{}}
		for name, v := range p.sent {
			if st := c.x.storageOf(op, name); st.field != "" && op.kind.schema != nil && op.kind.schema.Properties[st.field] != nil {
				r.stored[st.field] = written{value: v, decision: st.decision, by: op.ID}
			}
		}
		c.m.res = append(c.m.res, r)
		c.x.created(at(op.kind.collection, id))
		c.compareStored(x, r, data, "its create answer", true)
		c.observe(x, r, data, true)
	case roleUpdate:
		r := p.target
		if r == nil {
			return
		}
		for name, v := range p.sent {
			if st := c.x.storageOf(op, name); st.field != "" && op.kind.schema.Properties[st.field] != nil {
				r.stored[st.field] = written{value: v, decision: st.decision, by: op.ID}
			}
		}
		c.compareStored(x, r, data, "its update answer", false)
		c.observe(x, r, data, false)
	case roleGet:
		if p.target != nil {
			c.compareStored(x, p.target, data, "a later read by id", false)
			c.observe(x, p.target, data, false)
		}
	case roleDelete:
		if p.target != nil {
			p.target.deleted = true
			c.m.forgetUnder(p.target)
		}
	case roleChild:
		if p.target == nil {
			return
		}
		if op.Method != "get" {
			// An action (a run started, samples scored) may change the
			// resource: what was written is no longer expected.
			p.target.busy = true
			p.target.stored = map[string]written{}
		}
		if data.Get("id").ID() == p.target.id {
			c.observe(x, p.target, data, false)
		}
	case roleOther:
		// An echo: a field the request sent that the answer carries.
		if op.answer == nil {
			return
		}
		for name, v := range p.sent {
			st := c.x.storageOf(op, name)
			if st.field == "" || op.answer.Properties[st.field] == nil {
				continue
			}
			if got := data.Get(st.field); !sameValue(got, v) {
				c.x.violate(c, finding{prop: PropStored, x: x,
					what:   fmt.Sprintf("%s: $.data.%s differs from the %s sent", op.ID, st.field, name),
					detail: fmt.Sprintf("%s sent %s; its answer shows %s", name, show(v), got),
					fs:     breaks(op.ID, judge.Pointer("data", st.field), "stored", show(v), got.String(), st.decision)})
			}
		}
	}
}

// stream sends an inference-like request and reads its event stream for a
// bounded time once it has begun (the answer's headers wait as long as any
// answer): the phase explores values, it does not wait for whole answers.
// A stream cut short is judged by the events it had sent. Like do, it is
// not cut by the phase's deadline once sent; its headers are awaited at
// most exploreStreamWait.
func (c *exploreCase) stream(op *exploreOp, r client.Request, p plan) {
	ctx, cancel := context.WithTimeout(c.x.ctx, exploreStreamWait)
	defer cancel()
	resp, x := c.x.host.Client().Open(ctx, r)
	if resp == nil {
		c.record(x)
		c.judge(op, x, p, nil, false)
		return
	}
	defer resp.Body.Close()
	if judge.IsEventStream(resp.StatusCode, resp.Header) {
		stop := time.AfterFunc(exploreStreamRead, cancel)
		defer stop.Stop()
		s := judge.ReadStream(resp.Body, exploreStreamRead, cancel)
		c.x.host.Client().FinishStream(x, s, s.Err != nil)
		c.record(x)
		// A stream the phase stopped reading is judged by the events it
		// had sent: its end is unknown.
		c.judge(op, x, p, s, s.Err != nil)
		return
	}
	c.x.host.Client().FinishRead(x, resp)
	c.record(x)
	c.judge(op, x, p, nil, false)
}

// divergent reports whether a replayed answer's status is of another class
// than the original's. A 429 or no answer says nothing of the server's
// state (the rate limit, the network): never a divergence.
func divergent(original, replayed int) bool {
	if original == 0 || replayed == 0 || original == 429 || replayed == 429 {
		return false
	}
	return original/100 != replayed/100
}
