// Package store keeps the mock server's state: one Account per API key, each
// with its own datasets, models, conversations and evaluations, safe under
// concurrent requests. Operations return *apierr.Error values (404, 409, 422)
// that the HTTP layer writes as they are.
//
// Nothing runs in the background: training and evaluation runs store when
// they started, and their state is computed from the account's clock when
// they are read (package lifecycle).
package store

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/retrieval"
)

// Config shapes every account of a Store.
type Config struct {
	// Clock is the base clock; each account wraps it in its own OffsetClock.
	Clock lifecycle.Clock
	// TrainDuration is how long a new model takes to become ready (0: at once).
	TrainDuration time.Duration
	// EvalDuration is how long a started evaluation runs.
	EvalDuration time.Duration
	// Seed makes generated text reproducible.
	Seed int64
	// Limits bound one uploaded file.
	Limits retrieval.Limits
}

// Store holds the accounts. Accounts are created by Open and replaced by
// Reset; ids are unique across accounts, so one account can never address
// another's resource by guessing a small number that exists in both.
type Store struct {
	cfg Config
	ids atomic.Int64

	mu       sync.RWMutex // guards accounts
	accounts map[string]*Account
}

// New returns an empty store.
func New(cfg Config) *Store {
	if cfg.Clock == nil {
		cfg.Clock = lifecycle.SystemClock{}
	}
	return &Store{cfg: cfg, accounts: map[string]*Account{}}
}

// Account returns the account named name, creating it empty on first use.
// name identifies an account (the server uses the index of its key), never
// the key itself.
func (s *Store) Account(name string) *Account {
	s.mu.RLock()
	a := s.accounts[name]
	s.mu.RUnlock()
	if a != nil {
		return a
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if a = s.accounts[name]; a == nil {
		a = s.newAccount(name)
		s.accounts[name] = a
	}
	return a
}

// Reset replaces the account named name by an empty one and returns it.
func (s *Store) Reset(name string) *Account {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.newAccount(name)
	s.accounts[name] = a
	return a
}

func (s *Store) newAccount(name string) *Account {
	return &Account{
		name:          name,
		store:         s,
		clock:         lifecycle.NewOffsetClock(s.cfg.Clock),
		models:        map[int64]*model{},
		datasets:      map[int64]*dataset{},
		conversations: map[string]*conversation{},
		evaluations:   map[int64]*evaluation{},
	}
}

func (s *Store) nextID() int64 { return s.ids.Add(1) }

// Account is one API key's data. Every exported method takes the account's
// lock, so callers never see a half-applied change.
type Account struct {
	name  string
	store *Store
	clock *lifecycle.OffsetClock

	mu            sync.Mutex // guards the maps below and everything they point to
	models        map[int64]*model
	datasets      map[int64]*dataset
	conversations map[string]*conversation
	evaluations   map[int64]*evaluation
}

// Clock is the account's own clock; advancing it finishes this account's
// trainings and evaluations without touching any other account.
func (a *Account) Clock() *lifecycle.OffsetClock { return a.clock }

// Advance moves the account's clock forward by d (admin control).
func (a *Account) Advance(d time.Duration) { a.clock.Advance(d) }

// FinishAll advances the clock far enough for every running training and
// evaluation of the account to end.
func (a *Account) FinishAll() time.Duration {
	d := max(a.store.cfg.TrainDuration, a.store.cfg.EvalDuration) + time.Second
	a.clock.Advance(d)
	return d
}

func (a *Account) now() time.Time { return a.clock.Now().UTC().Truncate(time.Millisecond) }

// parseID reads a path id; a non-number is simply not found (D-20).
func parseID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0
}

func idString(id int64) string { return strconv.FormatInt(id, 10) }
