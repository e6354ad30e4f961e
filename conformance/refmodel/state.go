package refmodel

import (
	"sort"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// Key says which credentials a call carries.
type Key int

const (
	// KeyA and KeyB are the two accounts' keys.
	KeyA Key = iota
	KeyB
	// KeyBad is a key no account has: a real one with a character changed.
	KeyBad
	// KeyNone is a call without credentials.
	KeyNone
)

// account reports whether the key is one of the two accounts'.
func (k Key) account() bool { return k == KeyA || k == KeyB }

// Config says what the model may assume of the server it follows.
type Config struct {
	// Frozen: the server's clock moves only when Advance is called (a test
	// that drives a fake clock). Otherwise any state may have moved along
	// its clock moves between two calls, and a verdict that rests on a
	// state not moving is reported as Timing, to be confirmed by replay.
	Frozen bool
	// Closed: the accounts hold nothing the model has not seen created (a
	// fresh server). Otherwise what a list first shows is adopted, and a
	// scope is known whole once a list of it was walked to its end.
	Closed bool
	// Doc is the contract (spec.Strict() when nil).
	Doc *openapi3.T
}

// Model is the expected state of both accounts of one server.
type Model struct {
	cfg   Config
	cat   *catalog
	accts [2]*account
	// ids are every id seen, per kind, in either account: a new one must
	// not be among them.
	ids map[*kind]map[string]bool
	// accepted are the request values a success answered, per operation
	// and field: a later refusal of the same values is not a limit.
	accepted map[string]*accepted
	// took are the operations the server answered with a success.
	took map[string]bool
	// spelt are the requests (twinKey) the server answered as predicted,
	// with the spellings it was answered so in (encodingOf; D-49).
	spelt map[[32]byte]map[string]bool
	// honoured are the list filters (operation and parameter) the server
	// was seen to apply.
	honoured map[string]bool
	// echoed are the values of a parameter (operation and location) the
	// server was seen to echo as sent.
	echoed map[string]map[string]bool
	walks  map[walkKey]*walk
	// strict and declared validate requests (spec views).
	strict, declared *spec.Contract
	// seedDefaults are the defaults the reference states, by the create
	// that shows them and their pointer ("createModel /data/description").
	seedDefaults map[string]spec.Fact
}

// New returns a model of an empty or unknown server, as cfg says.
func New(cfg Config) *Model {
	doc := cfg.Doc
	if doc == nil {
		doc = spec.Strict().Kin
	}
	m := &Model{cfg: cfg, cat: newCatalog(doc), ids: map[*kind]map[string]bool{}, accepted: map[string]*accepted{}, took: map[string]bool{}, honoured: map[string]bool{}, echoed: map[string]map[string]bool{},
		walks: map[walkKey]*walk{}, strict: spec.Strict(), declared: spec.Declared(), seedDefaults: map[string]spec.Fact{}}
	for _, f := range m.declared.Facts() {
		if f.Kind == spec.FactDefault {
			m.seedDefaults[f.Op+" "+f.Pointer] = f
		}
	}
	for i := range m.accts {
		m.accts[i] = &account{idx: i, byID: map[*kind]map[string]*record{}, scopes: map[scopeKey]*scope{}}
	}
	return m
}

// account is one key's resources.
type account struct {
	idx     int
	records []*record // in creation order (adopted ones first)
	byID    map[*kind]map[string]*record
	scopes  map[scopeKey]*scope
	seq     int
	adopted int
}

// scopeKey names one list: a kind's records under one parent ("" none).
type scopeKey struct {
	kind   *kind
	parent string
}

// scope is what the model knows of one list.
type scope struct {
	// whole: every record of the scope is known to the model.
	whole bool
	// phantoms are creates whose answer was lost: each may have made a
	// record the model has not seen.
	phantoms int
	// maybeNames are values of unique fields such creates sent.
	maybeNames []string
}

// gone says whether a record was deleted.
type gone int

const (
	live    gone = iota
	deleted      // a delete succeeded (or a delete of its parent)
	soft         // soft-deleted: kept for what refers to it, gone to its API
	maybe        // a delete's answer was lost
)

// record is one resource the model knows.
type record struct {
	kind   *kind
	acct   int
	id     string
	seq    int
	parent string
	// stored are the fields requests wrote, and those read once when the
	// model did not see them written (an adopted record).
	stored map[string]fact
	// facts are values the server chose, remembered by where they stand
	// in the record ("metrics/loss").
	facts map[string]fact
	// states are the states each machine field may be in, as last seen
	// or set by an action.
	states map[string]stateSet
	// fresh: created by the call being judged; its state must be initial.
	fresh bool
	gone  gone
	// goneBasis is what its being gone rests on (D-07 for a soft delete,
	// D-32 for a cascade).
	goneBasis basis
	// epoch counts the writes and effects that may change what the server
	// computes for it: a remembered value holds within one epoch.
	epoch   int
	colls   map[string]*collection
	adopted bool
	// sent are the values the create sent, by request field (what a
	// split rule reads).
	sent map[string]any
	// learn: stored fields not written are learned from the next answer
	// (the record was adopted, or a write to it went unanswered); learnOne
	// names single fields an action released (run-ragas's question_count).
	learn    bool
	learnOne map[string]bool
	// scored are the questions of the last run-ragas that scored samples,
	// nil when unknown.
	scored []string
	// hasScored says scored is known.
	hasScored bool
}

// fact is one known value.
type fact struct {
	value any
	basis basis
	// by is the operation that wrote it, "" when it was read.
	by string
	// sig is the record's state and epoch when it was read.
	sig string
}

// collection is a record's list of items (a conversation's messages, a
// dataset's files).
type collection struct {
	// whole: items are every item. Otherwise items are those added since
	// base was seen.
	whole bool
	items []*item
	// base holds what was read of the collection while its items were not
	// known ("count", "sum:size"); a nil entry is not known yet.
	base map[string]float64
}

// item is one entry of a collection.
type item struct {
	// fields are what the request that added it said (role, content, name,
	// size); facts what the server chose (id, created_at, rows).
	fields map[string]any
	facts  map[string]fact
}

func newCollection(whole bool) *collection {
	return &collection{whole: whole, base: map[string]float64{}}
}

func (a *account) add(r *record) {
	if a.byID[r.kind] == nil {
		a.byID[r.kind] = map[string]*record{}
	}
	a.byID[r.kind][r.id] = r
	a.records = append(a.records, r)
}

// find returns the record of kind with id in the account, or nil.
func (a *account) find(k *kind, id string) *record { return a.byID[k][id] }

// scope returns the scope of kind under parent, made on first use: whole
// when the world is closed.
func (m *Model) scope(a *account, k *kind, parent string) *scope {
	key := scopeKey{k, parent}
	s := a.scopes[key]
	if s == nil {
		s = &scope{whole: m.cfg.Closed}
		a.scopes[key] = s
	}
	return s
}

// live lists the live records of kind under parent, in creation order.
func (a *account) live(k *kind, parent string) []*record {
	var out []*record
	for _, r := range a.records {
		if r.kind == k && r.gone == live && (k.scope == "" || r.parent == parent) {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// newRecord makes a record of kind in account a.
func (m *Model) newRecord(a *account, k *kind, id string) *record {
	r := &record{kind: k, acct: a.idx, id: id, stored: map[string]fact{}, facts: map[string]fact{},
		states: map[string]stateSet{}, colls: map[string]*collection{}, sent: map[string]any{}, learnOne: map[string]bool{}}
	for _, c := range k.colls {
		r.colls[c] = newCollection(true)
	}
	m.sawID(k, id)
	return r
}

// sawID notes an id of kind as taken.
func (m *Model) sawID(k *kind, id string) {
	if m.ids[k] == nil {
		m.ids[k] = map[string]bool{}
	}
	m.ids[k][id] = true
}

// holder returns the account and record that hold id of kind, searching
// both accounts.
func (m *Model) holder(k *kind, id string) (*account, *record) {
	for _, a := range m.accts {
		if r := a.find(k, id); r != nil {
			return a, r
		}
	}
	return nil, nil
}

// possible is the set of states a record's field may be in now: what was
// last known, and what the server's clock may have moved it to since.
func (m *Model) possible(r *record, field string) stateSet {
	known := r.states[field]
	if known == nil || m.cfg.Frozen {
		return known
	}
	return reach(known, r.kind.machines[field].clock)
}

// Advance tells a frozen model that the server's clock has moved: every
// state may have moved along its clock moves.
func (m *Model) Advance() {
	for _, a := range m.accts {
		for _, r := range a.records {
			for field, set := range r.states {
				r.states[field] = reach(set, r.kind.machines[field].clock)
			}
		}
	}
}
