package bound

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	deadline = &Error{Reason: Idle, Wait: time.Second}
	timeout  = fmt.Errorf("GET /api/v1/user/model: %w", context.DeadlineExceeded)
	reset    = fmt.Errorf("read: %w", syscall.ECONNRESET)
	tooMuch  = &Error{Reason: OverBody, Limit: 8 << 20}
)

func TestStallStopsAnAreaAfterNDeadlinesInARow(t *testing.T) {
	s := NewStall(3)
	for i, err := range []error{deadline, timeout, nil, deadline, timeout} {
		if r := s.Observe("models", err); r != "" {
			t.Fatalf("outcome %d stopped the area: %s", i, r)
		}
	}
	r := s.Observe("models", deadline)
	if !strings.HasPrefix(r, "the server stopped answering: 3 deadlines in a row in models (the last: the stream sent no event") {
		t.Fatalf("third deadline in a row: %q", r)
	}
	// Reported once; the area stays stopped, others go on.
	if again := s.Observe("models", deadline); again != "" {
		t.Errorf("reported twice: %q", again)
	}
	if reason, stopped := s.Stopped("models"); !stopped || reason != r {
		t.Errorf("Stopped(models) = %q, %v", reason, stopped)
	}
	if _, stopped := s.Stopped("datasets"); stopped {
		t.Error("another area was stopped")
	}
}

func TestAnyAnswerEndsARun(t *testing.T) {
	s := NewStall(2)
	for _, answer := range []error{nil, reset, tooMuch, errors.New("500 Internal Server Error")} {
		s.Observe("inference", deadline)
		s.Observe("inference", answer)
		if r := s.Observe("inference", deadline); r != "" {
			t.Errorf("after %v, one deadline stopped the area: %s", answer, r)
		}
		s.Observe("inference", nil)
	}
}

// TestStallAcrossAreasStopsTheServer: a server that hangs on everything
// trips as the run moves from area to area, before each area has had N
// deadlines of its own.
func TestStallAcrossAreasStopsTheServer(t *testing.T) {
	s := NewStall(3)
	s.Observe("auth", timeout)
	s.Observe("auth", timeout)
	r := s.Observe("models", timeout)
	if !strings.HasPrefix(r, "the server stopped answering: 3 deadlines in a row across 2 areas") {
		t.Fatalf("got %q", r)
	}
	for _, area := range []string{"auth", "models", "evaluations"} {
		if reason, stopped := s.Stopped(area); !stopped || reason != r {
			t.Errorf("Stopped(%s) = %q, %v", area, reason, stopped)
		}
	}
	if again := s.Observe("evaluations", timeout); again != "" {
		t.Errorf("reported twice: %q", again)
	}
}

func TestStallIsSafeForConcurrentUse(t *testing.T) {
	s := NewStall(DefaultStall)
	var wg sync.WaitGroup
	var mu sync.Mutex
	reports := 0
	for i := range 50 {
		wg.Go(func() {
			if s.Observe(fmt.Sprint("area", i%2), deadline) != "" {
				mu.Lock()
				reports++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if _, stopped := s.Stopped("area0"); !stopped || reports < 1 || reports > 2 {
		t.Errorf("%d reports, stopped %v", reports, stopped)
	}
}

func TestNewStallCountsAtLeastOne(t *testing.T) {
	if r := NewStall(0).Observe("a", deadline); r == "" {
		t.Error("n=0: the first deadline did not stop the area")
	}
}
