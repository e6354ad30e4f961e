// Package mockserver is a stateful stand-in for the service: every operation
// of the contract (spec.Strict), state per API key, the training and
// evaluation state machines, answers streamed over Server-Sent Events from
// the files a user uploaded, and controls that let a client force errors,
// delays and stream faults.
//
// Every /api/v1 request passes, in this order: CORS, authentication, rate
// limiting, routing, the client's controls (Prefer, delay), validation against
// the contract, the handler. Every answer, errors and recovered panics
// included, is the seed's JSON envelope — except a successful inference
// stream.
package mockserver

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/retrieval"
	"contractkit/mockserver/store"
	"contractkit/spec"
)

// Config configures a Server. The zero value of a field is its default.
type Config struct {
	// Keys are the accepted API keys; each is its own account.
	Keys []string
	// Seed makes generated data reproducible.
	Seed int64
	// TrainDuration is how long a new model trains (0: ready at once).
	TrainDuration time.Duration
	// EvalDuration is how long a started evaluation runs.
	EvalDuration time.Duration
	// Fixtures preload every account (and every reset) no FixtureRules
	// pattern matches; nil preloads nothing.
	Fixtures *fixtures.Bundle
	// FixtureRules give the keys a pattern matches, configured or open,
	// their own preload (nil: none); the first rule that matches wins.
	FixtureRules []FixtureRule
	// OpenKeys are key patterns (globs: `*` any run, `?` one byte): a key
	// not in Keys that matches one opens an account of its own on first
	// use (accounts.go).
	OpenKeys []string
	// MaxOpenAccounts bounds the accounts OpenKeys opens (0:
	// DefaultMaxOpenAccounts); a new key past it is refused 401.
	MaxOpenAccounts int
	// Latency is added to every /api/v1 answer: a fixed delay, or with
	// LatencyMax above it a range, drawn per call (seeded by Seed).
	Latency time.Duration
	// LatencyMax is the upper bound of the latency range (0: Latency alone).
	LatencyMax time.Duration
	// ErrorRate is the share (0..1) of /api/v1 requests answered with a 500.
	ErrorRate float64
	// RateLimit is requests per second per key (0: unlimited).
	RateLimit int
	// TokenInterval paces streamed tokens like a real model.
	TokenInterval time.Duration
	// Clock drives trainings and evaluations (tests inject a fake).
	Clock lifecycle.Clock
	// Logger receives one line per request; keys are never logged.
	Logger *slog.Logger
	// StateFile, when set, keeps every account across restarts and crashes:
	// New restores it and its log (a missing file is an empty start;
	// accounts it holds are not preloaded), every change is in the log on
	// disk before it is answered (persist.go), and Close folds the log into
	// the file a last time.
	StateFile string
	// CompactBytes is the state log's size past which it is folded into the
	// state file (0: DefaultCompactBytes); the file's own size raises it.
	CompactBytes int64
	// MaxUploadBytes bounds a multipart request body (0: the contract's, D-15).
	MaxUploadBytes int64
	// ExtractBudget is the work one uploaded file's text extraction may
	// take (0: retrieval.DefaultMaxDuration); a file over it fails.
	ExtractBudget time.Duration
}

// MaxDelay bounds every delay: --latency, X-Mock-Delay, an override's
// delay and stream pace, each bound of a range (docs/frontend.md).
const MaxDelay = 60 * time.Second

// Server is the mock. It is an http.Handler; create it with New.
type Server struct {
	cfg      Config
	contract *spec.Contract
	store    *store.Store
	log      *slog.Logger
	keys     []keyEntry
	open     *openAccounts // nil without Config.OpenKeys
	// fixtureRules are Config.FixtureRules compiled.
	fixtureRules []fixtureRule
	infoMu       sync.RWMutex // guards info
	// info is what the server keeps of each account beyond its data.
	info     map[string]accountInfo
	limiter  *limiter
	handlers map[string]handler
	defaults requestDefaults // what the contract fills in (defaults.go)
	bounds   requestBounds   // what the contract bounds that handlers check (bounds.go)
	persist  *persister      // nil without a state file
	journal  journal         // the /api/v1 calls of each account (journal.go)
	// preflights wait for the call they prepare, to join its journal (preflight.go).
	preflights preflights
	// overrides are the answers tests forced per account (overrides.go).
	overrides overrideSet

	randMu sync.Mutex // guards rng
	rng    *rand.Rand
	// latency is --latency as a range; jitter draws delays within ranges,
	// timers make what the mock waits on (latency.go).
	latency delaySpec
	jitter  jitter
	timers  timerSource

	// shutdown is closed when the server begins shutting down, so open
	// streams end cleanly instead of holding the process.
	shutdown     chan struct{}
	shutdownOnce sync.Once
	// taken are the paced streams that took their connection over
	// (streamconn.go).
	taken openStreams
}

// DevKey is the key used when none is configured.
const DevKey = "dev-key-change-me"

// New builds a server; it preloads the account of every configured key
// with its fixtures, except those restored from cfg.StateFile (an account
// an open key opens is preloaded on its first request). With a state file, call Close when done.
func New(cfg Config) (*Server, error) {
	if len(cfg.Keys) == 0 {
		cfg.Keys = []string{DevKey}
	}
	if cfg.Clock == nil {
		cfg.Clock = lifecycle.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ErrorRate < 0 || cfg.ErrorRate > 1 {
		return nil, fmt.Errorf("error rate %v: must be within 0..1", cfg.ErrorRate)
	}
	latency := delaySpec{cfg.Latency, max(cfg.Latency, cfg.LatencyMax)}
	if cfg.Latency < 0 || latency.max > MaxDelay {
		return nil, fmt.Errorf("latency %s: must be within 0..%s", latency, MaxDelay)
	}
	contract := spec.Strict()
	bounds, err := readBounds(contract)
	if err != nil {
		return nil, err
	}
	storeCfg := store.Config{
		Clock: cfg.Clock, TrainDuration: cfg.TrainDuration, EvalDuration: cfg.EvalDuration, Seed: cfg.Seed,
		Limits:         retrieval.Limits{MaxFileBytes: bounds.limits.MultipartBodyBytes}, // a file may fill a body (D-15)
		EvaluationName: bounds.evaluationName,
	}
	s := &Server{
		cfg:      cfg,
		contract: contract,
		bounds:   bounds,
		log:      cfg.Logger,
		limiter:  newLimiter(cfg.RateLimit, cfg.Clock),
		rng:      rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6d6f636b)),
		shutdown: make(chan struct{}),
		store:    store.New(storeCfg),
		latency:  latency,
		jitter:   jitter{seed: cfg.Seed},
		timers:   realTimers{},
	}
	s.taken.conns, s.taken.down = map[*streamConn]struct{}{}, s.shutdown
	if err := s.setupAccounts(); err != nil {
		return nil, err
	}
	d, err := readDefaults(s.contract)
	if err != nil {
		return nil, err
	}
	s.defaults = d
	s.handlers = s.routes()
	for _, op := range s.contract.Operations {
		if s.handlers[op.ID] == nil {
			return nil, fmt.Errorf("operation %s has no handler", op.ID)
		}
	}
	if err := s.openState(); err != nil {
		return nil, err
	}
	for _, k := range s.keys {
		if s.store.Has(k.account) {
			continue // restored from the state file
		}
		if err := s.preload(k.account, s.store.Account(k.account)); err != nil {
			return nil, err
		}
	}
	if err := s.checkOpenFixtures(storeCfg); err != nil {
		return nil, err
	}
	if err := s.startSaving(); err != nil {
		return nil, err
	}
	return s, nil
}

// maxUpload is the multipart body limit in force.
func (s *Server) maxUpload() int64 {
	if s.cfg.MaxUploadBytes > 0 {
		return s.cfg.MaxUploadBytes
	}
	return s.bounds.limits.MultipartBodyBytes
}

// Shutdown ends open streams; call it when the http.Server shuts down
// (http.Server.RegisterOnShutdown(s.Shutdown)).
func (s *Server) Shutdown() {
	s.shutdownOnce.Do(func() {
		close(s.shutdown)
		s.taken.shutdown()
	})
}

func (s *Server) chance(p float64) bool {
	if p <= 0 {
		return false
	}
	s.randMu.Lock()
	defer s.randMu.Unlock()
	return s.rng.Float64() < p
}
