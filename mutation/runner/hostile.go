package runner

import (
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"contractkit/internal/childserver"
	"contractkit/mutation"
)

// A hostile server (mutation.Hostile: it hangs, floods or drips) is not
// judged by pass or fail alone: the suite must end against it with exit 1
// and readable reports (JSON and JUnit parsed), within HostileTime and
// within its --max-memory plus HostileMemorySlack of peak resident memory
// (the kernel's high-water mark of the child, what a CI runner's
// out-of-memory killer sees), whatever the server does. Each runs
// bounded: the checks of its area only (the rest is the unbroken mock,
// which the baseline proves), a short --timeout and a --deadline, so the
// class adds little to a default run. The explore phase is off, but for a
// server of the area "explore": its phase alone runs, with a small budget
// (the reference model's part reads every operation's answer, so a server
// whose every answer never ends shows there what many such answers in a
// row cost).
const (
	// HostileTime is the ceiling of one hostile run (suite alone): a
	// safety limit the bounds keep it well under, not a performance goal.
	HostileTime = 45 * time.Second
	// HostileMaxMemory is the suite's --max-memory in a hostile run: its
	// default (bound.SuiteMemory), the bound a user relies on.
	HostileMaxMemory = 512 << 20
	// HostileMemorySlack is what the suite's peak resident memory may pass
	// its --max-memory by: the runtime's own (the binary, stacks, its
	// metadata) beside the heap the bound is about.
	HostileMemorySlack = 64 << 20
	// HostileMemory is the ceiling of the suite's peak resident memory
	// against a hostile server.
	HostileMemory = HostileMaxMemory + HostileMemorySlack
	// hostileTimeout and hostileDeadline are the suite's --timeout and
	// --deadline in a hostile run; hostileExplore its --explore in the
	// explore area.
	hostileTimeout  = 5 * time.Second
	hostileDeadline = 30 * time.Second
	hostileExplore  = 100
)

// hostileArgs are the suite's flags for a hostile run of m, its JUnit
// report written to junit.
func hostileArgs(m mutation.Mutant, junit string) []string {
	explore := 0
	if m.Area == "explore" {
		explore = hostileExplore
	}
	return []string{"--explore", fmt.Sprint(explore), "--label-filter", m.Area, "--junit", junit, "--timeout", hostileTimeout.String(),
		"--deadline", hostileDeadline.String(), "--max-memory", fmt.Sprint(HostileMaxMemory >> 20)}
}

// judgeHostile says what a hostile run broke of its expectation: an exit
// other than 1, a report that cannot be read, or a run over its ceilings.
func judgeHostile(exit int, took time.Duration, rss int64, junit string, out *childserver.Tail) error {
	var errs []error
	if exit != 1 {
		errs = append(errs, fmt.Errorf("conformance exited %d, want 1: %s", exit, out.Last()))
	}
	if err := readJUnit(junit); err != nil {
		errs = append(errs, fmt.Errorf("conformance --junit: %w", err))
	}
	if took > HostileTime {
		errs = append(errs, fmt.Errorf("the run took %s, over %s", took.Round(time.Second), HostileTime))
	}
	if rss > HostileMemory {
		errs = append(errs, fmt.Errorf("the suite's peak resident memory was %d MiB, over its --max-memory %d MiB + %d MiB", rss>>20, HostileMaxMemory>>20, HostileMemorySlack>>20))
	}
	return errors.Join(errs...)
}

// readJUnit checks that path is a JUnit report with at least one test case.
func readJUnit(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var suites struct {
		Suites []struct {
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		return err
	}
	for _, s := range suites.Suites {
		if len(s.Cases) > 0 {
			return nil
		}
	}
	return errors.New("no test case")
}

// peakRSS is the child's peak resident memory in bytes (0 when the system
// does not say).
func peakRSS(cmd *exec.Cmd) int64 {
	if cmd.ProcessState == nil {
		return 0
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return ru.Maxrss << 10 // kilobytes on Linux
}
