//go:build unix

package main

import (
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// When the launcher's pipe closes (the launcher died), the binary receives
// SIGTERM: the mock and the suite then stop as on a signal.
func TestALauncherGoneIsASIGTERM(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd, err := syscall.Dup(int(r.Fd())) // the watcher owns its descriptor, as it owns the launcher's
	if err != nil {
		t.Fatal(err)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	defer signal.Stop(sig)

	watchLauncher(func(k string) string {
		if k == launcherFD {
			return strconv.Itoa(fd)
		}
		return ""
	})
	select {
	case s := <-sig:
		t.Fatalf("got %v while the launcher is alive", s)
	case <-time.After(100 * time.Millisecond):
	}
	w.Close() // the launcher is gone
	select {
	case <-sig:
	case <-time.After(10 * time.Second):
		t.Fatal("no SIGTERM 10 s after the launcher's pipe closed")
	}
}

// Without the variable (a binary run by hand), nothing is watched.
func TestNoLauncherNoWatch(t *testing.T) {
	for _, v := range []string{"", "x", "1", "2", "65"} {
		watchLauncher(func(string) string { return v }) // must neither panic nor close a standard stream
	}
	if _, err := os.Stderr.Stat(); err != nil {
		t.Fatal(err)
	}
}
