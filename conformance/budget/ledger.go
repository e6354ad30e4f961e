package budget

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ErrSpent is wrapped by the error Take returns when a kind's cap is reached.
var ErrSpent = errors.New("budget spent")

// SpentError says which cap stopped a call; its text is the reason a
// skipped check gives.
type SpentError struct {
	Kind  Kind
	Limit int
	// Accepted are the ids the server made from requests meant to be
	// refused: set when a refusal is stopped because the server showed
	// it makes what it should refuse.
	Accepted []string
}

func (e *SpentError) Error() string {
	s := fmt.Sprintf("the budget for %s is spent (--budget %s=%d)", e.Kind, e.Kind, e.Limit)
	if e.Limit == 0 {
		s = fmt.Sprintf("the budget allows no %s (--budget %s=0)", e.Kind, e.Kind)
	}
	if len(e.Accepted) > 0 {
		s += fmt.Sprintf(", and the server made %s %s from a request meant to be refused: another could make one more",
			e.Kind, strings.Join(e.Accepted, " "))
	}
	return s
}

// Unwrap makes errors.Is(err, ErrSpent) true.
func (e *SpentError) Unwrap() error { return ErrSpent }

// Ledger is one run's account of its budget. It is safe for concurrent
// use: the written checks, the explore phase and the clean-up share it.
type Ledger struct {
	budget Budget

	mu     sync.Mutex // guards kinds and reused
	kinds  map[Kind]*tally
	reused map[Ref]bool
}

// Ref names one resource of the server.
type Ref struct {
	Kind Kind
	ID   string
}

// tally is what happened to one kind.
type tally struct {
	taken, refunded, denied int
	// lost counts calls that got no answer: they may have made something
	// the run cannot name, so they stay spent and are reported.
	lost      int
	created   []string // in order, unplanned ones included
	unplanned []string // made by a request meant to be refused
	started   []string
	removed   []string
	live      map[string]bool // created and not removed
}

// NewLedger returns an empty ledger for b.
func NewLedger(b Budget) *Ledger {
	return &Ledger{budget: b, kinds: map[Kind]*tally{}, reused: map[Ref]bool{}}
}

// Budget is the cap the ledger counts against.
func (l *Ledger) Budget() Budget { return l.budget }

func (l *Ledger) tally(k Kind) *tally {
	t := l.kinds[k]
	if t == nil {
		t = &tally{live: map[string]bool{}}
		l.kinds[k] = t
	}
	return t
}

// Take reserves one call of kind k before it is sent. It returns a
// *SpentError (wrapping ErrSpent) when the cap is reached: the caller skips
// the call, with the error's text as the reason. The ticket must then be
// settled by what the call did: Created, Started, Refund or Lost.
func (l *Ledger) Take(k Kind) (*Ticket, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.tally(k)
	if n, limited := l.budget.Limit(k); limited && t.taken >= n {
		t.denied++
		return nil, &SpentError{Kind: k, Limit: n}
	}
	t.taken++
	return &Ticket{l: l, kind: k}, nil
}

// Available reports whether a Take of kind k would succeed now (the
// explore phase draws a costly operation only then).
func (l *Ledger) Available(k Kind) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, limited := l.budget.Limit(k)
	return !limited || l.tally(k).taken < n
}

// Ticket is one reserved call. Its first settling counts; later ones do
// nothing, so a deferred Refund after a Created is harmless.
type Ticket struct {
	l       *Ledger
	kind    Kind
	settled bool // guarded by l.mu
}

// Kind is the kind the ticket reserved.
func (t *Ticket) Kind() Kind { return t.kind }

func (t *Ticket) settle(f func(*tally)) {
	if t == nil {
		return
	}
	t.l.mu.Lock()
	defer t.l.mu.Unlock()
	if t.settled {
		return
	}
	t.settled = true
	f(t.l.tally(t.kind))
}

// Created records that the call made a new resource with id (an effect
// `creates`): it is live until Removed, and left behind if never removed.
func (t *Ticket) Created(id string) {
	t.settle(func(ta *tally) { ta.create(id) })
}

// Started records that the call started work (an effect `starts`) on id,
// which may be "" (an inference names no resource).
func (t *Ticket) Started(id string) {
	t.settle(func(ta *tally) { ta.started = append(ta.started, id) })
}

// Refund returns the reservation: the call was answered and made nothing
// (refused with a 4xx, failed with a 5xx).
func (t *Ticket) Refund() {
	t.settle(func(ta *tally) { ta.taken--; ta.refunded++ })
}

// Lost records a call that got no answer (a deadline, a cut connection):
// the server may have made something the run cannot name, so the call
// stays spent and is reported as possibly left behind. A refund here would
// let a hanging server start a paid fine-tune per timeout.
func (t *Ticket) Lost() {
	t.settle(func(ta *tally) { ta.lost++ })
}

func (ta *tally) create(id string) {
	ta.created = append(ta.created, id)
	ta.live[id] = true
}

// Unplanned records a resource made by a request meant to be refused (a
// server that accepted an invalid create): it exists, so it is removed like
// any other and reported, and it spent what a planned one would (taken may
// pass the cap: the report shows the overspend).
func (l *Ledger) Unplanned(k Kind, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.tally(k)
	t.create(id)
	t.unplanned = append(t.unplanned, id)
	t.taken++
}

// refusal judges a request of kind k meant to be refused. It spends
// nothing, unless the server has already made something of k from such a
// request and the budget for k is spent: then one more could cost what
// the budget forbids (a server that accepts every invalid model create
// would start a fine-tune per refusal check), and it is stopped.
func (l *Ledger) refusal(k Kind) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.tally(k)
	if n, limited := l.budget.Limit(k); limited && len(t.unplanned) > 0 && t.taken >= n {
		t.denied++
		return &SpentError{Kind: k, Limit: n, Accepted: slices.Clone(t.unplanned)}
	}
	return nil
}

// Removed records that the resource is gone (deleted, or answered 404 by
// the clean-up). It reports whether the run had made it; a removal of
// anything else is not counted.
func (l *Ledger) Removed(k Kind, id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.tally(k)
	if !t.live[id] {
		return false
	}
	delete(t.live, id)
	t.removed = append(t.removed, id)
	return true
}

// Reuse declares a resource the account already had and the run uses
// without owning it (--reuse-model: the model and its dataset). Admit
// refuses every write to it, and it is never reported as left behind.
func (l *Ledger) Reuse(k Kind, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reused[Ref{k, id}] = true
}

// Reused reports whether the resource was declared with Reuse.
func (l *Ledger) Reused(k Kind, id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reused[Ref{k, id}]
}

// Leftover is what the run made and did not remove: a resource (ID set) or
// a call that got no answer and may have made one (Lost, ID "").
type Leftover struct {
	Ref
	Lost bool
}

func (o Leftover) String() string {
	if o.Lost {
		return fmt.Sprintf("%s: unknown (a call that got no answer may have made one)", o.Kind)
	}
	return fmt.Sprintf("%s %s", o.Kind, o.ID)
}

// Left lists what the run left behind, by kind in spec.CostKinds order,
// ids in the order they were made.
func (l *Ledger) Left() []Leftover {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Leftover
	for _, k := range kindsInOrder() {
		t := l.kinds[k]
		if t == nil {
			continue
		}
		for _, id := range t.leftIDs(k, l.reused) {
			out = append(out, Leftover{Ref: Ref{k, id}})
		}
		for range t.lost {
			out = append(out, Leftover{Ref: Ref{Kind: k}, Lost: true})
		}
	}
	return out
}

// leftIDs are the live ids in creation order, without the reused ones (a
// server that answered a create with an id the account already had).
func (t *tally) leftIDs(k Kind, reused map[Ref]bool) []string {
	var out []string
	for _, id := range t.created {
		if t.live[id] && !reused[Ref{k, id}] && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
