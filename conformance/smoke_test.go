package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"contractkit/conformance/client"
	"contractkit/internal/mockadmin"
	"contractkit/internal/mocktest"
	"contractkit/mockserver"
	"contractkit/report"
	"contractkit/spec"
)

// The production smoke (--profile smoke, issue #41, D-40) and --compare.

// stillMock starts the mock as a deployment whose models train for 150 s
// and whose evaluations run for 90 s, its clock left alone: a run that
// waited for either would not end within its deadline. breakName, when
// not "", puts that mutant in front of it.
func stillMock(t *testing.T, breakName string) (base string, admin mockadmin.Client) {
	t.Helper()
	ts := mocktest.Serve(t, mockserver.Config{Keys: []string{testKey}, TokenInterval: time.Millisecond,
		TrainDuration: 150 * time.Second, EvalDuration: 90 * time.Second}, breakName)
	return ts.URL, mockadmin.Client{Base: ts.URL, Key: testKey}
}

// call sends one request with the test key and returns the answer's data.
func call(t *testing.T, method, url string, body any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, url, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct{ Data map[string]any }
	dec := json.NewDecoder(resp.Body)
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %v", method, url, resp.StatusCode, err)
	}
	return env.Data
}

// Done when: --profile smoke against a deployment whose evaluations take
// 90 s (one of them running) ends within its 60 s deadline with exit 0,
// reaches every operation once, and writes nothing: the account's journal
// holds one read per read operation and no write, and its state is as it
// was. Measured: about 3 s on two busy cores.
func TestSmokeReachesEveryOperationOnceAndWritesNothing(t *testing.T) {
	base, admin := stillMock(t, "")
	ev := call(t, http.MethodPost, base+pathEvaluations, evaluationBody("running during the smoke", readyFixtureModel(t, base)))
	call(t, http.MethodPost, base+at(pathEvaluations, fmt.Sprint(ev["id"]))+"/start", nil)
	ctx := context.Background()
	before, err := admin.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodDelete, base+"/admin/requests", nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("emptying the journal: %v", err)
	}
	file := filepath.Join(t.TempDir(), "smoke.json")
	begin := time.Now()
	code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--profile", "smoke", "--json", file)
	t.Logf("the smoke run took %s", time.Since(begin).Round(time.Millisecond))
	if code != ExitPass {
		t.Fatalf("exit %d, want %d\n%s", code, ExitPass, out)
	}
	r, err := report.ReadJSON(file)
	if err != nil {
		t.Fatal(err)
	}
	// The deadline is the bound: a run past it is stopped and fails.
	if len(r.Stopped) > 0 || !slices.Contains(r.Info.Flags, "--deadline=1m0s") {
		t.Errorf("stopped %q, flags %q: want a run within --deadline 1m0s", r.Stopped, r.Info.Flags)
	}
	for _, op := range r.Coverage.Operations {
		if op.Calls != 1 {
			t.Errorf("%s answered %d times, want once", op.ID, op.Calls)
		}
	}
	reads := map[string]int{}
	for _, e := range journal(t, admin) {
		if e.Method != http.MethodGet {
			t.Errorf("a write with the account's key: %s %s → %d", e.Method, e.Path, e.Status)
		}
		reads[e.Path]++
	}
	gets := 0
	for _, op := range spec.Strict().Operations {
		if op.Method == http.MethodGet {
			gets++
		}
	}
	if len(reads) != gets {
		t.Errorf("the journal holds reads of %d paths, want one per read operation (%d): %v", len(reads), gets, reads)
	}
	after, err := admin.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := mockadmin.Diff(before, after); len(d) > 0 {
		t.Errorf("the smoke changed the account: %v", d)
	}
}

// Done when: --compare names a check that changed. A smoke of the mock,
// then one of a mutant whose dataset list is an object (a check fails and
// the list's fields leave the coverage), then the mock again (it passes
// again): each run names what changed since the one before.
func TestCompareNamesTheChecksThatChanged(t *testing.T) {
	good, _ := stillMock(t, "")
	broken, _ := stillMock(t, "dataset-list-as-object")
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	run := func(base, compare, json string, want int) (string, report.Run) {
		t.Helper()
		code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--profile", "smoke", "--compare", file(compare), "--json", file(json))
		if code != want {
			t.Fatalf("exit %d, want %d\n%s", code, want, out)
		}
		r, err := report.ReadJSON(file(json))
		if err != nil {
			t.Fatal(err)
		}
		return out, r
	}
	out, first := run(good, "first.json", "first.json", ExitPass) // its own file, not there yet
	if !strings.Contains(out, "no previous report there yet") || first.Changes != nil {
		t.Errorf("a first run: want nothing to compare\n%s", out)
	}
	const check = "Smoke › MUST answer a read with the account's key: GET /api/v1/user/dataset (listDatasets)"
	out, second := run(broken, "first.json", "second.json", ExitFail)
	if c := second.Changes; c == nil || len(c.Failing) != 1 || c.Failing[0].Check != check || c.Failing[0].Before != report.Passed {
		t.Errorf("changes %+v, want %q failing now", second.Changes, check)
	}
	if !strings.Contains(out, "checks failing now that passed before (1):\n    - "+check+" (passed → failed)") {
		t.Errorf("the summary does not name the check that failed:\n%s", out)
	}
	if c := second.Changes; c == nil || !slices.Contains(c.Coverage.FieldsGone, "listDatasets 200 application/json: data[].name") {
		t.Errorf("the dataset list's fields did not leave the coverage: %+v", second.Changes)
	}
	out, third := run(good, "second.json", "second.json", ExitPass)
	if c := third.Changes; c == nil || len(c.Passing) != 1 || c.Passing[0].Check != check || len(c.Failing) != 0 {
		t.Errorf("changes %+v, want %q passing again", third.Changes, check)
	}
	if !strings.Contains(out, "checks passing now that failed before (1)") {
		t.Errorf("the summary does not name the check passing again:\n%s", out)
	}
}

// A smoke run's gate withholds every write that carries a key, a refusal
// included; a write without a key, and a read, go.
func TestSmokeGateSendsNoWriteWithAKey(t *testing.T) {
	c, s, sent := gatedClient(t, "all=0", func(*http.Request) (int, string) {
		return 401, `{"status":"error","message":"no key"}`
	})
	s.keylessWrites = true
	ctx := context.Background()
	invalid := client.Request{Method: http.MethodPost, Path: pathModels, JSON: map[string]any{}} // a refusal all=0 sends
	if x := c.Do(ctx, invalid); x.Withheld == nil || sent.Load() != 0 {
		t.Errorf("a keyed refusal was sent (withheld %v, sent %d)", x.Withheld, sent.Load())
	}
	other := client.Request{Method: http.MethodDelete, Path: at(pathModels, "7"), Auth: client.AuthRaw, RawAuth: "Token " + testKey}
	if x := c.Do(ctx, other); x.Withheld == nil {
		t.Error("a write with the key under another scheme was sent")
	}
	if x := c.Do(ctx, client.Request{Method: http.MethodPost, Path: pathModels, Auth: client.AuthNone}); x.Withheld != nil {
		t.Errorf("a write without a key was withheld: %v", x.Withheld)
	}
	if x := c.Do(ctx, client.Request{Method: http.MethodGet, Path: pathModels}); x.Withheld != nil {
		t.Errorf("a read was withheld: %v", x.Withheld)
	}
	if sent.Load() != 2 {
		t.Errorf("%d requests sent, want the keyless write and the read", sent.Load())
	}
}

// The order reads each record after the list that names it, and reaches
// every operation of the contract once.
func TestSmokeOrderReadsAfterTheirLists(t *testing.T) {
	order := smokeOrder(spec.Strict())
	at := map[string]int{}
	for i, op := range order {
		at[op.ID] = i
	}
	if len(order) != len(spec.Strict().Operations) || len(at) != len(order) {
		t.Fatalf("%d operations in the order, %d distinct, want each of the contract's %d once", len(order), len(at), len(spec.Strict().Operations))
	}
	for _, pair := range [][2]string{{"listModels", "getModel"}, {"listModels", "listConversations"}, {"listConversations", "listMessages"},
		{"listDatasets", "getDataset"}, {"listEvaluations", "getEvaluation"}} {
		if at[pair[0]] > at[pair[1]] {
			t.Errorf("%s comes after %s", pair[0], pair[1])
		}
	}
	for i, op := range order {
		if op.Method != http.MethodGet && i < len(order)-1 && order[i+1].Method == http.MethodGet {
			t.Errorf("a read after the write %s", op.ID)
		}
	}
}
