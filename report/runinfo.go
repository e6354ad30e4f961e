package report

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"

	"contractkit/coverage"
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

// AddJUnitProperties records info (and cov's line, when not nil) as
// <property> elements of every test suite in the JUnit report at path,
// where CI systems show them.
func AddJUnitProperties(path string, info RunInfo, cov *coverage.Report, extra ...reporters.JUnitProperty) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal(raw, &suites); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	props := []reporters.JUnitProperty{
		{Name: "contractkit.version", Value: info.Module},
		{Name: "contractkit.revision", Value: info.Revision},
		{Name: "contract.version", Value: info.Contract},
		{Name: "contract.sha256", Value: info.ContractSHA256},
		{Name: "conformance.flags", Value: strings.Join(info.Flags, " ")},
	}
	if cov != nil {
		props = append(props, reporters.JUnitProperty{Name: "contract.coverage", Value: cov.Line()})
	}
	props = append(props, extra...)
	for i := range suites.TestSuites {
		suites.TestSuites[i].Properties.Properties = append(suites.TestSuites[i].Properties.Properties, props...)
	}
	out, err := xml.MarshalIndent(suites, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(out, '\n')...), 0o644)
}
