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
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver/apierr"
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
	// Fixtures preload every account (and every reset); nil preloads nothing.
	Fixtures *fixtures.Bundle
	// Latency is added to every /api/v1 answer.
	Latency time.Duration
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

// MaxDelay bounds the X-Mock-Delay control, the mock's own (README).
const MaxDelay = 60 * time.Second

// Server is the mock. It is an http.Handler; create it with New.
type Server struct {
	cfg      Config
	contract *spec.Contract
	store    *store.Store
	log      *slog.Logger
	keys     []keyEntry
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

	// shutdown is closed when the server begins shutting down, so open
	// streams end cleanly instead of holding the process.
	shutdown     chan struct{}
	shutdownOnce sync.Once
}

type keyEntry struct {
	digest  [32]byte
	account string
}

// DevKey is the key used when none is configured.
const DevKey = "dev-key-change-me"

// New builds a server; it preloads every account with cfg.Fixtures, except
// those restored from cfg.StateFile. With a state file, call Close when done.
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
	contract := spec.Strict()
	bounds, err := readBounds(contract)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:      cfg,
		contract: contract,
		bounds:   bounds,
		log:      cfg.Logger,
		limiter:  newLimiter(cfg.RateLimit, cfg.Clock),
		rng:      rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6d6f636b)),
		shutdown: make(chan struct{}),
		store: store.New(store.Config{
			Clock: cfg.Clock, TrainDuration: cfg.TrainDuration, EvalDuration: cfg.EvalDuration, Seed: cfg.Seed,
			Limits:         retrieval.Limits{MaxFileBytes: bounds.limits.MultipartBodyBytes}, // a file may fill a body (D-15)
			EvaluationName: bounds.evaluationName,
		}),
	}
	seen := map[string]bool{}
	for i, k := range cfg.Keys {
		if k == "" || seen[k] {
			return nil, fmt.Errorf("api key %d: empty or repeated", i+1)
		}
		seen[k] = true
		s.keys = append(s.keys, keyEntry{digest: sha256.Sum256([]byte(k)), account: fmt.Sprintf("account-%d", i+1)})
	}
	d, err := readDefaults(s.contract.Kin)
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
		if err := s.preload(s.store.Account(k.account)); err != nil {
			return nil, err
		}
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

func (s *Server) preload(a *store.Account) error {
	if s.cfg.Fixtures == nil {
		return nil
	}
	return a.Preload(*s.cfg.Fixtures)
}

// Shutdown ends open streams; call it when the http.Server shuts down
// (http.Server.RegisterOnShutdown(s.Shutdown)).
func (s *Server) Shutdown() { s.shutdownOnce.Do(func() { close(s.shutdown) }) }

// authenticate maps an Authorization header to an account. Every configured
// key is compared, in constant time over fixed-length digests, so neither the
// position of a match nor the key's length shows in the timing.
func (s *Server) authenticate(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if h == "" {
		return "", apierr.New(apierr.Unauthorized, "Missing API key: send Authorization: Bearer <API_KEY>")
	}
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", apierr.New(apierr.Unauthorized, "Malformed Authorization header: expected Bearer <API_KEY>")
	}
	digest := sha256.Sum256([]byte(token))
	account := ""
	for _, k := range s.keys {
		if subtle.ConstantTimeCompare(digest[:], k.digest[:]) == 1 {
			account = k.account
		}
	}
	if account == "" {
		return "", apierr.New(apierr.Unauthorized, "Invalid API key")
	}
	return account, nil
}

func (s *Server) chance(p float64) bool {
	if p <= 0 {
		return false
	}
	s.randMu.Lock()
	defer s.randMu.Unlock()
	return s.rng.Float64() < p
}
