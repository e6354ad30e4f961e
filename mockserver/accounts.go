package mockserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"contractkit/fixtures"
	"contractkit/mockserver/apierr"
	"contractkit/mockserver/store"
)

// Which account a key opens. A key given in Config.Keys opens its account,
// "account-N" after the key's position, made and preloaded at start. A key
// matching one of Config.OpenKeys (and not given) opens an account of its
// own on first use, "open-N" in the order they came, preloaded then: a
// Playwright worker's test-3 gets its own data, overrides and journal, and
// no worker sees another's. Keys are never stored nor logged: a configured
// key as the digest it is compared with, an open key as the digest that
// finds its account again.
//
// Open accounts are bounded: at most Config.MaxOpenAccounts of them; a new
// key past that is refused 401 with the reason, and the accounts already
// open go on. Each keeps a smaller journal (openJournalBudget) than a
// configured account, and none is kept in the state file: they live as
// long as the process, as overrides do.

// DefaultMaxOpenAccounts is the bound of open accounts when
// Config.MaxOpenAccounts is 0: far more than the workers of any test run,
// and with the smaller journal about 400 MiB at the very most.
const DefaultMaxOpenAccounts = 100

// openJournalBudget is the journal bytes an open account keeps (a
// configured account: journalBudget).
const openJournalBudget = 4 << 20

// FixtureRule gives the keys its pattern matches, configured or open, a
// preload of their own.
type FixtureRule struct {
	// Pattern is a key glob (`*` any run, `?` one byte).
	Pattern string
	// Fixtures is the preload; nil starts the account empty.
	Fixtures *fixtures.Bundle
}

// keyEntry is a configured key: the digest compared, the account it opens.
type keyEntry struct {
	digest  [32]byte
	account string
}

// fixtureRule is a FixtureRule compiled.
type fixtureRule struct {
	pattern  keyPattern
	fixtures *fixtures.Bundle
}

// accountInfo is what the server keeps of an account beyond its data.
type accountInfo struct {
	fixtures *fixtures.Bundle // its preload, at start and on every reset; nil: none
	pattern  string           // the --open-keys pattern that opened it; "" for a configured key
}

// openAccounts is the accounts --open-keys opened.
type openAccounts struct {
	patterns keyPatterns
	max      int

	openMu sync.Mutex // serialises openings, so a key opens one account
	mu     sync.RWMutex
	// byDigest finds a key's account by the key's SHA-256: a map lookup
	// on a digest tells a client timing it nothing of the keys.
	byDigest map[[32]byte]string
}

// known returns the account the key of digest opened, or "".
func (o *openAccounts) known(digest [32]byte) string {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.byDigest[digest]
}

func (o *openAccounts) count() int {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return len(o.byDigest)
}

// setupAccounts reads the keys, the open patterns and the fixture rules of
// cfg; New calls it before any account is made.
func (s *Server) setupAccounts() error {
	s.info = map[string]accountInfo{}
	for _, r := range s.cfg.FixtureRules {
		p, err := compileKeyPattern(r.Pattern)
		if err != nil {
			return fmt.Errorf("fixtures: %w", err)
		}
		s.fixtureRules = append(s.fixtureRules, fixtureRule{pattern: p, fixtures: r.Fixtures})
	}
	seen := map[string]bool{}
	for i, k := range s.cfg.Keys {
		if k == "" || seen[k] {
			return fmt.Errorf("api key %d: empty or repeated", i+1)
		}
		seen[k] = true
		name := fmt.Sprintf("account-%d", i+1)
		s.keys = append(s.keys, keyEntry{digest: sha256.Sum256([]byte(k)), account: name})
		s.info[name] = accountInfo{fixtures: s.fixturesFor(k)}
	}
	if len(s.cfg.OpenKeys) == 0 {
		return nil
	}
	bound := s.cfg.MaxOpenAccounts
	switch {
	case bound == 0:
		bound = DefaultMaxOpenAccounts
	case bound < 0:
		return fmt.Errorf("open accounts: a bound of %d; at least 1", bound)
	}
	o := &openAccounts{max: bound, byDigest: map[[32]byte]string{}}
	for _, text := range s.cfg.OpenKeys {
		p, err := compileKeyPattern(text)
		if err != nil {
			return fmt.Errorf("open keys: %w", err)
		}
		o.patterns = append(o.patterns, p)
	}
	s.open = o
	return nil
}

// fixturesFor is the preload of the account key opens: the first fixture
// rule the key matches, else Config.Fixtures.
func (s *Server) fixturesFor(key string) *fixtures.Bundle {
	for _, r := range s.fixtureRules {
		if r.pattern.match(key) {
			return r.fixtures
		}
	}
	return s.cfg.Fixtures
}

// accountInfo returns what the server keeps of the account.
func (s *Server) accountInfo(account string) accountInfo {
	s.infoMu.RLock()
	defer s.infoMu.RUnlock()
	return s.info[account]
}

// preload fills the account named account with its fixtures.
func (s *Server) preload(account string, a *store.Account) error {
	b := s.accountInfo(account).fixtures
	if b == nil {
		return nil
	}
	return a.Preload(*b)
}

// checkOpenFixtures preloads, into a store of its own, every fixture set
// only open accounts would get, so that a set that cannot load stops the
// start rather than failing a first request.
func (s *Server) checkOpenFixtures(cfg store.Config) error {
	if s.open == nil {
		return nil
	}
	used := map[*fixtures.Bundle]bool{nil: true}
	for _, k := range s.keys {
		used[s.info[k.account].fixtures] = true
	}
	sets := []*fixtures.Bundle{s.cfg.Fixtures}
	for _, r := range s.fixtureRules {
		sets = append(sets, r.fixtures)
	}
	scratch := store.New(cfg)
	for i, b := range sets {
		if used[b] {
			continue
		}
		used[b] = true
		if err := scratch.Account(fmt.Sprint(i)).Preload(*b); err != nil {
			return fmt.Errorf("fixtures for open keys: %w", err)
		}
	}
	return nil
}

// authenticate maps an Authorization header to an account. Every configured
// key is compared, in constant time over fixed-length digests, so neither the
// position of a match nor the key's length shows in the timing; a key none
// matches may open an account (openAccount).
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
	if account != "" {
		return account, nil
	}
	if s.open != nil {
		return s.openAccount(token, digest)
	}
	return "", apierr.New(apierr.Unauthorized, "Invalid API key")
}

// openAccount returns the account of a key no configured key matched: the
// one it opened before, or, when it matches an open pattern and the bound
// allows, a new one, preloaded before the request goes on.
func (s *Server) openAccount(token string, digest [32]byte) (string, error) {
	o := s.open
	if name := o.known(digest); name != "" {
		return name, nil
	}
	i := o.patterns.first(token)
	if i < 0 {
		return "", apierr.New(apierr.Unauthorized, "Invalid API key")
	}
	o.openMu.Lock()
	defer o.openMu.Unlock()
	if name := o.known(digest); name != "" {
		return name, nil // opened by a request that came at the same time
	}
	n := o.count()
	if n >= o.max {
		s.log.Warn("open account refused: the bound is reached", "open_accounts", n)
		return "", apierr.New(apierr.Unauthorized,
			"Invalid API key: the key matches --open-keys, but the mock already holds %d open accounts (--open-keys-max); restart it, or raise the bound", n)
	}
	name := fmt.Sprintf("open-%d", n+1)
	s.infoMu.Lock()
	s.info[name] = accountInfo{fixtures: s.fixturesFor(token), pattern: o.patterns[i].text}
	s.infoMu.Unlock()
	s.journal.setBudget(name, openJournalBudget)
	if err := s.preload(name, s.store.Open(name)); err != nil {
		s.store.Reset(name) // the next request tries again on an empty account
		s.log.Error("open account: preload failed", "account", name, "err", err)
		return "", apierr.New(apierr.Internal, "The account could not be opened: its fixtures did not load")
	}
	o.mu.Lock()
	o.byDigest[digest] = name
	o.mu.Unlock()
	s.log.Info("account opened", "account", name, "pattern", o.patterns[i].text)
	return name, nil
}
