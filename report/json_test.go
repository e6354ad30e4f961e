package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The JSON report holds the model whole: read back, it is the run written
// (the keys redacted), findings, differences and exchanges as values.
func TestJSONReportRoundTrips(t *testing.T) {
	r, o := fixtureRun()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteJSONFile(path, r, o); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), testKey) {
		t.Fatal("the JSON report shows the key")
	}
	var head struct {
		Schema string `json:"schema"`
		Counts Tally  `json:"counts"`
		Checks []struct {
			Findings []map[string]any `json:"findings"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		t.Fatal(err)
	}
	if head.Schema != Schema || head.Counts.Total != r.Tally().Total || head.Counts.ByArea["models"].Passed != 5 {
		t.Errorf("schema %q, counts %+v", head.Schema, head.Counts)
	}
	if f := head.Checks[6].Findings; len(f) != 1 || f[0]["pointer"] != "/status" || f[0]["text"] == "" {
		t.Errorf("the failed check's findings as objects: %v", f)
	}

	got, err := ReadJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	want := o.redact(r)
	if !reflect.DeepEqual(got.Checks, want.Checks) {
		for i := range want.Checks {
			if !reflect.DeepEqual(got.Checks[i], want.Checks[i]) {
				t.Errorf("check %d read back:\n%+v\nwant\n%+v", i, got.Checks[i], want.Checks[i])
			}
		}
	}
	got.Checks, want.Checks = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("run read back:\n%+v\nwant\n%+v", got, want)
	}
}

// A report of another format is refused, never read as an empty run:
// Ginkgo's list of suite reports (the format before this one), another
// major version, no schema, not JSON.
func TestReadJSONRefusesOtherFormats(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"ginkgo":    `[{"SuitePath":"/x","SuiteSucceeded":true,"SpecReports":[]}]`,
		"v2":        `{"schema":"contractkit/report/v2","succeeded":true,"checks":[]}`,
		"no schema": `{"succeeded":true,"checks":[]}`,
		"empty":     ``,
		"not json":  `{`,
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadJSON(path); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
	path := filepath.Join(dir, "minor")
	os.WriteFile(path, []byte(`{"schema":"contractkit/report/v1.3","succeeded":true,"checks":[],"later":1}`), 0o644)
	if r, err := ReadJSON(path); err != nil || !r.Succeeded {
		t.Errorf("a later minor version: %+v, %v", r, err)
	}
}
