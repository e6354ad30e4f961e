package bound

import (
	"fmt"
	"sync"
)

// DefaultStall is how many deadlines in a row mean a server stopped
// answering: one is a slow answer, three a pattern.
const DefaultStall = 3

// Stall tells a server that stopped answering from one that is slow once.
// Each outcome of a request is observed under its operation (the API's,
// or any unit the caller withholds as one): N deadlines in a row of one
// operation stop that operation, wherever in the run they came; N in a row
// across two operations or more stop the whole server. Each stop is
// reported once, so the caller can withhold the operation's later requests
// with the reason instead of waiting out one timeout after another. An
// answer of any kind (a refusal, a 5xx, too much, a reset) ends a run of
// deadlines: the server is there. A stop is final. Stall is safe for
// concurrent use.
type Stall struct {
	n int

	mu      sync.Mutex // guards what follows
	runs    map[string]int
	stopped map[string]string
	run     int             // deadlines in a row, all operations
	runOps  map[string]bool // the operations of that run
	server  string          // set once the whole server is stopped
}

// NewStall returns a detector that stops an operation after n deadlines
// in a row (n below 1 counts as 1).
func NewStall(n int) *Stall {
	return &Stall{n: max(n, 1), runs: map[string]int{}, stopped: map[string]string{}, runOps: map[string]bool{}}
}

// Observe records the outcome of one request of operation op (its error,
// nil for an answer read whole). It returns the reason the first time the
// outcome stops the operation or the whole server, and "" otherwise.
func (s *Stall) Observe(op string, err error) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if Classify(err) != Deadline {
		s.runs[op], s.run = 0, 0
		clear(s.runOps)
		return ""
	}
	s.runs[op]++
	s.run++
	s.runOps[op] = true
	if s.server != "" {
		return "" // the whole server is stopped and was reported
	}
	if s.run >= s.n && len(s.runOps) >= 2 {
		s.server = fmt.Sprintf("the server stopped answering: %d deadlines in a row across %d operations (the last: %v)", s.run, len(s.runOps), err)
		return s.server
	}
	if s.stopped[op] == "" && s.runs[op] >= s.n {
		s.stopped[op] = fmt.Sprintf("the server stopped answering %s: %d deadlines in a row (the last: %v)", op, s.runs[op], err)
		return s.stopped[op]
	}
	return ""
}

// Stopped reports whether op is stopped, by its own deadlines or the whole
// server's, and why.
func (s *Stall) Stopped(op string) (reason string, stopped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.server != "" {
		return s.server, true
	}
	reason = s.stopped[op]
	return reason, reason != ""
}

// Server reports whether the whole server is stopped, and why.
func (s *Stall) Server() (reason string, stopped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.server, s.server != ""
}
