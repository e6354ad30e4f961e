package conformance

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"

	"contractkit/coverage"
)

func TestFlagLineRedactsKeys(t *testing.T) {
	cfg := Config{BaseURL: "http://127.0.0.1:1/?k=secret-one", APIKey: "secret-one", APIKey2: "secret-two",
		JUnit: "r.xml", Timeout: 30 * time.Second, Strict: true, LabelFilter: "auth"}
	got := strings.Join(cfg.flagLine(), " ")
	for _, key := range []string{"secret-one", "secret-two"} {
		if strings.Contains(got, key) {
			t.Fatalf("flag line %q shows a key", got)
		}
	}
	for _, want := range []string{"--api-key=<redacted>", "--api-key-2=<redacted>", "--junit=r.xml", "--timeout=30s", "--strict", "--label-filter=auth"} {
		if !strings.Contains(got, want) {
			t.Errorf("flag line %q lacks %q", got, want)
		}
	}
	if def := strings.Join(Config{BaseURL: "http://x", Timeout: DefaultTimeout}.flagLine(), " "); strings.Contains(def, "timeout") {
		t.Errorf("the default timeout is not a flag the run used: %q", def)
	}
}

func TestAddJUnitProperties(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junit.xml")
	in := reporters.JUnitTestSuites{TestSuites: []reporters.JUnitTestSuite{{Name: "API conformance",
		Properties: reporters.JUnitProperties{Properties: []reporters.JUnitProperty{{Name: "SuiteSucceeded", Value: "true"}}}}}}
	raw, _ := xml.Marshal(in)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	info := newRunInfo(Config{BaseURL: "http://x", APIKey: "k-secret", Strict: true})
	cov := &coverage.Report{Totals: coverage.Totals{Operations: 23, OperationsCalled: 20, Statuses: 4, StatusesSeen: 3, Fields: 9, FieldsObserved: 8}}
	if err := addJUnitProperties(path, info, cov); err != nil {
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
	if err := addJUnitProperties(filepath.Join(t.TempDir(), "missing.xml"), info, nil); err == nil {
		t.Error("a missing report must be an error")
	}
}
