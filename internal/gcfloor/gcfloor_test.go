package gcfloor

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercentPutsTheTargetAtTheFloor(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		want        int
	}{
		{12 * mb, 64 * mb, 433},  // small heap: the target is the floor
		{32 * mb, 64 * mb, 100},  // target 2 x 32 = 64: the floor is met by GOGC alone
		{40 * mb, 64 * mb, 100},  // never below base
		{150 * mb, 64 * mb, 100}, // thousands of streams: unchanged
		{1 * mb, 64 * mb, 1000},  // near empty: bounded
		{0, 64 * mb, 100},        // unknown: base
	} {
		if got := Percent(c.live, c.floor, 100, maxPercent); got != c.want {
			t.Errorf("Percent(live %d MB, floor %d MB) = %d, want %d", c.live/mb, c.floor/mb, got, c.want)
		}
	}
}

// The tuner raises GOGC for this test binary's small heap after a
// collection, and Stop puts the base back.
func TestTunerFollowsCollections(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	tu := Start(256<<20, 100)
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for tu.Current() == 100 { // the finalizer runs on its own goroutine
		if time.Now().After(deadline) {
			t.Fatal("GOGC still 100 after a collection with a small heap and a 256 MB floor")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := debug.SetGCPercent(tu.Current()); got != tu.Current() {
		t.Errorf("GOGC in force is %d, the tuner says %d", got, tu.Current())
	}
	tu.Stop()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after Stop GOGC is %d, want the base 100", got)
	}
}
