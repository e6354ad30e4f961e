// Package explore is the conformance suite's explore phase: after the
// written checks, it generates requests and sequences of requests from the
// contract, within a budget, and judges every answer by properties that
// hold for every operation — with the one judge (package judge) and the
// expected state of the sequence. rapid draws the sequences (state
// machines, shrinking) and gofakeit realistic values; it links no Ginkgo:
// the suite's Explore area runs it (Run) behind a small Host and renders
// its Result.
package explore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"
)

// The explore phase: after the written checks, the suite generates requests
// and sequences of requests from the contract, within a budget, and judges
// every answer by properties that hold for every operation. rapid draws the
// sequences (pgregory.net/rapid: state machines, shrinking); a sequence that
// breaks a property is shrunk to a minimal one and reported like any check,
// one curl line per step. The same --seed draws the same requests again.

// The properties' ids, each a check of the Explore area.
const (
	// PropNo5xx: no 5xx to a request the contract accepts.
	PropNo5xx = "no-5xx"
	// PropInvalid: a request the declared contract refuses is refused.
	PropInvalid = "invalid-refused"
	// PropDocumented: every answer is the envelope, a documented status
	// and the declared schema.
	PropDocumented = "documented"
	// PropStored: what was written is read back.
	PropStored = "stored"
	// PropLists: lists hold every resource once, and only their own.
	PropLists = "lists"
	// PropGone: what was deleted (or never was) is refused.
	PropGone = "gone"
	// PropIsolation: accounts are kept apart (needs a second account).
	PropIsolation = "isolation"
	// PropStates: states move along the contract's transitions.
	PropStates = "states"
)

// property is one property of the phase and its check.
type property struct {
	id, behaviour string
	// clauses are the seed clauses it tests; roles adds the clauses of the
	// operations whose role it judges (see exploreClauses).
	clauses []string
	roles   []opRole
}

var properties = []property{
	{PropNo5xx, "MUST NOT answer a request the contract accepts with a 5xx, whatever its values: text in every script, lengths at their bounds, extreme numbers and ids, optional fields absent or present",
		[]string{"4", "1.1", "7.2"}, nil},
	{PropInvalid, "MUST refuse a request that breaks the declared request schema with a 4xx error envelope, never a 2xx or a 5xx",
		[]string{"4", "1.2", "7.1", "8.1"}, nil},
	{PropDocumented, "MUST answer every explored request with the envelope, a documented status and the declared schema",
		[]string{"1.1", "1.2", "1.3", "2", "4.4.2"}, nil},
	{PropStored, "MUST show each field a create, update or rename sent with the value sent: in its answer, in a later read by id and in its list entry",
		[]string{"2"}, []opRole{roleCreate, roleUpdate}},
	{PropLists, "MUST list every resource it holds, each once, and in a list for one parent or filter only the items of that parent or filter (every page walked)",
		[]string{"3.1.2"}, []opRole{roleList}},
	{PropGone, "MUST refuse (404) what was deleted or never existed: by id, for its children and as a reference, and list it no more",
		[]string{"1.2"}, []opRole{roleDelete, roleGet}},
	{PropIsolation, "MUST keep accounts apart: what one key created is neither visible nor changeable with the other",
		[]string{"4.1.1", "5.1"}, nil},
	{PropStates, "MUST create a resource in its initial state and SHOULD move it only along the contract's transitions",
		[]string{"3.1", "3.2", "2.8"}, nil},
}

// exploreTime bounds the phase: it stops there whatever its budget (a slow
// server gets fewer requests, never a longer run), shrinking included.
const exploreTime = 40 * time.Second

// DefaultBudget is the default request budget of the phase.
const DefaultBudget = 1000

// finding is one property broken once.
type finding struct {
	prop string
	// what is the same text each time the same thing breaks (no ids), so
	// a sequence can be shrunk while it still breaks it; detail has the
	// values and ids (the findings' lines when empty).
	what, detail string
	// fs are the breaks as values: the one judge's findings, or the
	// sequence's own (a value stored, a list, a state), each Decided with
	// its decision when a decision, not the seed, states the rule.
	fs judge.Findings
	x  *exchange.Exchange
}

// decision is "" when the seed states the rule broken, else the decision
// that states it.
func (f finding) decision() string {
	for _, v := range f.fs {
		if v.Class == judge.Decided {
			if v.Decision == "" {
				return "the contract as written"
			}
			return v.Decision
		}
	}
	return ""
}

// same reports whether g is the same break as f: the same text, and
// findings with the same keys (judge.Finding.Key: everything but the
// values seen).
func (f finding) same(g finding) bool {
	if f.what != g.what || len(f.fs) != len(g.fs) {
		return false
	}
	for i := range f.fs {
		if f.fs[i].Key() != g.fs[i].Key() {
			return false
		}
	}
	return true
}

// explain is the finding's detail: its own sentence, or its findings.
func (f finding) explain() string {
	if f.detail != "" {
		return f.detail
	}
	return strings.Join(f.fs.Lines(), "; ")
}

// failure is a finding with the sequence that shows it.
type failure struct {
	finding
	steps []step
	// shrunk: the sequence is the minimal one rapid found; reproduced:
	// replaying it broke the property again; diverged: the replay met
	// other answers than the original before it could (explorer.diverged).
	shrunk, reproduced, diverged bool
}

// outcome is what the phase found for one property.
type outcome struct {
	// failure is the first declared break (decided ones too under
	// --strict), with its minimal sequence.
	failure *failure
	// also counts the further breaks seen after it, first ones kept.
	also    []finding
	alsoN   int
	decided map[string][]finding
}

// explorer runs the phase once.
type explorer struct {
	host Host
	// diverged: the replay of a failure met an answer of another class
	// than the original at the same step (a unique name the first run
	// took, a state that moved): it could not test the break again, so
	// the break is not called unconfirmed.
	diverged bool
	// judge is the one judge, the client's (properties.go).
	judge *judge.Judge
	cfg   Config
	cat   *catalog
	ctx   context.Context
	// seed draws the sequences; budget bounds the requests spent
	// exploring (spent); shrinking is bounded by time (shrinkSpent counts
	// its requests) and deadline ends the phase.
	seed          uint64
	budget, spent int
	shrinkSpent   int
	shrinking     bool
	deadline      time.Time
	// shrinkTime is the round's shrinking allowance, shrinkUntil the end
	// of the shrinking under way (callDeadline).
	shrinkTime  time.Duration
	shrinkUntil time.Time
	// requests and cases count what was sent, and in how many sequences;
	// limited the answers rate-limited past the client's waits, on which
	// no property was judged.
	requests, cases, limited int
	outcomes                 map[string]*outcome
	// hunted are the properties already found: their breaks no longer
	// end a sequence.
	hunted map[string]bool
	// recent are the fatal failures of the current round, newest last.
	recent   []failure
	toRemove []string
	refused  map[string]*refusedNote
	// sent are the texts sent per resource and field (noteDuplicates).
	sent map[string]map[string]bool
	// shared are the written checks' resources every sequence starts with.
	shared []*resource
	// stopped says why the phase ended early ("" when it did not).
	stopped string
	// uniq numbers the texts distinguish makes unique.
	uniq int
	// answers counts the explored answers by operation and status.
	answers map[string]map[int]int
}

// refusedNote counts the refusals of valid requests of one operation and
// status: a server may have limits the seed does not show.
type refusedNote struct {
	n int
	x *exchange.Exchange
}

func newExplorer(ctx context.Context, host Host, cfg Config) *explorer {
	x := &explorer{host: host, cfg: cfg, ctx: ctx, cat: newCatalog(spec.Strict(), spec.Declared()), seed: cfg.Seed, budget: cfg.Budget,
		outcomes: map[string]*outcome{}, hunted: map[string]bool{}, refused: map[string]*refusedNote{}, sent: map[string]map[string]bool{}}
	for _, p := range properties {
		x.outcomes[p.id] = &outcome{decided: map[string][]finding{}}
	}
	phase := exploreTime
	if cfg.Time > 0 {
		phase = cfg.Time
	}
	x.deadline = time.Now().Add(phase)
	if x.judge = host.Client().Judge(); x.judge == nil {
		x.judge = judge.New(spec.Strict(), spec.Declared())
	}
	return x
}

// spend takes one request from the budget; false once it is spent or the
// deadline has passed.
func (x *explorer) spend() bool {
	// While rapid replays and shrinks a failure, its own allowance
	// bounds it (callDeadline): a failure met near the phase's deadline
	// is still replayed, so a break that does not happen again is
	// reported unconfirmed rather than failing untested.
	if time.Now().After(x.callDeadline()) {
		x.stopped = "the phase's deadline passed"
		return false
	}
	if x.shrinking {
		// Shrinking is bounded by time (rapid.shrinktime), not by
		// requests: a replay cut short would not fail as it did.
		x.shrinkSpent++
		return true
	}
	if x.spent >= x.budget {
		return false
	}
	x.spent++
	return true
}

// over reports whether the phase's time is up (its deadline passed or the
// run was interrupted): a request cut then says nothing of the server.
func (x *explorer) over() bool {
	return x.ctx.Err() != nil || !time.Now().Before(x.callDeadline())
}

// callDeadline bounds a request of the phase: the phase's deadline, or,
// while rapid replays and shrinks a failure, the shrinking's own (a
// failure found near the deadline is replayed in its own time, not cut
// short by a deadline already passed).
func (x *explorer) callDeadline() time.Time {
	if x.shrinking && x.shrinkUntil.After(x.deadline) {
		return x.shrinkUntil
	}
	return x.deadline
}

// created registers the removal of a resource the phase made.
func (x *explorer) created(p string) {
	if !x.cfg.Keep {
		x.toRemove = append(x.toRemove, p)
	}
}

// violate records f. A break not yet hunted down is fatal to the sequence
// (rapid then shrinks it); others are kept as counts and examples.
func (x *explorer) violate(c *exploreCase, f finding) {
	o := x.outcomes[f.prop]
	decision := f.decision()
	fatal := (decision == "" || x.cfg.Strict) && !x.hunted[f.prop]
	if !fatal {
		if decision != "" && !x.cfg.Strict {
			// The same break seen again (its findings' keys: the values
			// aside) is no new example.
			if len(o.decided[decision]) < 3 && !slices.ContainsFunc(o.decided[decision], f.same) {
				o.decided[decision] = append(o.decided[decision], f)
			}
			return
		}
		if !x.shrinking {
			o.alsoN++
			if len(o.also) < 3 && !slices.ContainsFunc(o.also, f.same) {
				o.also = append(o.also, f)
			}
		}
		return
	}
	steps := append([]step(nil), c.steps...)
	x.recent = append(x.recent, failure{finding: f, steps: steps})
	c.t.Fatalf("%s: %s", f.prop, f.what)
}

// shown reports whether the break is one an answer shows by itself, the
// one judge's: the envelope, the schema, a stream's rules, a request the
// contract refuses served. A replay is no test of those.
func (f failure) shown() bool {
	return f.prop == PropDocumented || len(f.fs.Rule(judge.RuleServedInvalid)) > 0
}

// tally counts the answers of an operation by status.
func (x *explorer) tally(op string, status int) {
	if x.answers == nil {
		x.answers = map[string]map[int]int{}
	}
	if x.answers[op] == nil {
		x.answers[op] = map[int]int{}
	}
	x.answers[op][status]++
}

// refusedValid notes a valid request refused with a 4xx.
func (x *explorer) refusedValid(op *exploreOp, ex *exchange.Exchange) {
	if x.shrinking {
		return
	}
	key := fmt.Sprintf("%s → %d", op.ID, ex.Status)
	if n := x.refused[key]; n != nil {
		n.n++
		return
	}
	x.refused[key] = &refusedNote{n: 1, x: ex}
}

// noteDuplicates marks a create or update that sends a text value it sent
// before for the same field: a server may want it unique (the evaluation
// names of D-19), so a refusal is no news.
func (x *explorer) noteDuplicates(op *exploreOp, p *plan) {
	if op.role != roleCreate && op.role != roleUpdate {
		return
	}
	for name, v := range p.sent {
		s, ok := v.(string)
		if !ok {
			continue
		}
		key := op.kindKey() + "." + name
		if x.sent[key] == nil {
			x.sent[key] = map[string]bool{}
		}
		n := strings.ToLower(normText(s))
		if x.sent[key][n] {
			p.mayRefuse = true
		}
		x.sent[key][n] = true
	}
}

// distinguish makes the free text a create or update sends differ from
// every text the phase sent before, by a number at its end: a server may
// want names unique (D-19), and a sequence replayed to shrink it must not
// meet the names of the attempts before it. A one-character text becomes
// another single letter.
func (x *explorer) distinguish(s *openapi3.Schema, body map[string]any) {
	for _, name := range slices.Sorted(maps.Keys(body)) {
		v, ok := body[name].(string)
		prop := s.Properties[name]
		if !ok || prop == nil || prop.Value == nil || x.cat.byParam[name] != nil {
			continue
		}
		p := flatten(prop.Value)
		if len(p.Enum) > 0 || p.Format != "" || storageOf(name, prop.Value).field == "" {
			continue
		}
		x.uniq++
		tag := " " + strconv.Itoa(x.uniq)
		n := utf8.RuneCountInString(v)
		if n <= 1 {
			// At the shortest: another single letter (a CJK ideograph).
			body[name] = string(rune(0x4E00 + x.uniq%20000))
			continue
		}
		hi := n + len(tag)
		if p.MaxLength != nil {
			hi = min(hi, int(*p.MaxLength))
		}
		r := []rune(v)
		keep := max(0, hi-len(tag))
		if keep > len(r) {
			keep = len(r)
		}
		body[name] = strings.TrimSpace(string(r[:keep])) + tag
	}
}

// kindKey groups the operations writing the same resource.
func (op *exploreOp) kindKey() string {
	if op.kind != nil {
		return op.kind.collection
	}
	return op.ID
}

// storageOf is where op keeps the request field name.
func (x *explorer) storageOf(op *exploreOp, name string) storage {
	if op.body == nil || op.body.Properties[name] == nil || op.body.Properties[name].Value == nil {
		return storage{}
	}
	return storageOf(name, op.body.Properties[name].Value)
}

// maxPageSize is the largest page the contract lets a list ask for.
func (x *explorer) maxPageSize(op *exploreOp, param string) int {
	for _, p := range op.query {
		if p.Name == param && p.Schema != nil && p.Schema.Value != nil && p.Schema.Value.Max != nil {
			return int(*p.Schema.Value.Max)
		}
	}
	return 100
}

// pagingDecision is the decision that names a list's paging parameters.
func (x *explorer) pagingDecision(op *exploreOp) string {
	for _, p := range op.query {
		if op.paging[p.Name] == "" {
			continue
		}
		if d, _ := spec.Mark(p.Extensions); d.Row != "" {
			return d.Row
		}
		if p.Schema != nil && p.Schema.Value != nil {
			if d, _ := spec.Mark(p.Schema.Value.Extensions); d.Row != "" {
				return d.Row
			}
		}
	}
	return ""
}
