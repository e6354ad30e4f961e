package mutation

import (
	"net/http"
	"strings"
	"sync"
	"time"
)

// maxInFlight is how many calls of one key burst-429-plain-text lets run
// at once: fewer than the burst a page load sends (about eight).
const maxInFlight = 6

// serviceTime and overlapHold are how long a call is held before the mock
// answers it, alone and while another call of its key is answered: the
// mock answers a read in a fraction of a millisecond, and a real server's
// calls of one burst overlap for longer.
const (
	serviceTime = 5 * time.Millisecond
	overlapHold = 50 * time.Millisecond
)

// inFlight counts the calls of each key being answered.
var inFlight = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// shedBursts answers an API call itself: past maxInFlight calls of its
// key at once, a 429 with Retry-After and a plain-text body (what a
// concurrency middleware in front of the API writes); otherwise the
// wrapped mock's answer.
func shedBursts(x *Exchange, w http.ResponseWriter) bool {
	if !strings.HasPrefix(x.Req.URL.Path, "/api/") {
		return false
	}
	key := x.Req.Header.Get("Authorization")
	inFlight.Lock()
	over := inFlight.n[key] >= maxInFlight
	if !over {
		inFlight.n[key]++
	}
	busy := inFlight.n[key] > 1
	inFlight.Unlock()
	if over {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
		return true
	}
	defer func() {
		inFlight.Lock()
		inFlight.n[key]--
		inFlight.Unlock()
	}()
	hold := serviceTime
	if busy {
		hold = overlapHold
	}
	t := time.NewTimer(hold)
	select {
	case <-t.C:
	case <-x.Req.Context().Done():
		t.Stop()
	}
	x.next.ServeHTTP(w, x.Req)
	return true
}
