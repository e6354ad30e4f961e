//go:build unix

package main

import (
	"io"
	"os"
	"strconv"
	"syscall"
)

// launcherFD names the pipe the npm package's launcher (npm/mock/bin/
// contractkit.js) hands this binary as an extra descriptor. The launcher
// starts the binary in a process group of its own and passes on each signal
// it gets, so that a signal sent to the whole group (a terminal's Ctrl-C, a
// CI runner or Playwright stopping the job) reaches the binary once, not
// twice: a second interrupt would make the conformance suite skip its
// clean-up. Outside the group, the binary would outlive a launcher killed
// with SIGKILL (Playwright's default for a webServer); the pipe closes when
// the launcher dies, however it dies, and the binary then stops as on
// SIGTERM.
const launcherFD = "CONTRACTKIT_LAUNCHER_FD"

// watchLauncher starts watching the launcher's pipe, when there is one.
func watchLauncher(getenv func(string) string) {
	n, err := strconv.Atoi(getenv(launcherFD))
	if err != nil || n < 3 || n > 64 {
		return
	}
	os.Unsetenv(launcherFD)
	f := os.NewFile(uintptr(n), "launcher")
	if f == nil {
		return
	}
	go func() {
		_, _ = io.Copy(io.Discard, f) // the launcher never writes: this returns when it is gone
		f.Close()
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
}
