package drive

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
	"contractkit/fixtures"
)

// gen builds calls for the driver from the contract's catalog (package
// inputs) and from what the model knows.
type gen struct {
	r   *rand.Rand
	m   *refmodel.Model
	cat *inputs.Catalog
	n   int // makes texts unique
	key refmodel.Key
	// protected are the resources the accounts held before the run
	// ("model_id/3"): a call that changes or deletes a resource never aims
	// at one (reads and references may).
	protected map[string]bool
	// kept are the run's resources its later passes read from and never
	// change or delete ("model_id/15"): the trained models of the tour and
	// their datasets, whose answers quote the files they hold.
	kept map[string]bool
	// uploadLimit is the multipart size the server refuses past (0:
	// unknown, no upload too large is sent).
	uploadLimit int
	// turns counts the draws of each cycle.
	turns map[string]int
	// first is each operation's first call the server answered with a
	// success: the values a minimal call reuses.
	first map[string]refmodel.Call
	// frozen: the server's clock moves only when the driver moves it.
	frozen bool
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

// mine narrows ok to the resources the run made (not protected) that it
// may change (not kept).
func (g *gen) mine(ok func(refmodel.Resource) bool) func(refmodel.Resource) bool {
	return func(r refmodel.Resource) bool {
		return !g.protected[r.Kind+"/"+r.ID] && !g.kept[r.Kind+"/"+r.ID] && (ok == nil || ok(r))
	}
}

func live(r refmodel.Resource) bool { return !r.Gone }

func gone(r refmodel.Resource) bool { return r.Gone }

func num(id string) json.Number { return json.Number(id) }

// file is a fixture file as a part of the form field.
func (g *gen) file(name, field string) refmodel.File {
	b, _ := fixtures.ReadFile(name) // embedded: TestFileSetsAreFixtures reads each
	return refmodel.File{Field: field, Name: name[strings.LastIndex(name, "/")+1:], Content: b}
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

// other is the other account's key.
func other(k refmodel.Key) refmodel.Key { return 1 - k }

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
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
