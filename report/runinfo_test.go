package report

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/reporters"

	"contractkit/coverage"
)

func TestAddJUnitProperties(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junit.xml")
	in := reporters.JUnitTestSuites{TestSuites: []reporters.JUnitTestSuite{{Name: "API conformance",
		Properties: reporters.JUnitProperties{Properties: []reporters.JUnitProperty{{Name: "SuiteSucceeded", Value: "true"}}}}}}
	raw, _ := xml.Marshal(in)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	info := NewRunInfo([]string{"--base-url=http://x", "--api-key=<redacted>", "--strict"})
	cov := &coverage.Report{Totals: coverage.Totals{Operations: 23, OperationsCalled: 20, Statuses: 4, StatusesSeen: 3, Fields: 9, FieldsObserved: 8}}
	if err := AddJUnitProperties(path, info, cov); err != nil {
		t.Fatal(err)
	}
	raw, _ = os.ReadFile(path)
	if strings.Contains(string(raw), "k-secret") {
		t.Fatal("the JUnit report shows the key")
	}
	var out reporters.JUnitTestSuites
	if err := xml.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	props := out.TestSuites[0].Properties
	if props.WithName("SuiteSucceeded") != "true" {
		t.Error("Ginkgo's own properties must stay")
	}
	if got := props.WithName("contract.sha256"); got != info.ContractSHA256 || len(got) != 64 {
		t.Errorf("contract.sha256 = %q, want %q", got, info.ContractSHA256)
	}
	if got := props.WithName("conformance.flags"); !slices.Contains(strings.Fields(got), "--strict") {
		t.Errorf("conformance.flags = %q, want --strict in it", got)
	}
	if got := props.WithName("contract.coverage"); got != cov.Line() || !strings.Contains(got, "20/23 operations called") {
		t.Errorf("contract.coverage = %q, want %q", got, cov.Line())
	}
	if err := AddJUnitProperties(filepath.Join(t.TempDir(), "missing.xml"), info, nil); err == nil {
		t.Error("a missing report must be an error")
	}
}
