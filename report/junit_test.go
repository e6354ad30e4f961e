package report

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// junitRead is the JUnit structure CI systems read: test suites, their
// properties, test cases with a failure, error or skipped element and
// their system-err.
type junitRead struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Disabled int      `xml:"disabled,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Timestamp  string `xml:"timestamp,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Status    string `xml:"status,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Type string `xml:"type,attr"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemErr string `xml:"system-err"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitReport(t *testing.T) {
	r, o := fixtureRun()
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := WriteJUnitFile(path, r, o); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), testKey) {
		t.Fatal("the JUnit report shows the key")
	}
	if !strings.HasPrefix(string(raw), xml.Header) {
		t.Error("no XML header")
	}
	var j junitRead
	if err := xml.Unmarshal(raw, &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Suites) != 1 {
		t.Fatalf("%d test suites, want 1", len(j.Suites))
	}
	s := j.Suites[0]
	// Every check and the failed suite node is a test case.
	if s.Tests != len(r.Checks)+1 || j.Tests != s.Tests || len(s.Cases) != s.Tests {
		t.Errorf("tests %d (suites %d, cases %d), want %d", s.Tests, j.Tests, len(s.Cases), len(r.Checks)+1)
	}
	if j.Failures != 2 || j.Errors != 1 || s.Skipped != 2 || j.Disabled != 3 {
		t.Errorf("failures %d, errors %d, skipped %d, disabled %d; want 2 (a check, the AfterSuite), 1 (a panic), 2, 3",
			j.Failures, j.Errors, s.Skipped, j.Disabled)
	}
	if s.Name != "API conformance" || s.Timestamp != "2026-01-02T03:04:05" {
		t.Errorf("suite %q at %q", s.Name, s.Timestamp)
	}
	byName := map[string]int{}
	for i, c := range s.Cases {
		byName[c.Name] = i
		if c.Classname != "API conformance" {
			t.Errorf("%s: classname %q", c.Name, c.Classname)
		}
	}
	failed, ok := byName["[It] Area models MUST refuse <script>alert(1)</script> [models, declared, seed:1.1]"]
	if !ok {
		t.Fatalf("no test case for the failed check in %v", byName)
	}
	if c := s.Cases[failed]; c.Failure == nil || c.Failure.Type != "failed" || !strings.Contains(c.Failure.Message, "not a conforming success") ||
		!strings.Contains(c.Failure.Text, "at /src/conformance/models.go:42") || !strings.Contains(c.SystemErr, "reproduce:\nRequest:  GET") {
		t.Errorf("the failed check's test case: %+v", c)
	}
	if c := s.Cases[byName["[It] Area explore an explore property fails [explore, declared, seed:1.1]"]]; c.Error == nil || c.Error.Type != "panicked" {
		t.Errorf("the panicked check is no <error>: %+v", c)
	}
	if c := s.Cases[byName["[It] Area inference an inference check skipped [inference, declared, seed:1.1]"]]; c.Skipped == nil ||
		c.Skipped.Message != "skipped - the budget for inferences is spent" {
		t.Errorf("the skipped check: %+v", c)
	}
	if c := s.Cases[byName["[It] Area datasets a dataset differs [datasets, declared, seed:1.1]"]]; c.Failure != nil || c.Status != "decided-differs" ||
		!strings.Contains(c.SystemErr, "decided: differs (D-17") {
		t.Errorf("the decided difference: %+v", c)
	}
	if c := s.Cases[byName["[AfterSuite]"]]; c.Failure == nil || c.Failure.Message != "clean-up failed\nmore" {
		t.Errorf("the AfterSuite: %+v", c)
	}

	props := map[string]string{}
	for _, p := range s.Properties {
		props[p.Name] = p.Value
	}
	if props["SuiteSucceeded"] != "false" {
		t.Errorf("SuiteSucceeded = %q", props["SuiteSucceeded"])
	}
	if got := props["contract.sha256"]; got != r.Info.ContractSHA256 || len(got) != 64 {
		t.Errorf("contract.sha256 = %q, want %q", got, r.Info.ContractSHA256)
	}
	if got := props["conformance.flags"]; !slices.Contains(strings.Fields(got), "--strict") {
		t.Errorf("conformance.flags = %q, want --strict in it", got)
	}
	if got := props["contract.coverage"]; got != r.Coverage.Line() {
		t.Errorf("contract.coverage = %q, want %q", got, r.Coverage.Line())
	}
	if got := props[PropertySpent]; got != r.Spent.Line() || !strings.Contains(got, "models 1/1 created 1 started 0 removed 1 denied 1") {
		t.Errorf("%s = %q, want %q", PropertySpent, got, r.Spent.Line())
	}
	for _, p := range []string{"contractkit.version", "contractkit.revision", "contract.version"} {
		if _, ok := props[p]; !ok {
			t.Errorf("no property %s", p)
		}
	}
	if err := WriteJUnitFile(filepath.Join(t.TempDir(), "no", "such", "dir.xml"), r, o); err == nil {
		t.Error("an unwritable path must be an error")
	}
}
