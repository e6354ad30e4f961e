package mockserver

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/store"
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

// TestSaverDebounces: a change is written once the delay has passed, not
// before; a burst of changes costs one write; Close writes what is left.
// The delay is a channel the test fires, so nothing sleeps.
func TestSaverDebounces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	st := store.New(store.Config{Clock: lifecycle.NewFakeClock(testEpoch)})
	sv := newSaver(path, st, slog.New(slog.DiscardHandler), time.Second)
	armed := make(chan time.Duration, 1)
	tick := make(chan time.Time)
	saved := make(chan error, 1)
	sv.after = func(d time.Duration) <-chan time.Time { armed <- d; return tick }
	sv.saved = func(err error) { saved <- err }
	if err := sv.Flush(); err != nil {
		t.Fatal(err)
	}
	// Drop the signals of before the first write, before run can take one.
	select {
	case <-st.Changed():
	default:
	}
	sv.started.Store(true)
	go sv.run()
	accounts := func() string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	st.Account("account-1").Advance(time.Minute)
	st.Account("account-2")
	if d := wait(t, armed); d != time.Second {
		t.Errorf("the saver waits %v, want the configured delay 1s", d)
	}
	if got := accounts(); strings.Contains(got, "account-1") {
		t.Fatalf("the file was written before the delay passed: %s", got)
	}
	tick <- time.Now()
	if err := wait(t, saved); err != nil {
		t.Fatal(err)
	}
	if got := accounts(); !strings.Contains(got, "account-1") || !strings.Contains(got, "account-2") || !strings.Contains(got, `"clock_offset_ns":60000000000`) {
		t.Errorf("after the delay the file got %s, want both accounts and the advanced clock", got)
	}
	select {
	case d := <-armed:
		t.Errorf("the burst armed a second save (%v)", d)
	default:
	}

	st.Account("account-3")
	wait(t, armed) // the saver waits for its delay; Close must not
	if err := sv.Close(); err != nil {
		t.Fatal(err)
	}
	if got := accounts(); !strings.Contains(got, "account-3") {
		t.Errorf("after Close the file got %s, want the last change", got)
	}
	if err := sv.Close(); err != nil {
		t.Errorf("a second Close got %v", err)
	}
}

func wait[T any](t *testing.T, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("timed out")
		panic("unreachable")
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
