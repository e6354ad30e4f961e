package main

import (
	"crypto/sha256"
	"os"
	"testing"
	"time"
)

// cpuTime reads this process's own CPU time, and it grows with work.
func TestCPUTimeGrowsWithWork(t *testing.T) {
	before, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(nil)
	for start := time.Now(); time.Since(start) < 200*time.Millisecond; {
		sum = sha256.Sum256(sum[:]) // busy: CPU time, not sleep
	}
	after, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := after - before; d < 50*time.Millisecond || d > 10*time.Second {
		t.Fatalf("200 ms of work counted as %v of CPU", d)
	}
}

func TestCPUTimeOfAMissingProcessIsAnError(t *testing.T) {
	if _, err := cpuTime(1 << 30); err == nil {
		t.Fatal("no error for a pid that cannot exist")
	}
}
