package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/internal/mockadmin"
	"contractkit/mockserver"
	"contractkit/report"
)

// The budget's runs (issue #25) against the mock set as a staging
// deployment might be (models train for 150 s, evaluations run for 90 s),
// its clocks driven forward while the suite polls, so no test waits.

// slowMock starts the mock with the default fixtures and long durations,
// and drives its clock: 150 s of training pass in about a second. Both
// test keys are accounts (admin is the first's; the second's is admin with
// Key testKey2).
func slowMock(t *testing.T, wrap func(http.Handler) http.Handler) (base string, admin mockadmin.Client) {
	t.Helper()
	set := fixtures.Default()
	srv, err := mockserver.New(mockserver.Config{Keys: []string{testKey, testKey2}, Fixtures: &set, TokenInterval: time.Millisecond,
		TrainDuration: 150 * time.Second, EvalDuration: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(srv)
	}
	ts := httptest.NewServer(h)
	admin = mockadmin.Client{Base: ts.URL, Key: testKey}
	d := mockadmin.Drive(context.Background(), []mockadmin.Client{admin, {Base: ts.URL, Key: testKey2}}, 10*time.Second, 50*time.Millisecond)
	t.Cleanup(func() {
		d.Stop()
		srv.Shutdown()
		ts.Close()
	})
	return ts.URL, admin
}

// readyFixtureModel is the id of a ready model among the account's fixtures.
func readyFixtureModel(t *testing.T, base string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+pathModels, nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data []struct {
			ID     json.Number `json:"id"`
			Status string      `json:"status"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	for _, m := range body.Data {
		if m.Status == "ready" {
			return m.ID.String()
		}
	}
	t.Fatal("no ready model among the fixtures")
	return ""
}

// spentRow reads a kind's row of the summary's table: taken, created,
// started, removed, denied.
func spentRow(t *testing.T, out, kind string) []int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(kind) + `\s+\S+\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s row in the summary's table:\n%s", kind, out)
	}
	var n []int
	for _, s := range m[1:] {
		v, _ := strconv.Atoi(s)
		n = append(n, v)
	}
	return n
}

// budgetSkips lists the skipped checks whose reason is the budget or a
// reused resource.
func budgetSkips(out string) []string {
	_, section, _ := strings.Cut(out, "\nSkipped (")
	section, _, _ = strings.Cut(section, "\n\n")
	var names []string
	lines := strings.Split(section, "\n")
	for i, l := range lines {
		if strings.Contains(l, "not sent:") && i > 0 {
			names = append(names, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i-1]), "- ")))
		}
	}
	return names
}

// Done when (a): a budgeted run with --reuse-model trains at most one
// model, runs at most one evaluation, skips at most three checks, and
// leaves the accounts as it found them; every report says what it spent.
// With two accounts: the isolation checks run too (a write of the second
// account aims at the model the run trained, not the reused one).
func TestDeploymentRunWithReuse(t *testing.T) {
	base, admin := slowMock(t, nil)
	admin2 := mockadmin.Client{Base: base, Key: testKey2}
	model := readyFixtureModel(t, base)
	ctx := context.Background()
	before, err := admin.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before2, err := admin2.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--api-key-2", testKey2, "--timeout", "60s", "--explore", "0",
		"--profile", "deployment", "--reuse-model", model, "--json", file("r.json"), "--junit", file("j.xml"), "--html", file("r.html"))
	if code != ExitPass {
		t.Fatalf("exit %d, want %d\n%s", code, ExitPass, out)
	}
	if models := spentRow(t, out, "models"); models[1] > 1 {
		t.Errorf("the run trained %d models, want at most 1", models[1])
	}
	if runs := spentRow(t, out, "evaluation-runs"); runs[2] > 1 {
		t.Errorf("the run started %d evaluation runs, want at most 1", runs[2])
	}
	if skips := budgetSkips(out); len(skips) == 0 || len(skips) > 3 {
		t.Errorf("%d checks skipped for the budget, want 1 to 3: %q", len(skips), skips)
	}
	if !strings.Contains(out, "Left behind: none") {
		t.Errorf("the summary does not say nothing was left behind:\n%s", out)
	}
	after, err := admin.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := mockadmin.Diff(before, after); len(d) > 0 {
		t.Errorf("the run changed the account: %v", d)
	}
	after2, err := admin2.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := mockadmin.Diff(before2, after2); len(d) > 0 {
		t.Errorf("the run changed the second account: %v", d)
	}
	checkSpentReports(t, file("r.json"), file("j.xml"), file("r.html"))
}

// checkSpentReports: the JSON report's spent, the JUnit property and the
// HTML section say what the run created, started and removed.
func checkSpentReports(t *testing.T, jsonFile, junitFile, htmlFile string) {
	t.Helper()
	r, err := report.ReadJSON(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	spent := r.Spent
	if spent == nil || len(spent.Rows) == 0 || spent.Rows[0].Kind != "models" || len(spent.Rows[0].Created) != 1 || len(spent.Rows[0].Removed) != 1 {
		t.Errorf("the JSON report's spent: %+v, want a row per kind, one model created and removed", spent)
	}
	found := junitProperty(t, junitFile, report.PropertySpent)
	if !strings.Contains(found, "models 1/1 created 1 started 0 removed 1") || !strings.Contains(found, "left behind: none") {
		t.Errorf("JUnit property %s = %q", report.PropertySpent, found)
	}
	html, err := os.ReadFile(htmlFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `<section id="spent">`) || !strings.Contains(string(html), "<td>evaluation-runs</td>") {
		t.Errorf("the HTML report has no section of what the run spent")
	}
}

// Done when (b): --budget all=0 makes no successful write, explore
// included; the journal of the mock is the witness.
func TestReadOnlyRunWritesNothing(t *testing.T) {
	base, admin := slowMock(t, nil)
	code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--timeout", "30s", "--explore", "30", "--seed", "3",
		"--budget", "all=0")
	if code != ExitPass {
		t.Fatalf("exit %d, want %d\n%s", code, ExitPass, out)
	}
	entries := journal(t, admin)
	if len(entries) >= 500 {
		t.Fatalf("the journal holds %d entries: its ring may have dropped some, the test cannot see every call", len(entries))
	}
	writes := 0
	for _, e := range entries {
		if e.Method == http.MethodGet || e.Method == http.MethodHead || e.Method == http.MethodOptions {
			continue
		}
		writes++
		if e.Status/100 == 2 {
			t.Errorf("a successful write in a read-only run: %s %s → %d", e.Method, e.Path, e.Status)
		}
	}
	if writes == 0 {
		t.Errorf("no write at all: the refusal checks did not run\n%s", out)
	}
	for _, kind := range []string{"models", "datasets", "evaluation-runs", "inferences"} {
		if row := spentRow(t, out, kind); row[0] != 0 || row[1] != 0 || row[2] != 0 {
			t.Errorf("%s: taken %d, created %d, started %d in a read-only run", kind, row[0], row[1], row[2])
		}
	}
}

type journalEntry struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
}

// journal reads the mock's journal of the account, every entry.
func journal(t *testing.T, admin mockadmin.Client) []journalEntry {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, admin.Base+"/admin/requests", nil)
	req.Header.Set("Authorization", "Bearer "+admin.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Data []journalEntry }
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Data
}

// Done when, last line: a default run (no --budget) caps nothing, so it
// behaves as before: no check skipped for the budget, no draw refused.
func TestDefaultRunIsNotCapped(t *testing.T) {
	base, _ := slowMock(t, nil)
	code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--timeout", "60s", "--explore", "30", "--seed", "5",
		"--label-filter", "models || explore")
	if code != ExitPass {
		t.Fatalf("exit %d, want %d\n%s", code, ExitPass, out)
	}
	if skips := budgetSkips(out); len(skips) > 0 {
		t.Errorf("a default run skipped checks for a budget: %q", skips)
	}
	if !strings.Contains(out, "(budget: none)") || !strings.Contains(out, "Left behind: none") {
		t.Errorf("the summary lacks the budget none and nothing left behind:\n%s", out)
	}
	if row := spentRow(t, out, "models"); row[1] < 2 || row[4] != 0 {
		t.Errorf("models: created %d, denied %d; want the written checks' models, none denied", row[1], row[4])
	}
}

// What a run leaves behind is listed with its ids, and the exit status
// says so when no check failed (D-47): a server whose deletes fail.
func TestLeftBehindExitStatus(t *testing.T) {
	failDeletes := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprint(w, `{"status":"error","message":"storage unavailable"}`)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	base, _ := slowMock(t, failDeletes)
	code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--timeout", "30s", "--explore", "0",
		"--focus", "SHOULD create a dataset from URLs alone")
	if code != ExitLeftBehind {
		t.Errorf("exit %d, want %d (left behind)\n%s", code, ExitLeftBehind, out)
	}
	if !regexp.MustCompile(`Left behind: 1: datasets \d+`).MatchString(out) {
		t.Errorf("the summary does not name the dataset left behind:\n%s", out)
	}
}

// A run that counts its spending leaves the accounts as it found them with
// the explore phase on too: its deletes of datasets, the model's and the
// property part's, are permanent (D-40), so no soft-deleted dataset stays.
func TestBudgetedExploreLeavesNoSoftDeletedDataset(t *testing.T) {
	base, admin := slowMock(t, nil)
	admin2 := mockadmin.Client{Base: base, Key: testKey2}
	ctx := context.Background()
	var before [2]mockadmin.Snapshot
	for i, a := range []mockadmin.Client{admin, admin2} {
		s, err := a.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		before[i] = s
	}
	code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--api-key-2", testKey2, "--timeout", "60s",
		"--label-filter", "explore", "--explore", "60", "--seed", "5", "--budget", "all=200")
	if code != ExitPass {
		t.Fatalf("exit %d, want %d\n%s", code, ExitPass, out)
	}
	for i, a := range []mockadmin.Client{admin, admin2} {
		after, err := a.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d := mockadmin.Diff(before[i], after); len(d) > 0 {
			t.Errorf("account %d changed: %v", i+1, d)
		}
	}
}
