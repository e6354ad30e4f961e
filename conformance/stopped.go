package conformance

import (
	"fmt"
	"io"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"contractkit/report"
)

// How a run ends early, whatever the server does: a server that stopped
// answering has the rest of its area skipped (the client's stall
// detector), --deadline, SIGINT and SIGTERM interrupt the run and the
// reports are still written with what ran.

// cleanupGrace is how long each clean-up node may run once the run is
// interrupted (Ginkgo's grace period): removing what a check made is one
// or two requests, each bounded by the request timeout.
const cleanupGrace = 30 * time.Second

// areaCleanup is the area of the suite's final clean-up.
const areaCleanup = "clean-up"

// areaOf is the area of a check: its top-level container ("Models").
func areaOf(r types.SpecReport) string {
	if len(r.ContainerHierarchyTexts) == 0 {
		return r.LeafNodeText
	}
	return r.ContainerHierarchyTexts[0]
}

// skipStopped skips a check whose area's server stopped answering (or the
// whole server), with the reason, instead of waiting out its timeouts.
func (e *env) skipStopped() {
	if e.client == nil {
		return
	}
	if reason, stopped := e.client.Stopped(areaOf(CurrentSpecReport())); stopped {
		Skip(reason)
	}
}

// writeStopped tells why a run ended early (--deadline, a signal): the
// reports hold what ran before.
func writeStopped(out io.Writer, r report.Run) {
	if len(r.Stopped) == 0 {
		return
	}
	fmt.Fprintf(out, "conformance: the run was stopped (%s); the reports hold what ran before\n",
		strings.Join(r.Stopped, "; "))
}
