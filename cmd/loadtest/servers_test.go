package main

import (
	"crypto/sha256"
	"os"
	"testing"
	"time"
)

// cpuTime reads this process's own CPU time, and it grows with work: busy
// work until it has counted 100 ms (on a loaded machine that takes more
// wall time than 100 ms, so the wall clock only bounds the wait).
func TestCPUTimeGrowsWithWork(t *testing.T) {
	before, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(nil)
	for start := time.Now(); time.Since(start) < 60*time.Second; {
		for range 10000 {
			sum = sha256.Sum256(sum[:]) // busy: CPU time, not sleep
		}
		after, err := cpuTime(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if d := after - before; d >= 100*time.Millisecond {
			if d > time.Minute+10*time.Second {
				t.Fatalf("CPU time grew by %v in at most a minute of wall time", d)
			}
			return
		}
	}
	t.Fatal("a minute of busy work counted under 100 ms of CPU time")
}

func TestCPUTimeOfAMissingProcessIsAnError(t *testing.T) {
	if _, err := cpuTime(1 << 30); err == nil {
		t.Fatal("no error for a pid that cannot exist")
	}
}
