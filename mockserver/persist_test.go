package mockserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/store"
	"contractkit/mockserver/wal"
)

// TestWriteFileAtomic: the file is replaced whole, or not at all when
// writing fails half-way; no temporary file is left behind either way.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte("old state"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := writeFileAtomic(path, func(w io.Writer) error {
		if _, err := w.Write([]byte(`{"version": 1, "acc`)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("a failing write got %v, want %v", err, boom)
	}
	if got, _ := os.ReadFile(path); string(got) != "old state" {
		t.Errorf("after a failed write the file holds %q, want the old state untouched", got)
	}
	wantOnly(t, dir, "state.json")

	if err := writeFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new state"); return err }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new state" {
		t.Errorf("after a write the file holds %q, want the new state", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the state file's mode got %v (%v), want 0600: it holds users' data", fi.Mode().Perm(), err)
	}
	wantOnly(t, dir, "state.json")

	if err := writeFileAtomic(filepath.Join(dir, "missing", "state.json"), func(io.Writer) error { return nil }); err == nil {
		t.Error("a write into a missing directory got no error")
	}
}

func wantOnly(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != name {
		t.Errorf("the directory holds %v, want only %s (no temporary file left)", names, name)
	}
}

// TestServerStateFile: a server with a state file creates it when missing,
// and another server restores it instead of preloading the fixtures again.
func TestServerStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	one := newTestServer(t, withConfig(func(c *Config) { c.StateFile = path }))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("New did not create the missing state file: %v", err)
	}
	c1 := one.client(t, testKey1)
	d := c1.createDataset("kept", fixtureFile(t, "pricing.json"))
	if err := one.srv.Close(); err != nil {
		t.Fatal(err)
	}

	two := newTestServer(t, withConfig(func(c *Config) { c.StateFile = path }))
	c2 := two.client(t, testKey1)
	if got, want := len(c2.datasets()), len(c1.datasets()); got != want {
		t.Errorf("the restored account lists %d datasets, want %d (restored, not preloaded on top)", got, want)
	}
	c2.dataset(d.ID).want(t, 200)
	if err := two.srv.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestServerRefusesABadStateFile: New fails with the file's name and leaves
// the file as it was.
func TestServerRefusesABadStateFile(t *testing.T) {
	for name, content := range map[string]string{
		"corrupt":         `{"version": 1, "accounts": [{"name": "account-1",`,
		"unknown version": `{"version": 99, "accounts": []}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := New(Config{StateFile: path, Clock: lifecycle.NewFakeClock(testEpoch)})
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("New got %v, want an error naming %s", err, path)
			}
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Errorf("the refused file now holds %q, want it untouched", got)
			}
		})
	}
}

// crashCopy copies the state files of a server that is still running (it
// is never closed: the copy is what a crash would leave, every answered
// change in the log) into a new directory, and returns the new path.
func crashCopy(t *testing.T, path string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), filepath.Base(path))
	for _, suffix := range []string{"", logSuffix, prevSuffix} {
		data, err := os.ReadFile(path + suffix)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to+suffix, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// logged starts a server on the state at path with its log lines in buf.
func logged(t *testing.T, path string, buf *bytes.Buffer) *testServer {
	t.Helper()
	return newTestServer(t, withConfig(func(c *Config) {
		c.StateFile = path
		c.Logger = slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}))
}

// TestAnsweredIsOnDisk: what the server answered is in the state files at
// once, without a shutdown: a server started on a copy of them (a crash
// leaves nothing more) shows it.
func TestAnsweredIsOnDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	one := newTestServer(t, withConfig(func(c *Config) { c.StateFile = path }))
	c1 := one.client(t, testKey1)
	d := c1.createDataset("kept", fixtureFile(t, "pricing.json"))
	m := c1.createModel(d.ID, "kept bot")
	conv := c1.createConversation(m.ID, "kept talk")
	c1.ask(map[string]any{"query": "What does the Starter plan cost?", "model_id": m.ID, "conversation_id": conv.ID})

	two := newTestServer(t, withConfig(func(c *Config) { c.StateFile = crashCopy(t, path) }))
	c2 := two.client(t, testKey1)
	c2.dataset(d.ID).want(t, 200)
	var msgs []store.MessageView
	c2.get("/api/v1/user/conversations/"+conv.ID+"/messages").want(t, 200).data(t, &msgs)
	if len(msgs) != 2 || msgs[1].Content == "" {
		t.Errorf("after the crash the streamed exchange got %+v, want the question and the answer sent", msgs)
	}
}

// TestTornLastRecordIsDropped: a log whose last record a crash cut short
// starts with a warning naming the file and the offset; every record
// before it is kept, and the torn bytes are gone from the files.
func TestTornLastRecordIsDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	one := newTestServer(t, withConfig(func(c *Config) { c.StateFile = path }))
	c1 := one.client(t, testKey1)
	d := c1.createDataset("before the tear", fixtureFile(t, "pricing.json"))
	copied := crashCopy(t, path)
	log, err := os.ReadFile(copied + logSuffix)
	if err != nil || len(log) == 0 {
		t.Fatalf("the log holds %d bytes (%v), want the dataset's record", len(log), err)
	}
	torn := `5c1e2a3b 99 {"account":"account-1","last_id":`
	if err := os.WriteFile(copied+logSuffix, append(log, torn...), 0o600); err != nil {
		t.Fatal(err)
	}

	var buf bytes.Buffer
	two := logged(t, copied, &buf)
	two.client(t, testKey1).dataset(d.ID).want(t, 200)
	warn := buf.String()
	for _, want := range []string{"level=WARN", "torn last record", copied + logSuffix, fmt.Sprintf("offset=%d", len(log)), fmt.Sprintf("bytes=%d", len(torn))} {
		if !strings.Contains(warn, want) {
			t.Errorf("the start's log got %q, want it to mention %q", warn, want)
		}
	}
	if after, _ := os.ReadFile(copied + logSuffix); bytes.Contains(after, []byte(torn)) {
		t.Error("the torn record is still in the log after the start")
	}
}

// TestCorruptRecordStopsTheStart: a damaged record with records after it
// is not a crash's trace: the start fails naming the log file and the
// record's offset, and leaves every file as it was.
func TestCorruptRecordStopsTheStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	one := newTestServer(t, withConfig(func(c *Config) { c.StateFile = path }))
	c1 := one.client(t, testKey1)
	for _, name := range []string{"one", "two", "three"} {
		c1.createDataset(name, fixtureFile(t, "pricing.json"))
	}
	copied := crashCopy(t, path)
	log, err := os.ReadFile(copied + logSuffix)
	if err != nil {
		t.Fatal(err)
	}
	second := bytes.IndexByte(log, '\n') + 1
	if bytes.Count(log, []byte{'\n'}) != 3 {
		t.Fatalf("the log holds %q, want three records", log)
	}
	bad := bytes.Clone(log)
	bad[second+20] ^= 0x01
	if err := os.WriteFile(copied+logSuffix, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	snap, _ := os.ReadFile(copied)

	_, err = New(Config{StateFile: copied, Keys: []string{testKey1}, Clock: lifecycle.NewFakeClock(testEpoch)})
	if err == nil || !strings.Contains(err.Error(), copied+logSuffix) || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", second)) {
		t.Fatalf("New got %v, want an error naming %s and offset %d", err, copied+logSuffix, second)
	}
	if got, _ := os.ReadFile(copied + logSuffix); !bytes.Equal(got, bad) {
		t.Error("the refused log was changed")
	}
	if got, _ := os.ReadFile(copied); !bytes.Equal(got, snap) {
		t.Error("the snapshot beside the refused log was changed")
	}
}

// TestLogFoldsIntoSnapshot: once the log has grown past its threshold (at
// least the snapshot's size) it is folded into the snapshot in the
// background: the snapshot holds its changes, the log starts over and the
// folded one is removed. SaveState folds at once.
func TestLogFoldsIntoSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	ts := newTestServer(t, withoutFixtures(), withConfig(func(c *Config) { c.StateFile = path; c.CompactBytes = 1 }))
	c := ts.client(t, testKey1)
	logSize := func() int64 {
		fi, err := os.Stat(path + logSuffix)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	// Without fixtures the first snapshot is a few hundred bytes: the
	// first dataset's record (its file's 2.5 kB of text) is past it.
	first := c.createDataset("folded", fixtureFile(t, "pricing.json"))
	holds := func(name string) bool {
		data, _ := os.ReadFile(path)
		return bytes.Contains(data, []byte(fmt.Sprintf(`"name":%q`, name)))
	}
	folded := func() bool {
		_, err := os.Stat(path + prevSuffix)
		return holds(first.Name) && errors.Is(err, os.ErrNotExist)
	}
	for deadline := time.Now().Add(10 * time.Second); !folded() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond) // polled, as Eventually does: the fold runs in the background
	}
	if !holds(first.Name) {
		t.Fatalf("the snapshot does not hold %q after the log passed its threshold", first.Name)
	}
	if _, err := os.Stat(path + prevSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folded log %s is still there (%v)", path+prevSuffix, err)
	}

	c.createDataset("saved now", fixtureFile(t, "pricing.json"))
	if err := ts.srv.SaveState(); err != nil {
		t.Fatal(err)
	}
	if n := logSize(); n != 0 {
		t.Errorf("after SaveState the log holds %d bytes, want none", n)
	}
	if !holds("saved now") {
		t.Error("after SaveState the snapshot does not hold the last dataset")
	}
}

// TestUnsavedChangeIsNotAnsweredAsSaved: when the log cannot be written,
// the answer is a 500 that says so, not the 200 of a change a crash would
// undo.
func TestUnsavedChangeIsNotAnsweredAsSaved(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	path := filepath.Join(t.TempDir(), "state.json")
	ts := newTestServer(t, withConfig(func(c *Config) { c.StateFile = path }), withHook(func(s *Server) {
		full, err := wal.Create("/dev/full", s.persist.next) // every write fails: no space left
		if err != nil {
			t.Skipf("cannot open /dev/full: %v", err)
		}
		s.persist.wal.Close()
		s.persist.wal = full
		s.store.SetLog(full)
	}))
	c := ts.client(t, testKey1)
	ct, body := multipartBody(t, [][2]string{{"dataset_name", "lost"}}, fixtureFile(t, "pricing.json"))
	c.do(http.MethodPost, "/api/v1/user/dataset", withBody(ct, body)).wantError(t, 500, "could not be saved", "no space left")
	c.get("/api/v1/user/dataset").wantError(t, 500, "could not be saved")
}

// TestCrashMidFold: a crash after the new snapshot was written but before
// the folded log was removed leaves a snapshot that already holds the old
// log's records: the start skips them, applies what came after, and goes
// on from the right sequence number.
func TestCrashMidFold(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	one := newTestServer(t, withConfig(func(c *Config) { c.StateFile = path }))
	c1 := one.client(t, testKey1)
	before := c1.createDataset("before the fold", fixtureFile(t, "pricing.json"))
	p := one.srv.persist
	if err := p.wal.Rotate(p.prevPath); err != nil {
		t.Fatal(err)
	}
	after := c1.createDataset("during the fold", fixtureFile(t, "pricing.json"))
	if _, err := p.writeSnapshot(); err != nil {
		t.Fatal(err)
	}
	// The crash: the folded log is still there.
	copied := crashCopy(t, path)
	if _, err := os.Stat(copied + prevSuffix); err != nil {
		t.Fatalf("the copy has no folded log: %v", err)
	}
	two := newTestServer(t, withConfig(func(c *Config) { c.StateFile = copied }))
	c2 := two.client(t, testKey1)
	c2.dataset(before.ID).want(t, 200)
	c2.dataset(after.ID).want(t, 200)
	next := c2.createDataset("after the restart", fixtureFile(t, "pricing.json"))
	if next.ID != after.ID+1 {
		t.Errorf("the first dataset after the restart got id %d, want %d", next.ID, after.ID+1)
	}
	three := newTestServer(t, withConfig(func(c *Config) { c.StateFile = crashCopy(t, copied) }))
	three.client(t, testKey1).dataset(next.ID).want(t, 200)
}
