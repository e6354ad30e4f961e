package runner

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"contractkit/mutation"
	"contractkit/report"
)

// TestMain lets the test binary stand in for the runner's two programs:
// started through a link called mockserver or conformance, it plays a fake
// of that program whose behaviour the mutant's name chooses.
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "mockserver":
		os.Exit(fakeMock(os.Args[1:]))
	case "conformance":
		os.Exit(fakeSuite(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeMock listens like the mock and answers GET /name with its --break
// name; POST /exit ends it. A name with "wont-start" exits at once, one
// with "silent" never prints its address.
func fakeMock(args []string) int {
	fs := flag.NewFlagSet("mockserver", flag.ContinueOnError)
	addr := fs.String("addr", "", "")
	name := fs.String("break", "", "")
	for _, f := range []string{"train-duration", "eval-duration", "token-interval", "log-level"} {
		fs.String(f, "", "")
	}
	if err := fs.Parse(args); err != nil || *addr != "127.0.0.1:0" || os.Getenv("MOCK_API_KEY") == "" {
		fmt.Fprintln(os.Stderr, "fake mockserver: bad command line or environment")
		return 2
	}
	switch {
	case strings.Contains(*name, "wont-start"):
		fmt.Fprintln(os.Stderr, "mockserver: listen tcp: boom")
		return 1
	case strings.Contains(*name, "silent"):
		select {}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return 1
	}
	fmt.Printf("mockserver listening on http://%s (2 account(s))\n", ln.Addr())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /name", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, *name) })
	mux.HandleFunc("POST /exit", func(http.ResponseWriter, *http.Request) { os.Exit(7) })
	mux.HandleFunc("GET /healthz", func(http.ResponseWriter, *http.Request) {})
	_ = http.Serve(ln, mux)
	return 1
}

// fakeSuite asks the fake mock its mutant and answers as a suite would:
// "caught" and "fails" fail, "decided" fails only with --strict, anything
// else passes; "no-report" writes no report, "disagree" exits 1 with a
// passing report, "mock-dies" ends the mock first.
func fakeSuite(args []string) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	base := fs.String("base-url", "", "")
	fs.String("timeout", "", "")
	jsonFile := fs.String("json", "", "")
	strict := fs.Bool("strict", false, "")
	seed := fs.Uint64("seed", 0, "")
	explore := fs.Int("explore", -1, "")
	junit := fs.String("junit", "", "")
	fs.String("label-filter", "", "")
	fs.String("deadline", "", "")
	fs.String("max-memory", "", "")
	if err := fs.Parse(args); err != nil || *jsonFile == "" || *seed == 0 || os.Getenv("CONFORMANCE_API_KEY") == "" || os.Getenv("CONFORMANCE_API_KEY_2") == "" {
		fmt.Println("fake conformance: bad command line or environment")
		return 2
	}
	resp, err := http.Get(*base + "/name")
	if err != nil {
		fmt.Println("fake conformance:", err)
		return 3
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	name := string(b)
	if strings.Contains(name, "mock-dies") {
		if r, err := http.Post(*base+"/exit", "text/plain", nil); err == nil {
			r.Body.Close()
		}
	}
	pass := !strings.Contains(name, "caught") && !strings.Contains(name, "fails") && !strings.Contains(name, "mock-dies") &&
		!(strings.Contains(name, "decided") && *strict) && !strings.Contains(name, "ends")
	if *junit != "" && !strings.Contains(name, "no-junit") {
		if err := os.WriteFile(*junit, []byte(`<testsuites><testsuite name="API conformance"><testcase name="Fake MUST hold"></testcase></testsuite></testsuites>`), 0o644); err != nil {
			return 2
		}
	}
	exit := 0
	if !pass || strings.Contains(name, "disagree") {
		exit = 1
	}
	if strings.Contains(name, "no-report") {
		return exit
	}
	check := report.Check{Area: "other", Path: []string{"Fake"}, Behaviour: "MUST hold", State: report.Passed}
	if !pass {
		check.State, check.Failure = report.Failed, &report.Failure{Kind: "failed", Message: "the fake says no\nsecond line"}
	}
	if strings.Contains(name, "explored") {
		if *explore == 0 {
			fmt.Println("fake conformance: an explore mutant run without exploring")
			return 2
		}
		check.Labels = []string{"explore"} // failed by an Explore check
	}
	if err := report.WriteJSONFile(*jsonFile, report.Run{Suite: "API conformance", Succeeded: pass, Checks: []report.Check{check}}, report.Options{}); err != nil {
		return 2
	}
	return exit
}

// fakeBin is a directory whose mockserver and conformance are this test
// binary.
func fakeBin(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"mockserver", "conformance"} {
		if err := os.Symlink(self, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func byName(results []Result) map[string]Result {
	m := map[string]Result{}
	for _, r := range results {
		m[label(r)] = r
	}
	return m
}

func TestRunJudgesMutantsAndVariants(t *testing.T) {
	t.Setenv("MOCK_BREAK", "m-caught") // the runs must not inherit it
	report := filepath.Join(t.TempDir(), "out", "mutation.md")
	keep := filepath.Join(t.TempDir(), "kept")
	var out strings.Builder
	results, err := Run(context.Background(), Config{Bin: fakeBin(t), Report: report, Keep: keep, Out: &out, Workers: 2, Mutants: []mutation.Mutant{
		{Name: "m-caught", Area: "a", Breaks: "is caught"},
		{Name: "m-survives", Area: "a", Breaks: "survives"},
		{Name: "m-decided", Area: "a", Breaks: "breaks a decided rule", Decided: "D-01"},
		{Name: "valid-passes", Area: "variant", Valid: true},
		{Name: "valid-fails", Area: "variant", Valid: true},
		{Name: "m-caught-explored", Area: "explore", Explore: true},
		{Name: "m-caught-elsewhere", Area: "explore", Explore: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := byName(results)
	for name, want := range map[string]struct {
		ok      bool
		outcome string
	}{
		"(baseline)":   {true, "passed"},
		"m-caught":     {true, "failed"},
		"m-survives":   {false, "passed"},
		"m-decided":    {true, "failed"}, // run with --strict
		"valid-passes": {true, "passed"},
		"valid-fails":  {false, "failed"},
		// An explore mutant is killed only when every failed check is an
		// Explore check.
		"m-caught-explored":  {true, "failed"},
		"m-caught-elsewhere": {false, "error: a check outside the explore phase failed it: Fake › MUST hold: the fake says no"},
	} {
		r, ok := got[name]
		if !ok {
			t.Errorf("%s: not run", name)
			continue
		}
		if r.OK() != want.ok || r.Outcome() != want.outcome {
			t.Errorf("%s: ok %t outcome %q, want ok %t outcome %q", name, r.OK(), r.Outcome(), want.ok, want.outcome)
		}
	}
	if f := got["m-caught"].Failures; len(f) != 1 || f[0] != "Fake › MUST hold: the fake says no" {
		t.Errorf("m-caught failures got %q, want the failed check from the JSON report", f)
	}
	if AllOK(results) {
		t.Error("AllOK with a surviving mutant and a failing variant")
	}
	table, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Score: 3/5 mutants killed; 2/3 valid variants (baseline included) passed"; !strings.Contains(string(table), want) {
		t.Errorf("report got\n%s\nwant %q", table, want)
	}
	if !strings.Contains(out.String(), "FAIL m-survives") || !strings.Contains(out.String(), "ok   m-caught") {
		t.Errorf("progress lines got\n%s", out.String())
	}
	// A run not as expected lists every failed check below the table and
	// leaves its report; a run as expected does neither.
	if want := "\nvalid-fails (expected pass, failed), every failed check:\n- Fake › MUST hold: the fake says no\n"; !strings.Contains(string(table), want) {
		t.Errorf("report got\n%s\nwant %q", table, want)
	}
	if strings.Contains(string(table), "m-caught (expected") {
		t.Errorf("report lists the failures of a killed mutant:\n%s", table)
	}
	entries, err := os.ReadDir(keep)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, e := range entries {
		kept = append(kept, e.Name())
	}
	// m-survives passed (its report says so), valid-fails failed, and the
	// explore mutant was failed by a written check.
	if want := []string{"m-caught-elsewhere.json", "m-survives.json", "valid-fails.json"}; !slices.Equal(kept, want) {
		t.Errorf("kept reports got %q, want %q", kept, want)
	}
}

func TestRunAllOKAndOnly(t *testing.T) {
	results, err := Run(context.Background(), Config{Bin: fakeBin(t), Only: regexp.MustCompile("caught|valid"), Mutants: []mutation.Mutant{
		{Name: "m-caught"}, {Name: "m-survives"}, {Name: "valid-passes", Valid: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 || !AllOK(results) {
		t.Errorf("results got %+v, want the baseline, m-caught and valid-passes, all as expected", results)
	}
}

// TestRunSurfacesEveryError: a run that gives no verdict is an error, never
// a kill.
func TestRunSurfacesEveryError(t *testing.T) {
	// The fakes are this test binary started again, slow on a loaded machine
	// (and under -race): they get the default start timeout. Only the mock
	// that never prints an address is run with a short one, which it spends.
	results, err := Run(context.Background(), Config{Bin: fakeBin(t), Mutants: []mutation.Mutant{
		{Name: "m-wont-start"}, {Name: "m-no-report"}, {Name: "m-disagree"}, {Name: "m-mock-dies"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	silent, err := Run(context.Background(), Config{Bin: fakeBin(t), StartTimeout: time.Second, Mutants: []mutation.Mutant{{Name: "m-silent"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := byName(append(results, silent...))
	for name, says := range map[string]string{
		"m-wont-start": "listen tcp: boom",
		"m-silent":     "no address",
		"m-no-report":  "--json",
		"m-disagree":   "report says succeeded=true",
		"m-mock-dies":  "exited during the run",
	} {
		r, ok := got[name]
		if !ok {
			t.Errorf("%s: no result", name)
			continue
		}
		if r.Err == nil || !strings.Contains(r.Err.Error(), says) || r.OK() {
			t.Errorf("%s: err %v ok %t, want an error saying %q", name, r.Err, r.OK(), says)
		}
	}
}

func TestRunFailsWhenTheReportCannotBeWritten(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Config{Bin: fakeBin(t), Report: filepath.Join(file, "mutation.md"), Mutants: []mutation.Mutant{}})
	if err == nil {
		t.Fatal("Run got no error for a report under a regular file")
	}
}

func TestReadReportRefusesBadReports(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"empty": "", "not-json": "{", "two": "[{},{}]", "none": "[]"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := readReport(path); err == nil {
			t.Errorf("%s: readReport got no error", name)
		}
	}
}

// TestDefaultSetRunsTheHostileServers: without Mutants the runner runs
// mutation.List() and the hostile servers, each bounded (its area only, no
// explore phase but in the explore area, a deadline, the default
// --max-memory).
func TestDefaultSetRunsTheHostileServers(t *testing.T) {
	var cfg Config
	cfg.defaults()
	hostile := 0
	for _, m := range cfg.Mutants {
		if !m.Hostile {
			continue
		}
		hostile++
		explore := "--explore 0"
		if m.Area == "explore" {
			explore = fmt.Sprintf("--explore %d", hostileExplore)
		}
		args := strings.Join(hostileArgs(m, "j.xml"), " ")
		if !strings.Contains(args, "--label-filter "+m.Area) || !strings.Contains(args, explore) || !strings.Contains(args, "--deadline") || !strings.Contains(args, "--max-memory 512") {
			t.Errorf("%s runs with %s, want its area, %s, a deadline and --max-memory 512", m.Name, args, explore)
		}
	}
	if want := len(mutation.Hostile()); want == 0 || hostile != want {
		t.Errorf("the default set runs %d hostile servers, want all %d", hostile, want)
	}
}

// TestHostileRunsAreJudgedByTheirExpectation: a hostile run is as
// expected only when the suite exits 1 with readable JSON and JUnit
// reports; its peak memory is measured and shown.
func TestHostileRunsAreJudgedByTheirExpectation(t *testing.T) {
	report := filepath.Join(t.TempDir(), "mutation.md")
	results, err := Run(context.Background(), Config{Bin: fakeBin(t), Report: report, Mutants: []mutation.Mutant{
		{Name: "hostile-ends", Area: "models", Hostile: true},
		{Name: "hostile-no-junit-ends", Area: "models", Hostile: true},
		{Name: "hostile-passes", Area: "models", Hostile: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := byName(results)
	if r := got["hostile-ends"]; !r.OK() || r.PeakRSS <= 0 {
		t.Errorf("hostile-ends: ok %t (%v), peak RSS %d; want ok with a measured peak", r.OK(), r.Err, r.PeakRSS)
	}
	for name, says := range map[string]string{"hostile-no-junit-ends": "--junit", "hostile-passes": "exited 0, want 1"} {
		if r := got[name]; r.OK() || r.Err == nil || !strings.Contains(r.Err.Error(), says) {
			t.Errorf("%s: ok %t err %v, want an error saying %q", name, r.OK(), r.Err, says)
		}
	}
	table, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(table), "| hostile-ends | models |") || !strings.Contains(string(table), "hostile: exit 1") || !strings.Contains(string(table), " MiB |") {
		t.Errorf("the report does not show the hostile rows with their memory:\n%s", table)
	}
}

// The longest kinds of run start first, each kind in its listed order, so
// that no long run starts last while the other workers idle.
func TestLongestFirst(t *testing.T) {
	jobs := []mutation.Mutant{
		{Area: "baseline", Valid: true},
		{Name: "written-a"}, {Name: "model-a", Model: true}, {Name: "valid-a", Valid: true},
		{Name: "explore-a", Explore: true}, {Name: "hostile-a", Hostile: true}, {Name: "valid-b", Valid: true},
		{Name: "model-b", Model: true},
	}
	var got []string
	for _, i := range longestFirst(jobs) {
		got = append(got, jobs[i].Name)
	}
	want := []string{"", "valid-a", "valid-b", "explore-a", "model-a", "model-b", "written-a", "hostile-a"}
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}
