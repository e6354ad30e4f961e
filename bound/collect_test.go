package bound

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

// spaces is an endless body: whitespace without end.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// trickle hands out its data a few bytes a read, as a network does.
type trickle struct{ data []byte }

func (t *trickle) Read(p []byte) (int, error) {
	if len(t.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 7)], t.data)
	t.data = t.data[n:]
	return n, nil
}

func TestCollectReadsWhatEverySizeSays(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 1000)
	for _, c := range []struct {
		name        string
		size, limit int64
	}{
		{"announced", int64(len(body)), 1 << 20},
		{"announced short of the truth", 100, 1 << 20},
		{"not announced", -1, 1 << 20},
		{"not announced, no bound", -1, 0},
		{"announced over the bound", 1 << 30, 1 << 20},
	} {
		got, err := Collect(&trickle{data: body}, c.size, c.limit, true)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s: %d bytes, %v; want the %d bytes", c.name, len(got), err, len(body))
		}
	}
	if got, err := Collect(strings.NewReader(""), 0, 1<<20, true); err != nil || got == nil || len(got) != 0 {
		t.Errorf("an empty body: %v, %v; want an empty, non-nil slice", got, err)
	}
}

// The slice Collect returns is the caller's: a later read into the same
// pool does not change it.
func TestCollectNeverHandsOutItsScratch(t *testing.T) {
	first, _ := Collect(strings.NewReader("first answer"), -1, 1<<20, true)
	Collect(strings.NewReader("SECOND ANSWER, LONGER"), -1, 1<<20, true)
	if string(first) != "first answer" {
		t.Fatalf("the first answer now reads %q", first)
	}
	if cap(first) > 64 {
		t.Errorf("a 12-byte answer holds a %d-byte buffer", cap(first))
	}
}

// A body cut by its byte bound keeps its first CutKept bytes when asked
// (trim), all it read otherwise (ReadAll).
func TestCollectTrimsACutBody(t *testing.T) {
	lim := Limits{Bytes: 1 << 20}
	got, err := Collect(NewReader(spaces{}, lim, nil), -1, lim.Bytes, true)
	wantReason(t, err, OverBody)
	if len(got) != CutKept || cap(got) != CutKept {
		t.Errorf("a cut body keeps %d bytes (capacity %d), want %d", len(got), cap(got), CutKept)
	}
	all, err := ReadAll(spaces{}, lim, nil)
	wantReason(t, err, OverBody)
	if len(all) != 1<<20 {
		t.Errorf("ReadAll kept %d bytes of a cut body, want the bound's 1 MiB", len(all))
	}
}

// Reading answers cut at their bound again and again allocates one
// scratch buffer of the bound and what each keeps, not a bound's worth (or
// twice that, growing) per answer: the memory a run against a server whose
// every answer is endless needs does not grow with the answers it reads.
func TestCollectAllocatesLittlePerCutAnswer(t *testing.T) {
	lim := Limits{Bytes: 8 << 20}
	read := func() {
		if _, err := Collect(NewReader(spaces{}, lim, nil), -1, lim.Bytes, true); err == nil {
			t.Fatal("an endless body was not cut")
		}
	}
	read() // the pool's first buffer
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const answers = 20
	for range answers {
		read()
	}
	runtime.ReadMemStats(&after)
	perAnswer := (after.TotalAlloc - before.TotalAlloc) / answers
	t.Logf("%d KiB allocated per answer cut at 8 MiB", perAnswer>>10)
	// A pool may drop its buffer at a collection: one more 8 MiB buffer
	// over the loop is allowed, not one per answer. The race detector
	// makes sync.Pool drop a quarter of what it is given at random, on
	// purpose: there, about a quarter of the answers allocate a new buffer
	// (three quarters is all but impossible), still well under the bound's
	// worth or more of each answer read by growing.
	allowed := uint64(CutKept + (8<<20)/answers + 16<<10)
	if raceEnabled {
		allowed += 3 * (8 << 20) / 4
	}
	if perAnswer > allowed {
		t.Errorf("%d KiB allocated per answer cut at 8 MiB, want about %d KiB", perAnswer>>10, CutKept>>10)
	}
}
