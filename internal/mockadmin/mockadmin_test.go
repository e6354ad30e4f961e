package mockadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver"
)

const keyA, keyB = "admin-test-key-a", "admin-test-key-b"

// slowMock is the mock as the budget tests of the suite will run it:
// models train for 150 s and evaluations run for 90 s, as a staging
// deployment's might; the default fixtures in both accounts.
func slowMock(t *testing.T) string {
	t.Helper()
	set := fixtures.Default()
	srv, err := mockserver.New(mockserver.Config{Keys: []string{keyA, keyB}, Fixtures: &set,
		TrainDuration: 150 * time.Second, EvalDuration: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Shutdown(); ts.Close() })
	return ts.URL
}

// api calls the contract's API as the suite would and returns the data of
// a success answer.
func api(t *testing.T, base, method, path string, body any) map[string]any {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	req.Header.Set("Authorization", "Bearer "+keyA)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct{ Data map[string]any }
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &env) != nil {
		t.Fatalf("%s %s: %d %.300s", method, path, resp.StatusCode, b)
	}
	return env.Data
}

func id(v any) string { return strings.TrimSuffix(fmt.Sprint(v), ".0") }

// poll reads path until field has one of want, at most 200 times 50 ms
// apart (10 s of real time), and returns what it saw last.
func poll(t *testing.T, base, path, field string, want ...string) string {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var got string
	for range 200 {
		got = fmt.Sprint(api(t, base, http.MethodGet, path, nil)[field])
		if slices.Contains(want, got) {
			return got
		}
		<-tick.C
	}
	return got
}

// TestTheSuitesBudgetTestsCanRun is the setting the next task's tests
// need, checked end to end: a mock whose models train for 150 s and whose
// evaluations run for 90 s; a ready fixture model with its dataset to
// reuse; the clock driven while the test polls, so a model trains and an
// evaluation runs in seconds; and a snapshot that says whether the account
// is as it was.
func TestTheSuitesBudgetTestsCanRun(t *testing.T) {
	base := slowMock(t)
	ctx := context.Background()
	a, b := Client{Base: base, Key: keyA}, Client{Base: base, Key: keyB}
	before, err := a.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Models) != 3 || len(before.Datasets) != 3 || len(before.Conversations) == 0 || len(before.Evaluations) == 0 {
		t.Fatalf("fixtures: %+v", before)
	}

	// --reuse-model: the first fixture model is ready at once, whatever
	// the training time, and its dataset is there.
	var reused map[string]any
	for _, m := range before.Models {
		if v := api(t, base, http.MethodGet, "/api/v1/user/model/"+m, nil); v["status"] == "ready" {
			reused = v
			break
		}
	}
	if reused == nil {
		t.Fatal("no ready fixture model to reuse")
	}
	dataset := id(reused["dataset_id"])
	api(t, base, http.MethodGet, "/api/v1/user/dataset/"+dataset, nil)

	// Without the drive, a new model stays training.
	model := id(api(t, base, http.MethodPost, "/api/v1/user/model", map[string]any{"model_name": "budget test", "dataset_id": dataset})["id"])
	if got := fmt.Sprint(api(t, base, http.MethodGet, "/api/v1/user/model/"+model, nil)["status"]); got == "ready" {
		t.Fatalf("a 150 s training was ready at once")
	}
	eval := id(api(t, base, http.MethodPost, "/api/v1/evaluations", map[string]any{"name": "budget test", "model_id": reused["id"]})["id"])
	api(t, base, http.MethodPost, "/api/v1/evaluations/"+eval+"/start", nil)

	// With it (5 s of mock time every 10 ms, both accounts), the test's
	// polling sees the training and the run end within seconds.
	start := time.Now()
	drive := Drive(ctx, []Client{a, b}, 5*time.Second, 10*time.Millisecond)
	gotModel := poll(t, base, "/api/v1/user/model/"+model, "status", "ready", "failed")
	gotEval := poll(t, base, "/api/v1/evaluations/"+eval, "status", "completed", "failed")
	advanced, err := drive.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if gotModel != "ready" || gotEval != "completed" {
		t.Fatalf("model %s, evaluation %s after %v of real time and %v of mock time", gotModel, gotEval, time.Since(start), advanced)
	}
	if advanced < 150*time.Second {
		t.Errorf("the clocks moved %v, less than a training: the drive did not make it", advanced)
	}
	t.Logf("a 150 s training and a 90 s run took %v of real time (%v of mock time)", time.Since(start).Round(time.Millisecond), advanced)

	mid, err := a.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	diff := Diff(before, mid)
	if want := []string{fmt.Sprintf("models: made [%s]", model), fmt.Sprintf("evaluations: made [%s]", eval)}; !slices.Equal(diff, want) {
		t.Errorf("Diff with what the test made: %q, want %q", diff, want)
	}
	api(t, base, http.MethodDelete, "/api/v1/evaluations/"+eval, nil)
	api(t, base, http.MethodDelete, "/api/v1/user/model/"+model, nil)
	after, err := a.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := Diff(before, after); len(diff) != 0 {
		t.Errorf("after removing what it made, the account differs: %q", diff)
	}
}

func TestDiffNamesEveryChange(t *testing.T) {
	before := Snapshot{Models: []string{"4", "5"}, Datasets: []string{"1"}, Conversations: map[string]int{"c1": 2, "c2": 0}}
	after := Snapshot{Models: []string{"5", "9"}, Datasets: []string{"1"}, DeletedDatasets: []string{"7"}, Conversations: map[string]int{"c1": 4, "c3": 1}}
	want := []string{
		"models: made [9]; removed [4]",
		"deleted datasets: made [7]",
		"conversations: made [c3]; removed [c2]",
		"conversation c1: 4 messages, was 2",
	}
	if got := Diff(before, after); !slices.Equal(got, want) {
		t.Errorf("Diff:\n%q\nwant\n%q", got, want)
	}
}

func TestDriveStopsOnAMockThatWentAway(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	ts.Close()
	d := Drive(context.Background(), []Client{{Base: ts.URL, Key: "k"}}, time.Second, time.Millisecond)
	select {
	case <-d.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a drive against no mock did not end")
	}
	if advanced, err := d.Stop(); err == nil || advanced != 0 {
		t.Errorf("Stop: %v, %v; want an error and no advance", advanced, err)
	}
}
