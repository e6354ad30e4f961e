package conformance

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"

	"contractkit/conformance/exchange"
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

// entryRun is the report entry holding the RunInfo (JSON and JUnit reports).
const entryRun = "run"

func newRunInfo(cfg Config) RunInfo {
	return RunInfo{Info: version.Get(), Flags: cfg.flagLine()}
}

// String is the line the summary and the HTML report show.
func (i RunInfo) String() string {
	return fmt.Sprintf("contractkit %s\nflags: %s", i.Info, strings.Join(i.Flags, " "))
}

// flagLine renders the settings that differ from the defaults as flags. The
// keys are never written: a key flag shows only that it was given.
func (c Config) flagLine() []string {
	var out []string
	add := func(name, v string) {
		if v != "" {
			out = append(out, "--"+name+"="+v)
		}
	}
	add("base-url", exchange.NewRedactor(c.APIKey, c.APIKey2).String(c.BaseURL))
	if c.APIKey != "" {
		add("api-key", "<redacted>")
	}
	if c.APIKey2 != "" {
		add("api-key-2", "<redacted>")
	}
	add("junit", c.JUnit)
	add("json", c.JSON)
	add("html", c.HTML)
	add("coverage", c.Coverage)
	add("label-filter", c.LabelFilter)
	add("focus", c.Focus)
	if c.Timeout != DefaultTimeout && c.Timeout != 0 {
		add("timeout", c.Timeout.String())
	}
	if c.Explore != DefaultExplore {
		add("explore", fmt.Sprint(c.Explore))
	}
	if c.Explore > 0 && c.Seed != 0 {
		add("seed", fmt.Sprint(c.Seed))
	}
	if c.Strict {
		out = append(out, "--strict")
	}
	if c.Keep {
		out = append(out, "--keep")
	}
	return out
}

// addJUnitProperties judge.Records info as <property> elements of every test
// suite in the JUnit report at path, where CI systems show them.
func addJUnitProperties(path string, info RunInfo, cov *coverage.Report) error {
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
	for i := range suites.TestSuites {
		suites.TestSuites[i].Properties.Properties = append(suites.TestSuites[i].Properties.Properties, props...)
	}
	out, err := xml.MarshalIndent(suites, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(out, '\n')...), 0o644)
}
