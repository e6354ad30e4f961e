package bound

import (
	"fmt"
	"sync"
)

// DefaultStall is how many deadlines in a row mean a server stopped
// answering: one is a slow answer, three a pattern.
const DefaultStall = 3

// Stall tells a server that stopped answering from one that is slow once.
// Each outcome of a request is observed under its area (the suite's area,
// or an operation for the proxy): N deadlines in a row in one area stop
// that area; N in a row across two areas or more stop the whole server.
// Each stop is reported once, so the caller can skip the rest of the area
// with the reason instead of waiting out one timeout after another. An
// answer of any kind (a refusal, a 5xx, too much, a reset) ends a run of
// deadlines: the server is there. A stop is final. Stall is safe for
// concurrent use.
type Stall struct {
	n int

	mu       sync.Mutex // guards what follows
	runs     map[string]int
	stopped  map[string]string
	run      int             // deadlines in a row, all areas
	runAreas map[string]bool // the areas of that run
	server   string          // set once the whole server is stopped
}

// NewStall returns a detector that stops an area after n deadlines in a
// row (n below 1 counts as 1).
func NewStall(n int) *Stall {
	return &Stall{n: max(n, 1), runs: map[string]int{}, stopped: map[string]string{}, runAreas: map[string]bool{}}
}

// Observe records the outcome of one request of area (its error, nil for
// an answer read whole). It returns the reason the first time the
// outcome stops the area or the whole server, and "" otherwise.
func (s *Stall) Observe(area string, err error) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if Classify(err) != Deadline {
		s.runs[area], s.run = 0, 0
		clear(s.runAreas)
		return ""
	}
	s.runs[area]++
	s.run++
	s.runAreas[area] = true
	if s.server != "" {
		return "" // the whole server is stopped and was reported
	}
	if s.run >= s.n && len(s.runAreas) >= 2 {
		s.server = fmt.Sprintf("the server stopped answering: %d deadlines in a row across %d areas (the last: %v)", s.run, len(s.runAreas), err)
		return s.server
	}
	if s.stopped[area] == "" && s.runs[area] >= s.n {
		s.stopped[area] = fmt.Sprintf("the server stopped answering: %d deadlines in a row in %s (the last: %v)", s.runs[area], area, err)
		return s.stopped[area]
	}
	return ""
}

// Stopped reports whether area is stopped, by its own deadlines or the
// whole server's, and why.
func (s *Stall) Stopped(area string) (reason string, stopped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.server != "" {
		return s.server, true
	}
	reason = s.stopped[area]
	return reason, reason != ""
}
