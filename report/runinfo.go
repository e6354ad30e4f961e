package report

import (
	"fmt"
	"strings"

	"contractkit/internal/version"
)

// RunInfo says what judged the server: the kit's build, the contract it
// embeds and the flags of the run (keys redacted). Every report carries it,
// so a verdict can be traced to the exact contract it was taken against.
type RunInfo struct {
	version.Info
	// Flags are the run's settings as command-line flags, keys redacted.
	Flags []string `json:"flags"`
}

// NewRunInfo is this build's RunInfo for a run with flags (keys redacted).
func NewRunInfo(flags []string) RunInfo {
	return RunInfo{Info: version.Get(), Flags: flags}
}

// String is the line the summary and the HTML report show.
func (i RunInfo) String() string {
	return fmt.Sprintf("contractkit %s\nflags: %s", i.Info, strings.Join(i.Flags, " "))
}
