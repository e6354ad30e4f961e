package wal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

type rec struct {
	seq  uint64
	data string
}

func replayAll(t *testing.T, path string, after uint64) ([]rec, Replayed) {
	t.Helper()
	var got []rec
	r, err := Replay(path, after, func(seq uint64, p []byte) error {
		got = append(got, rec{seq, string(p)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, r
}

func create(t *testing.T, next uint64) (*Log, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.json.log")
	l, err := Create(path, next)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

// TestAppendWaitReplay: what Wait has waited for is in the file, in order,
// with growing sequence numbers from the one Create was given, and the
// file is its owner's only.
func TestAppendWaitReplay(t *testing.T) {
	l, path := create(t, 41)
	for i := range 5 {
		if seq := l.Append(fmt.Appendf(nil, `{"n":%d}`, i)); seq != uint64(41+i) {
			t.Fatalf("record %d got sequence number %d, want %d", i, seq, 41+i)
		}
	}
	if err := l.Wait(); err != nil {
		t.Fatal(err)
	}
	got, r := replayAll(t, path, 0)
	if len(got) != 5 || got[0] != (rec{41, `{"n":0}`}) || got[4] != (rec{45, `{"n":4}`}) || r.Last != 45 || r.TornBytes != 0 {
		t.Fatalf("replay got %v (%+v), want records 41..45", got, r)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the log's mode got %v (%v), want 0600: it holds users' data", fi.Mode().Perm(), err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l.Append([]byte(`{"late":true}`))
	if err := l.Wait(); !errors.Is(err, ErrClosed) {
		t.Errorf("Wait for a record appended after Close got %v, want ErrClosed", err)
	}
	if got, _ := replayAll(t, path, 0); len(got) != 5 {
		t.Errorf("a record appended after Close reached the file: %v", got)
	}
}

// gate is a file whose first Sync waits until the test opens the gate.
type gate struct {
	file
	once    sync.Once
	entered chan struct{}
	open    chan struct{}
}

func (g *gate) Sync() error {
	g.once.Do(func() {
		close(g.entered)
		<-g.open
	})
	return g.file.Sync()
}

// TestGroupCommit: records appended while an fsync is under way are
// written together, with one more fsync, and each waiter returns once its
// record is on disk.
func TestGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	f, err := createFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{file: f, entered: make(chan struct{}), open: make(chan struct{})}
	l := start(path, g, 1)
	defer l.Close()
	l.Append([]byte(`"first"`))
	<-g.entered // the first batch is being synced
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			l.Append(fmt.Appendf(nil, `%d`, i))
			if err := l.Wait(); err != nil {
				t.Error(err)
			}
		})
	}
	for l.appended.Load() != n+1 { // every record is in the buffer
		runtime.Gosched()
	}
	close(g.open)
	wg.Wait()
	if records, syncs := l.Stats(); records != n+1 || syncs != 2 {
		t.Errorf("got %d records in %d fsyncs, want %d in 2", records, syncs, n+1)
	}
}

// failing fails every write.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }
func (failing) Sync() error               { return nil }
func (failing) Close() error              { return nil }

// TestWriteErrorSticks: a failed write fails every Wait after it, naming
// the file: nothing later may be answered as saved.
func TestWriteErrorSticks(t *testing.T) {
	l := start("/state/state.json.log", failing{}, 1)
	defer l.Close()
	for range 2 {
		l.Append([]byte(`{}`))
		err := l.Wait()
		if err == nil || !strings.Contains(err.Error(), "no space left") || !strings.Contains(err.Error(), "/state/state.json.log") {
			t.Fatalf("Wait got %v, want the write error naming the file", err)
		}
	}
	if err := l.Rotate("/state/prev"); err == nil {
		t.Error("Rotate after a write error got nil")
	}
}

// TestRotate: records before and after a rotation are in the old and the
// new file, all of them, in order.
func TestRotate(t *testing.T) {
	l, path := create(t, 1)
	prev := path + ".prev"
	l.Append([]byte(`"a"`))
	l.Append([]byte(`"b"`))
	if err := l.Rotate(prev); err != nil {
		t.Fatal(err)
	}
	l.Append([]byte(`"c"`))
	if err := l.Wait(); err != nil {
		t.Fatal(err)
	}
	old, r := replayAll(t, prev, 0)
	cur, _ := replayAll(t, path, r.Last)
	if len(old) != 2 || len(cur) != 1 || cur[0] != (rec{3, `"c"`}) {
		t.Errorf("after a rotation got %v and %v, want a, b then c", old, cur)
	}
}

// TestFull: Full is signalled once the file reaches the threshold, and a
// rotation starts the count again.
func TestFull(t *testing.T) {
	l, path := create(t, 1)
	l.SetThreshold(100)
	l.Append(bytes.Repeat([]byte("x"), 40))
	if err := l.Wait(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Full():
		t.Fatal("Full signalled below the threshold")
	default:
	}
	l.Append(bytes.Repeat([]byte("y"), 80))
	if err := l.Wait(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Full():
	default:
		t.Fatal("Full not signalled past the threshold")
	}
	if err := l.Rotate(path + ".prev"); err != nil {
		t.Fatal(err)
	}
	l.Append([]byte("z"))
	if err := l.Wait(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Full():
		t.Error("Full signalled for a new file below the threshold")
	default:
	}
}

// written returns a closed log's file holding records "a", "b", "c".
func written(t *testing.T) (string, []byte) {
	t.Helper()
	l, path := create(t, 1)
	for _, s := range []string{`"a"`, `"b"`, `"c"`} {
		l.Append([]byte(s))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// TestTornLastRecord: whatever a crash mid-append leaves at the end (a
// record cut short, a bad checksum, zeros) is dropped and reported, and
// every record before it is kept.
func TestTornLastRecord(t *testing.T) {
	path, data := written(t)
	good := int64(len(data))
	for name, tail := range map[string]string{
		"cut short":     "1234abcd 4 {\"half",
		"bad checksum":  "00000000 4 \"d\"\n",
		"zeros":         "\x00\x00\x00\x00\x00\x00",
		"zeros, lines":  "\x00\x00\n\x00\x00\n",
		"no checksum":   "\"d\"\n",
		"half a number": "1f",
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, append(append([]byte(nil), data...), tail...), 0o600); err != nil {
				t.Fatal(err)
			}
			got, r := replayAll(t, path, 0)
			if len(got) != 3 || r.Last != 3 {
				t.Errorf("got %v, want the three good records", got)
			}
			if r.TornAt != good || r.TornBytes != int64(len(tail)) {
				t.Errorf("torn record reported at %d (%d bytes), want at %d (%d bytes)", r.TornAt, r.TornBytes, good, len(tail))
			}
		})
	}
}

// TestCorruptRecord: a damaged record with good ones after it is not a
// crash's trace: Replay stops with the file and the record's offset.
func TestCorruptRecord(t *testing.T) {
	path, data := written(t)
	second := bytes.IndexByte(data, '\n') + 1
	cases := map[string][]byte{
		"flipped byte": func() []byte {
			d := append([]byte(nil), data...)
			d[second+len("00000000 2 ")] ^= 0x20
			return d
		}(),
		"sequence goes back": bytes.Replace(data, data[second:second+bytes.IndexByte(data[second:], '\n')+1], appendFrame(nil, 1, []byte(`"b"`)), 1),
	}
	for name, d := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, d, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Replay(path, 0, func(uint64, []byte) error { return nil })
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.File != path || ce.Offset != int64(second) {
				t.Fatalf("Replay got %v, want a CorruptError for %s at offset %d", err, path, second)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprint("offset ", second)) {
				t.Errorf("the error %q does not name the file and the offset", err)
			}
		})
	}
	t.Run("apply refuses", func(t *testing.T) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Replay(path, 0, func(seq uint64, _ []byte) error {
			if seq == 2 {
				return errors.New("no such dataset")
			}
			return nil
		})
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.Offset != int64(second) || !strings.Contains(err.Error(), "no such dataset") {
			t.Fatalf("Replay got %v, want the apply error at offset %d", err, second)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		r, err := Replay(filepath.Join(t.TempDir(), "none"), 7, func(uint64, []byte) error { return errors.New("called") })
		if err != nil || r.Records != 0 || r.Last != 7 {
			t.Fatalf("a missing log got %+v, %v; want an empty one", r, err)
		}
	})
}

// TestAppendRefusesANewline: a record is one line.
func TestAppendRefusesANewline(t *testing.T) {
	l, _ := create(t, 1)
	defer func() {
		if recover() == nil {
			t.Error("a record with a newline was taken")
		}
	}()
	l.Append([]byte("two\nlines"))
}
