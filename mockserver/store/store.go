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
	"crypto/sha256"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

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
	// EvaluationName bounds an evaluation name, in characters after
	// trimming (D-19). The server reads it from the contract; a zero Max
	// leaves only the rule that a name is not blank.
	EvaluationName Length
}

// Length bounds the characters of a text; a zero Max is no upper bound.
type Length struct{ Min, Max int }

// idsPerAccount is the size of each account's block of integer ids. Each
// account draws its dataset, model and evaluation ids from its own block, so
// ids are unique across accounts (one account can never address another's
// resource by a number that exists in both) and yet an account's ids depend
// only on what that account did: the first account's fixtures are 1, 2, 3…
// after every reset and restart, whatever other accounts do. A billion ids
// outlast any account: each one is a stored resource.
const idsPerAccount = 1_000_000_000

// Store holds the accounts. Accounts are created by Account and replaced by
// Reset.
type Store struct {
	cfg Config

	// version counts the changes (touch): an answer encoded at one version
	// is still right while the version has not moved.
	version atomic.Uint64

	// log, when set, receives a record of every change (SetLog).
	log Log

	mu       sync.RWMutex // guards accounts and blocks
	accounts map[string]*Account
	// blocks is the number of id blocks handed out: the next new account
	// gets block number blocks.
	blocks int64
}

// New returns an empty store.
func New(cfg Config) *Store {
	if cfg.Clock == nil {
		cfg.Clock = lifecycle.SystemClock{}
	}
	return &Store{cfg: cfg, accounts: map[string]*Account{}}
}

// Config is the store's configuration, to make a store alike (a scratch
// store that tries a load first).
func (s *Store) Config() Config { return s.cfg }

// touch moves the version after a change.
func (s *Store) touch() { s.version.Add(1) }

// Has reports whether the account named name exists (created or restored).
func (s *Store) Has(name string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.accounts[name] != nil
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
		a = s.newAccount(name, s.blocks)
		s.blocks++
		s.accounts[name] = a
		a.commitWhole()
	}
	return a
}

// Open creates the account named name, empty, as one that lives as long as
// the process: Snapshot leaves it out, so a state file never holds it (the
// server's accounts opened on demand, for keys it was not given). It
// returns the account as it is when name exists already.
func (s *Store) Open(name string) *Account {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.accounts[name]; a != nil {
		return a
	}
	a := s.newAccount(name, s.blocks)
	a.transient = true
	s.blocks++
	s.accounts[name] = a
	return a
}

// Reset replaces the account named name by an empty one and returns it. The
// new account keeps the old one's id block and starts it over, so a preload
// after a reset gives the fixtures the ids they had before; an account Open
// made stays out of snapshots.
func (s *Store) Reset(name string) *Account {
	s.mu.Lock()
	defer s.mu.Unlock()
	block, transient := s.blocks, false
	if old := s.accounts[name]; old != nil {
		block, transient = old.block, old.transient
		// A request that holds the old account may still change it:
		// those changes are lost with it, so they are not logged.
		old.mu.Lock()
		old.replaced = true
		old.mu.Unlock()
	} else {
		s.blocks++
	}
	a := s.newAccount(name, block)
	a.transient = transient
	s.accounts[name] = a
	a.commitWhole()
	return a
}

// commitWhole records the whole account (created or reset); the caller
// holds s.mu, so no request has the account yet.
func (a *Account) commitWhole() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.commit(change{Whole: ptr(a.snapshotLocked())})
}

func (s *Store) newAccount(name string, block int64) *Account {
	return &Account{
		name:          name,
		store:         s,
		clock:         lifecycle.NewOffsetClock(s.cfg.Clock),
		block:         block,
		lastID:        block * idsPerAccount,
		models:        map[int64]*model{},
		datasets:      map[int64]*dataset{},
		conversations: map[string]*conversation{},
		evaluations:   map[int64]*evaluation{},
	}
}

// Account is one API key's data. Every exported method takes the account's
// lock, so callers never see a half-applied change.
type Account struct {
	name  string
	store *Store
	clock *lifecycle.OffsetClock
	// block is the account's id block (see idsPerAccount).
	block int64
	// transient marks an account Open made: no snapshot holds it.
	transient bool

	mu sync.Mutex // guards the fields below and everything they point to
	// lastID is the last integer id handed out (dataset, model, evaluation).
	lastID int64
	// lastSeq is the last conversation sequence number handed out.
	lastSeq int64
	// uuids counts the UUIDs handed out (conversations, messages, threads).
	uuids uint64
	// logSeq is the sequence number of the account's last state log record.
	logSeq uint64
	// replaced says Reset replaced the account: its changes are not logged.
	replaced      bool
	models        map[int64]*model
	datasets      map[int64]*dataset
	conversations map[string]*conversation
	evaluations   map[int64]*evaluation
}

// nextID returns a new integer id; the caller holds a.mu.
func (a *Account) nextID() int64 {
	a.lastID++
	return a.lastID
}

// nextSeq returns a new conversation sequence number; the caller holds a.mu.
func (a *Account) nextSeq() int64 {
	a.lastSeq++
	return a.lastSeq
}

// newUUID returns a new conversation, message or thread id (D-20): a
// version 4 UUID whose bits come from the seed, the account and a counter
// rather than from a random source, so the same calls with the same --seed
// give the same ids, and a reset gives the fixtures' conversations their
// ids again. The account name keeps accounts apart: no two accounts share a
// conversation id. The caller holds a.mu.
func (a *Account) newUUID() string {
	a.uuids++
	// "contractkit-mock/<seed>/<account>/<n>", appended without fmt (a
	// conversation, message or thread asks for one): the ids stay those of
	// every earlier version, so a state file keeps meaning the same.
	var in [96]byte
	b := append(in[:0], "contractkit-mock/"...)
	b = strconv.AppendInt(b, a.store.cfg.Seed, 10)
	b = append(append(append(b, '/'), a.name...), '/')
	b = strconv.AppendUint(b, a.uuids, 10)
	sum := sha256.Sum256(b)
	var id uuid.UUID
	copy(id[:], sum[:16])
	id[6] = id[6]&0x0f | 0x40 // version 4
	id[8] = id[8]&0x3f | 0x80 // RFC 4122 variant
	return id.String()
}

// Clock is the account's own clock; advancing it finishes this account's
// trainings and evaluations without touching any other account.
func (a *Account) Clock() *lifecycle.OffsetClock { return a.clock }

// Advance moves the account's clock forward by d (admin control).
func (a *Account) Advance(d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clock.Advance(d)
	a.commit(change{})
}

// FinishAll advances the clock far enough for every running training and
// evaluation of the account to end.
func (a *Account) FinishAll() time.Duration {
	d := max(a.store.cfg.TrainDuration, a.store.cfg.EvalDuration) + time.Second
	a.Advance(d)
	return d
}

func (a *Account) now() time.Time { return a.clock.Now().UTC().Truncate(time.Millisecond) }

// parseID reads a path id; a non-number is simply not found (D-20).
func parseID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0
}

func idString(id int64) string { return strconv.FormatInt(id, 10) }
