package proxy

import (
	"path/filepath"
	"strings"
	"testing"

	"contractkit/coverage"
	"contractkit/fixtures"
	"contractkit/recording"
	"contractkit/spec"
)

// The observers get the traffic as it passed: a session through the proxy
// becomes a contract coverage and a fixture set the mock loads, holding the
// dataset the session created and the text of its uploaded files.
func TestObserversGetTheTraffic(t *testing.T) {
	cov := coverage.New(spec.Strict())
	rec := recording.New()
	th := newThrough(t, newMock(t, "", 0).URL, CoverageObserver{cov}, RecordingObserver{rec}).checked(t)
	session(t, th)

	r := cov.Report()
	if r.Totals.OperationsCalled < 8 || r.Totals.UndocumentedStatuses != 0 {
		t.Fatalf("coverage: %s", r.Line())
	}
	dir := filepath.Join(t.TempDir(), "recorded")
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := fixtures.Load(dir)
	if err != nil {
		t.Fatalf("the recording does not load: %v", err)
	}
	found := false
	for _, d := range b.Set.Datasets {
		found = found || d.Name == "proxy-test"
	}
	if !found {
		t.Fatalf("the session's dataset is not in the recording: %+v\n%s", b.Set.Datasets, strings.Join(rec.Summary().Lines(), "\n"))
	}
}
