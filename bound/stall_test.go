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

func TestStallStopsAnOperationAfterNDeadlinesInARow(t *testing.T) {
	s := NewStall(3)
	for i, err := range []error{deadline, timeout, nil, deadline, timeout} {
		if r := s.Observe("runInference", err); r != "" {
			t.Fatalf("outcome %d stopped the operation: %s", i, r)
		}
		s.Observe("getModel", nil) // other operations answer between
	}
	r := s.Observe("runInference", deadline)
	if !strings.HasPrefix(r, "the server stopped answering runInference: 3 deadlines in a row (the last: the stream sent no event") {
		t.Fatalf("third deadline in a row: %q", r)
	}
	// Reported once; the operation stays stopped, others go on.
	if again := s.Observe("runInference", deadline); again != "" {
		t.Errorf("reported twice: %q", again)
	}
	if reason, stopped := s.Stopped("runInference"); !stopped || reason != r {
		t.Errorf("Stopped(runInference) = %q, %v", reason, stopped)
	}
	if _, stopped := s.Stopped("getModel"); stopped {
		t.Error("another operation was stopped")
	}
	if _, stopped := s.Server(); stopped {
		t.Error("the whole server was stopped")
	}
}

func TestAnyAnswerEndsARun(t *testing.T) {
	s := NewStall(2)
	for _, answer := range []error{nil, reset, tooMuch, errors.New("500 Internal Server Error")} {
		s.Observe("inference", deadline)
		s.Observe("inference", answer)
		if r := s.Observe("inference", deadline); r != "" {
			t.Errorf("after %v, one deadline stopped the operation: %s", answer, r)
		}
		s.Observe("inference", nil)
	}
}

// TestStallAcrossOperationsStopsTheServer: a server that hangs on
// everything trips as the run moves from operation to operation, before
// each has had N deadlines of its own.
func TestStallAcrossOperationsStopsTheServer(t *testing.T) {
	s := NewStall(3)
	s.Observe("listModels", timeout)
	s.Observe("listModels", timeout)
	r := s.Observe("getModel", timeout)
	if !strings.HasPrefix(r, "the server stopped answering: 3 deadlines in a row across 2 operations") {
		t.Fatalf("got %q", r)
	}
	for _, op := range []string{"listModels", "getModel", "listEvaluations"} {
		if reason, stopped := s.Stopped(op); !stopped || reason != r {
			t.Errorf("Stopped(%s) = %q, %v", op, reason, stopped)
		}
	}
	if reason, stopped := s.Server(); !stopped || reason != r {
		t.Errorf("Server() = %q, %v", reason, stopped)
	}
	if again := s.Observe("listEvaluations", timeout); again != "" {
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
			if s.Observe(fmt.Sprint("op", i%2), deadline) != "" {
				mu.Lock()
				reports++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if _, stopped := s.Stopped("op0"); !stopped || reports < 1 || reports > 2 {
		t.Errorf("%d reports, stopped %v", reports, stopped)
	}
}

func TestNewStallCountsAtLeastOne(t *testing.T) {
	if r := NewStall(0).Observe("a", deadline); r == "" {
		t.Error("n=0: the first deadline did not stop the operation")
	}
}
