package retrieval

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// bombPDF is a one-page PDF whose content stream is a few MiB at most of
// Flate data that inflates to n copies of unit: an interpreter that does not
// watch the clock works through all of it.
func bombPDF(t *testing.T, unit string, n int) []byte {
	t.Helper()
	var z bytes.Buffer
	w, err := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	block := []byte(strings.Repeat(unit, (1<<20)/len(unit)))
	for range n * len(unit) / len(block) {
		if _, err := w.Write(block); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	stream := fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes())
	return pdfFile(t, []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
		stream,
	})
}

// A file whose extraction works past its budget fails with ErrTimeBudget,
// and promptly: the budget is watched inside the content stream (every 256
// operators and at each read), so a bomb stops after the budget's worth of
// looks at the clock, not at its end.
func TestExtractTimeBudget(t *testing.T) {
	cases := map[string][]byte{
		"operators":  bombPDF(t, "q Q\n", 64<<20/4),     // 16 M operators, no text
		"whitespace": bombPDF(t, "        ", 256<<20/8), // 256 MiB of nothing at all
	}
	for name, file := range cases {
		t.Run(name, func(t *testing.T) {
			// Work measured on a clock that moves a millisecond at each
			// look: a bomb stops only if its loop looks at the budget,
			// whatever the machine's load (no wall-clock bound).
			clock := &fakeNow{t: time.Unix(0, 0)}
			step := func() time.Time { clock.t = clock.t.Add(time.Millisecond); return clock.t }
			_, err := Extract("bomb.pdf", bytes.NewReader(file), Limits{MaxDuration: 50 * time.Millisecond, now: step})
			if !errors.Is(err, ErrTimeBudget) {
				t.Fatalf("error got %v, want ErrTimeBudget", err)
			}
		})
	}
}

// Time spent waiting for the upload's bytes is not work: a slow client with
// an honest file is not failed.
func TestExtractTimeBudgetExcludesWaiting(t *testing.T) {
	clock := &fakeNow{t: time.Unix(0, 0)}
	r := &slowReader{r: strings.NewReader(strings.Repeat("A line of plain text.\n", 50)), clock: clock, wait: 20 * time.Millisecond}
	doc, err := Extract("notes.txt", r, Limits{MaxDuration: 10 * time.Millisecond, now: clock.now})
	if err != nil {
		t.Fatalf("error got %v, want none (the time was the client's)", err)
	}
	if doc.Rows != 50 {
		t.Errorf("rows got %d, want 50", doc.Rows)
	}
}

// slowReader hands out a few bytes at a time, each after a wait on a fake
// clock, like a client on a slow link.
type slowReader struct {
	r     *strings.Reader
	clock *fakeNow
	wait  time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	s.clock.t = s.clock.t.Add(s.wait)
	return s.r.Read(p[:min(len(p), 256)])
}

type fakeNow struct{ t time.Time }

func (f *fakeNow) now() time.Time { return f.t }

// The same slow reads counted as work fail the file: the test above can fail.
func TestExtractTimeBudgetCountsWork(t *testing.T) {
	clock := &fakeNow{t: time.Unix(0, 0)}
	r := &slowReader{r: strings.NewReader(strings.Repeat("A line of plain text.\n", 50)), clock: clock}
	work := func() time.Time { clock.t = clock.t.Add(20 * time.Millisecond); return clock.t }
	_, err := Extract("notes.txt", r, Limits{MaxDuration: 10 * time.Millisecond, now: work})
	if !errors.Is(err, ErrTimeBudget) {
		t.Fatalf("error got %v, want ErrTimeBudget", err)
	}
}
