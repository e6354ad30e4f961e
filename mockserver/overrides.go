package mockserver

import (
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
)

// Overrides let an end-to-end test steer the mock from outside the app under
// test: "the next GET of model 7 answers 503", set with POST
// /admin/overrides (overrideadmin.go), checked against the contract when set
// (overridedef.go). They belong to the account of the key that set them and
// act on that account's /api/v1 requests only. They live in memory: a reset
// clears them and the state file (--state) never holds them, so no test's
// steering outlives it.
//
// Order: the account's overrides are tried oldest first and the first one
// that matches and still has a use left answers; the others are left as
// they are. An override is for the app under test: the console's own calls
// (its refreshes and polls, marked X-Mock-Console) neither match nor spend
// one unless it says match.console. A rule's uses are taken with a compare-and-swap, so N
// concurrent requests against a rule set for `times: k` see exactly
// min(N, k) overridden answers.

// maxOverrides bounds the overrides of one account.
const maxOverrides = 100

// overrideSet is the zero-value-ready store of every account's overrides.
type overrideSet struct {
	mu       sync.RWMutex
	accounts map[string]*accountOverrides
	// rules counts the rules of every account (spent ones until pruned), so
	// that requests pay no lock while no test has set any.
	rules atomic.Int64
}

type accountOverrides struct {
	seq   int64
	rules []*overrideRule // oldest first: the order they are tried in
}

// overrideRule is one override as set, resolved against the contract.
type overrideRule struct {
	ID        int64           `json:"id"`
	Operation string          `json:"operation"` // the operationId the path and method resolved to
	Match     overrideMatch   `json:"match"`
	Respond   overrideRespond `json:"respond"`
	Times     *int64          `json:"times"`     // as set; null: until removed
	Remaining *int64          `json:"remaining"` // uses left when listed; null: until removed
	// Documented tells whether the operation documents the status this
	// rule answers with: false for, say, a 503 the contract does not list.
	Documented bool `json:"documented"`
	// Used counts the uses taken so far; the journal entry of the call
	// that took one says which (journalOverride.Use).
	Used int64 `json:"used"`

	params map[string]string // the concrete path's parameters; nil: any request of the operation
	kind   string            // one of the override kinds: the answer it gives
	delay  delaySpec         // a wait before the answer (zero: none)
	pace   delaySpec         // the pause between streamed tokens (zero: the server's)
	left   atomic.Int64      // uses left; -1: until removed
	used   atomic.Int64      // uses taken
}

type overrideMatch struct {
	Method string            `json:"method"`
	Path   string            `json:"path"`
	Query  map[string]string `json:"query,omitempty"`
	Body   map[string]any    `json:"body,omitempty"`
	// Headers the request must carry with these values (canonical names):
	// the app's Origin limits an override to the app's page.
	Headers map[string]string `json:"headers,omitempty"`
	// Console lets the console's own calls (X-Mock-Console) match too.
	Console bool `json:"console,omitempty"`
}

type overrideRespond struct {
	Status    int             `json:"status,omitempty"`
	Message   string          `json:"message,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Unchecked bool            `json:"unchecked,omitempty"`
	Example   string          `json:"example,omitempty"`
	// Delay waits before the answer: alone, or before a status, data, an
	// example or a stream fault.
	// Delay and TokenInterval are kept as sent ("2s", "100ms..900ms" or
	// {"min": ..., "max": ...}), to be shown back so.
	Delay       json.RawMessage `json:"delay,omitempty"`
	StreamFault string          `json:"stream_fault,omitempty"`
	// TokenInterval paces this stream's tokens, in place of --token-interval.
	TokenInterval json.RawMessage `json:"token_interval,omitempty"`
}

// The kinds of answer an override gives.
const (
	kindStatus  = "status"       // the error envelope with a chosen status
	kindData    = "data"         // a literal success answer
	kindExample = "example"      // a named example of the operation's 200 answer
	kindDelay   = "delay"        // a pause, then the usual answer
	kindFault   = "stream_fault" // the usual stream, broken as X-Mock-Stream-Fault would
	kindPace    = "pace"         // the usual stream, at a pace of its own
)

// take uses the rule once, if it has a use left, and returns the number of
// that use (1 for the first), or 0.
func (o *overrideRule) take() int64 {
	for {
		n := o.left.Load()
		switch {
		case n < 0:
			return o.used.Add(1)
		case n == 0:
			return 0
		case o.left.CompareAndSwap(n, n-1):
			return o.used.Add(1)
		}
	}
}

// view is the rule as the admin API shows it, with its uses left now.
func (o *overrideRule) view() *overrideRule {
	v := &overrideRule{
		ID: o.ID, Operation: o.Operation, Match: o.Match, Respond: o.Respond,
		Times: o.Times, Documented: o.Documented, Used: o.used.Load(),
	}
	if n := o.left.Load(); n >= 0 {
		v.Remaining = &n
	}
	return v
}

// overrideCall is what a rule matches a routed, validated request on:
// its operation and path parameters, its query, its headers, its JSON body
// as validated (nil without one, decoded once, when a rule asks), and
// whether the console sent it by itself.
type overrideCall struct {
	operation string
	params    map[string]string
	query     func(string) (string, bool)
	header    func(string) []string
	body      func() map[string]any
	console   bool
}

// matches reports whether a request is one the rule is for.
func (o *overrideRule) matches(c *overrideCall) bool {
	if o.Operation != c.operation || (c.console && !o.Match.Console) {
		return false
	}
	for k, v := range o.Match.Headers {
		if !slices.Contains(c.header(k), v) {
			return false
		}
	}
	for k, v := range o.params {
		if c.params[k] != v {
			return false
		}
	}
	for k, v := range o.Match.Query {
		if got, ok := c.query(k); !ok || got != v {
			return false
		}
	}
	if len(o.Match.Body) > 0 {
		b := c.body()
		for k, v := range o.Match.Body {
			got, ok := b[k]
			if !ok || !reflect.DeepEqual(got, v) {
				return false
			}
		}
	}
	return true
}

func (s *overrideSet) account(account string) *accountOverrides {
	if s.accounts == nil {
		s.accounts = map[string]*accountOverrides{}
	}
	a := s.accounts[account]
	if a == nil {
		a = &accountOverrides{}
		s.accounts[account] = a
	}
	return a
}

// add keeps a new rule, numbered in its account; ok is false when the
// account already holds maxOverrides rules.
func (s *overrideSet) add(account string, o *overrideRule) (ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.account(account)
	s.prune(a)
	if len(a.rules) >= maxOverrides {
		return false
	}
	a.seq++
	o.ID = a.seq
	a.rules = append(a.rules, o)
	s.rules.Add(1)
	return true
}

// prune drops the account's rules whose uses are spent; s.mu is held.
func (s *overrideSet) prune(a *accountOverrides) {
	n := len(a.rules)
	a.rules = slices.DeleteFunc(a.rules, func(o *overrideRule) bool { return o.left.Load() == 0 })
	s.rules.Add(int64(len(a.rules) - n))
}

// list is the account's live rules, oldest first.
func (s *overrideSet) list(account string) []*overrideRule {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []*overrideRule{}
	if a := s.accounts[account]; a != nil {
		for _, o := range a.rules {
			if v := o.view(); v.Remaining == nil || *v.Remaining > 0 {
				out = append(out, v)
			}
		}
	}
	return out
}

// remove drops one rule; ok is false when the account has no live rule id.
func (s *overrideSet) remove(account string, id int64) (removed *overrideRule, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[account]
	if a == nil {
		return nil, false
	}
	s.prune(a)
	i := slices.IndexFunc(a.rules, func(o *overrideRule) bool { return o.ID == id })
	if i < 0 {
		return nil, false
	}
	removed = a.rules[i].view()
	a.rules = slices.Delete(a.rules, i, i+1)
	s.rules.Add(-1)
	return removed, true
}

// clear drops every rule of the account (a reset, DELETE /admin/overrides);
// ids go on, so an id never names two rules.
func (s *overrideSet) clear(account string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[account]
	if a == nil {
		return 0
	}
	s.prune(a)
	n := len(a.rules)
	a.rules = nil
	s.rules.Add(int64(-n))
	return n
}

// pick returns the first of the account's rules that matches the request
// and still has a use, taking that use, and the number of that use; nil
// when none does. A rule whose last use this took is dropped.
func (s *overrideSet) pick(account string, c *overrideCall) (*overrideRule, int64) {
	if s.rules.Load() == 0 {
		return nil, 0
	}
	s.mu.RLock()
	a := s.accounts[account]
	if a == nil || len(a.rules) == 0 {
		s.mu.RUnlock()
		return nil, 0
	}
	var hit *overrideRule
	var use int64
	for _, o := range a.rules {
		if !o.matches(c) {
			continue
		}
		if use = o.take(); use > 0 {
			hit = o
			break
		}
	}
	s.mu.RUnlock()
	if hit != nil && hit.left.Load() == 0 {
		s.mu.Lock()
		s.prune(a)
		s.mu.Unlock()
	}
	return hit, use
}
