package drive

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"contractkit/conformance/refmodel"
	"contractkit/fixtures"
	"contractkit/spec"
)

// gen builds calls for the driver from what the model knows: each
// operation's call with an intent (a success, or one refusal it probes).

// intent is what a call probes, and the status it is sent to provoke.
type intent struct {
	name   string
	status int
}

var (
	success   = intent{"success", 200}
	badKey    = intent{"bad key", 401}
	deletedID = intent{"deleted id", 404}
	foreignID = intent{"the other account's id", 404}
	nearMiss  = intent{"near-miss id", 404}
	invalid   = intent{"invalid", 422}
	conflict  = intent{"conflict", 409}
	malformed = intent{"malformed JSON", 400}
	tooLarge  = intent{"too large", 413}
	intents   = []intent{success, badKey, deletedID, foreignID, nearMiss, invalid, conflict, malformed, tooLarge}
)

type gen struct {
	r   *rand.Rand
	m   *refmodel.Model
	n   int // makes texts unique
	key refmodel.Key
	// protected are the resources the accounts held before the run
	// ("model_id/3"): a call that changes or deletes a resource never aims
	// at one (reads and references may); writes are those operations.
	protected map[string]bool
	writes    map[string]bool
	// uploadLimit is the multipart size the server refuses past (0:
	// unknown, no upload too large is sent).
	uploadLimit int
	// turns counts the draws of each cycle.
	turns map[string]int
}

func (g *gen) chance(n int) bool { return g.r.IntN(n) == 0 }

// cycle returns the values of a field in turn: coverage first, every
// value the reference names reached whatever the seed.
func (g *gen) cycle(key string, values ...string) string {
	if g.turns == nil {
		g.turns = map[string]int{}
	}
	v := values[g.turns[key]%len(values)]
	g.turns[key]++
	return v
}

// text is a realistic name, unique by its number; sometimes in Czech or
// with spaces around it.
func (g *gen) text(what string) string {
	g.n++
	words := []string{"Support", "Warranty", "Podpora zákazníků", "Příručka", "Catalog", "Žluťoučký kůň", "Release notes", "FAQ", "Quality check"}
	s := fmt.Sprintf("%s %s %d", words[g.r.IntN(len(words))], what, g.n)
	if g.chance(6) {
		s = "  " + s + " "
	}
	return s
}

// pick returns a random resource of kind in the account of key that ok
// accepts.
func (g *gen) pick(kind string, key refmodel.Key, ok func(refmodel.Resource) bool) (refmodel.Resource, bool) {
	var pool []refmodel.Resource
	for _, r := range g.m.Resources(key) {
		if r.Kind == kind && (ok == nil || ok(r)) {
			pool = append(pool, r)
		}
	}
	if len(pool) == 0 {
		return refmodel.Resource{}, false
	}
	return pool[g.r.IntN(len(pool))], true
}

// mine narrows ok to the resources the run made (not protected).
func (g *gen) mine(ok func(refmodel.Resource) bool) func(refmodel.Resource) bool {
	return func(r refmodel.Resource) bool { return !g.protected[r.Kind+"/"+r.ID] && (ok == nil || ok(r)) }
}

func live(r refmodel.Resource) bool { return !r.Gone }

func gone(r refmodel.Resource) bool { return r.Gone }

func in(state string, states ...string) func(refmodel.Resource) bool {
	return func(r refmodel.Resource) bool {
		s := r.States["status"]
		if r.Gone || len(s) == 0 {
			return false
		}
		if state == "only" {
			return slices.Equal(s, states)
		}
		for _, x := range s {
			if slices.Contains(states, x) {
				return state == "some"
			}
		}
		return state == "none"
	}
}

func num(id string) json.Number { return json.Number(id) }

// file is a fixture file as a part.
func (g *gen) file(name string) refmodel.File {
	b, _ := fixtures.ReadFile(name) // embedded: TestFileSetsAreFixtures reads each
	return refmodel.File{Field: "files", Name: name[strings.LastIndex(name, "/")+1:], Content: b}
}

// fileSets are the uploads the driver cycles through: readable text,
// names given twice, and each kind of file a server refuses (D-16).
var fileSets = [][]string{
	{"employee-handbook.md"},
	{"release-notes.txt", "employee-handbook.md"},
	{"employee-handbook.md", "bad/empty.txt"},
	{"product-catalog.csv", "bad/binary.bin"},
	{"warranty-policy.pdf"},
	{"support-faq.jsonl", "pricing.json"},
	{"bad/malformed.json", "release-notes.txt"},
	{"employee-handbook.md", "employee-handbook.md"},
}

// files are the next upload's parts of op.
func (g *gen) files(op string) []refmodel.File {
	var out []refmodel.File
	set := fileSets[g.turns["files:"+op]%len(fileSets)]
	g.cycle("files:"+op, "")
	for _, name := range set {
		out = append(out, g.file(name))
	}
	return out
}

// other is the other account's key.
func other(k refmodel.Key) refmodel.Key { return 1 - k }

// call builds a call of op with intent for the account of g.key; false
// when the model knows nothing to aim it at.
func (g *gen) call(op string, in intent) (refmodel.Call, bool) {
	c, ok := g.success(op)
	// A body to break: an operation whose body is optional (the rename's
	// title may be in the query) is drawn again until it has one.
	for i := 0; ok && (in == malformed || in == tooLarge) && c.Body == nil && c.Form == nil && i < 8; i++ {
		c, ok = g.success(op)
	}
	if !ok {
		return c, false
	}
	switch in {
	case success:
		return c, true
	case badKey:
		c.Key = refmodel.KeyBad
		if g.chance(2) {
			c.Key = refmodel.KeyNone
		}
		return c, true
	case deletedID, foreignID, nearMiss:
		return g.retarget(c, in)
	case malformed:
		switch {
		case c.Form != nil:
			c.Form, c.Raw, c.ContentType = nil, []byte("--cut\r\nContent-Disposition: form-data; name=\"files\"\r\n\r\nno end"), "multipart/form-data; boundary=cut"
		case c.Body != nil:
			c.Body, c.Raw, c.ContentType = nil, []byte(`{"name": "unfinished`), "application/json"
		default:
			return c, false
		}
		return c, true
	case tooLarge:
		return g.large(c)
	case invalid:
		return g.invalid(c)
	case conflict:
		return g.conflict(op)
	}
	return c, false
}

// retarget aims a call at an id no live resource of the account has: a
// deleted one, the other account's, or one made from a real one.
func (g *gen) retarget(c refmodel.Call, in intent) (refmodel.Call, bool) {
	param := ""
	for p := range c.Path {
		param = p
	}
	body, _ := c.Body.(map[string]any)
	if param == "" {
		for _, k := range g.m.Kinds() {
			if _, ok := body[k]; ok {
				param = k
			}
			if c.Form != nil && c.Form.Fields[k] != nil {
				param = k
			}
		}
	}
	if param == "" {
		return c, false
	}
	var id string
	switch in {
	case deletedID:
		r, ok := g.pick(param, g.key, gone)
		if !ok {
			return c, false
		}
		id = r.ID
	case foreignID:
		r, ok := g.pick(param, other(g.key), live)
		if !ok {
			return c, false
		}
		id = r.ID
	case nearMiss:
		ids := g.nearFirst(param, g.m.NearMisses(param, g.key))
		if len(ids) == 0 {
			return c, false
		}
		id = ids[g.turns["near:"+c.Op]%min(len(ids), 4)]
		g.cycle("near:"+c.Op, "")
	}
	switch {
	case c.Path[param] != "":
		c.Path = map[string]string{param: id}
	case body != nil:
		nb := cloneMap(body)
		if _, isNum := body[param].(json.Number); isNum {
			if _, err := strconv.ParseInt(id, 10, 64); err != nil {
				return c, false
			}
			nb[param] = num(id)
		} else {
			nb[param] = id
		}
		c.Body = nb
	case c.Form != nil:
		f := *c.Form
		f.Fields = map[string][]string{}
		for k, v := range c.Form.Fields {
			f.Fields[k] = v
		}
		f.Fields[param] = []string{id}
		c.Form = &f
	}
	return c, true
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// large makes a call's body larger than the mock takes: a JSON body over
// the contract's JSON body bound (x-request-limits, D-15), a multipart body
// over its upload limit.
func (g *gen) large(c refmodel.Call) (refmodel.Call, bool) {
	switch {
	case c.Form != nil:
		if g.uploadLimit <= 0 {
			return c, false
		}
		f := *c.Form
		f.Files = append(slices.Clone(f.Files), refmodel.File{Field: "files", Name: "large.txt", Content: []byte(strings.Repeat("lorem ipsum ", g.uploadLimit/10))})
		c.Form = &f
	case c.Body != nil:
		b, ok := c.Body.(map[string]any)
		if !ok {
			return c, false
		}
		nb := cloneMap(b)
		nb["padding"] = strings.Repeat("x", int(spec.RequestLimits().JSONBodyBytes)+10)
		c.Body = nb
	default:
		return c, false
	}
	return c, true
}

// query builds a url.Values from pairs.
func query(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

// nearFirst orders near-miss ids so that those just above a live id of the
// account come first (a server that rounds an unknown id down meets one on
// each operation's first near miss), the rest in the model's order.
func (g *gen) nearFirst(kind string, ids []string) []string {
	live := map[string]bool{}
	for _, r := range g.m.Resources(g.key) {
		if r.Kind == kind && !r.Gone {
			live[r.ID] = true
		}
	}
	below := func(id string) int {
		if n, err := strconv.ParseInt(id, 10, 64); err == nil && live[strconv.FormatInt(n-1, 10)] {
			return 0
		}
		return 1
	}
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(a, b string) int { return below(a) - below(b) })
	return out
}
