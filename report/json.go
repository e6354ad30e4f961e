package report

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Schema names the JSON report's format and its version. A reader accepts
// a report of the same major version ("v1"): a later minor one only adds
// fields.
const Schema = "contractkit/report/v1"

// jsonReport is the JSON report: the run as it is, its schema, and the
// summary's counts (derived, for readers that want only those).
type jsonReport struct {
	Schema string `json:"schema"`
	Run
	Counts Tally `json:"counts"`
}

// WriteJSONFile writes the JSON report of r to path, keys redacted as o
// says: one object, the Run's fields with "schema" (Schema) and "counts"
// (Run.Tally).
func WriteJSONFile(path string, r Run, o Options) error {
	r = o.redact(r)
	if r.Checks == nil {
		r.Checks = []Check{}
	}
	raw, err := json.MarshalIndent(jsonReport{Schema: Schema, Run: r, Counts: r.Tally()}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

// ReadJSON reads a JSON report that WriteJSONFile wrote: a report of
// another format or major version is an error, never a guess.
func ReadJSON(path string) (Run, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Run{}, err
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return Run{}, fmt.Errorf("%s: %w", path, err)
	}
	if head.Schema == nil || !sameMajor(*head.Schema, Schema) {
		got := "none"
		if head.Schema != nil {
			got = fmt.Sprintf("%q", *head.Schema)
		}
		return Run{}, fmt.Errorf("%s: schema %s, want %q", path, got, Schema)
	}
	var r jsonReport
	if err := json.Unmarshal(raw, &r); err != nil {
		return Run{}, fmt.Errorf("%s: %w", path, err)
	}
	return r.Run, nil
}

// sameMajor says whether two schema names differ at most after their
// major version ("contractkit/report/v1" and "contractkit/report/v1.2").
func sameMajor(a, b string) bool {
	major := func(s string) string { m, _, _ := strings.Cut(s, "."); return m }
	return major(a) == major(b)
}
