package report

import (
	"net/http"
	"time"

	"contractkit/coverage"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"
)

// testKey is the key of the runs the reports describe: no report shows it.
const testKey = "sk-test-3f9a2c71-SECRET"

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fixtureRun is a run with every state in several areas, a failure listed
// after many passed checks of its area (the order the suite runs them), a
// name to escape, findings, a decided difference, the exchanges that
// reproduce them, a note, a suite failure, coverage, what was spent and a
// key in the base URL.
func fixtureRun() (Run, Options) {
	r := Run{Suite: "API conformance", Target: "http://127.0.0.1:1/?key=" + testKey, Start: t0, End: t0.Add(time.Second),
		Info:        NewRunInfo([]string{"--base-url=http://127.0.0.1:1", "--api-key=<redacted>", "--strict"}),
		RateLimited: RateLimited{Repeated: 3, PerRequest: 5, Wait: 30 * time.Second}}
	add := func(area string, s State, name string) *Check {
		c := Check{Area: area, Path: []string{"Area " + area}, Behaviour: name, Labels: []string{area, "declared", "seed:1.1"},
			State: s, Start: t0, End: t0.Add(time.Millisecond), Duration: time.Millisecond}
		r.Checks = append(r.Checks, c)
		return &r.Checks[len(r.Checks)-1]
	}
	x := &exchange.Exchange{Method: "GET", URL: "http://127.0.0.1:1/api/v1/user/model/7", Status: 200,
		RequestHeader: http.Header{"Authorization": {"Bearer <redacted>"}}, ResponseBody: `{"status":"ok"}`,
		Curl: `curl -H "Authorization: Bearer $CONFORMANCE_API_KEY" http://127.0.0.1:1/api/v1/user/model/7`}
	f := judge.Finding{Operation: "getModel", Side: judge.Server, Pointer: "/status", Rule: judge.RuleEnvelope,
		Expected: `"success"`, Got: `"ok"`, Clause: "1.1", Class: judge.Declared}
	add("auth", Passed, "auth passes")
	for range 5 {
		add("models", Passed, "a model check passes")
	}
	c := add("models", Failed, "MUST refuse <script>alert(1)</script>")
	c.Failure = &Failure{Kind: "failed", Message: "not a conforming success:\n  - " + f.String() + "\nin " + x.Line(),
		Location: Location{File: "/src/conformance/models.go", Line: 42}}
	c.Findings, c.Reproduce, c.Exchanges = judge.Findings{f}, []*exchange.Exchange{x}, []*exchange.Exchange{x}
	c = add("datasets", DecidedDiffers, "a dataset differs")
	d := f
	d.Class, d.Decision, d.Clause = judge.Decided, "D-17", ""
	c.Differences = []Difference{{Decision: "D-17", What: "refused with another status code", Findings: judge.Findings{d}, Curl: x.Curl, Line: x.Line()}}
	add("datasets", NotSelected, "a dataset check not selected")
	add("datasets", Pending, "a pending dataset check")
	c = add("inference", Skipped, "an inference check skipped")
	c.SkipReason = "the budget for inferences is spent"
	c.Streams = []judge.StreamTiming{{FirstToken: 5 * time.Millisecond, LastToken: 9 * time.Millisecond, Duration: 10 * time.Millisecond, Tokens: 3}}
	c.Retries = 2
	c.Notes = []Note{{Name: "left by the client", Text: "1 exchange(s) the client left"}}
	c = add("explore", Failed, "an explore property fails")
	c.Failure = &Failure{Kind: "panicked", Message: "Test Panicked: boom", Stack: "goroutine 1 [running]:"}
	r.SuiteFailures = []SuiteFailure{{Node: "AfterSuite", Failure: Failure{Kind: "failed", Message: "clean-up failed\nmore"}}}
	rec := coverage.New(spec.Strict())
	rec.Observe("GET", "/api/v1/user/model", 200, "application/json", []byte(`{"status":"success","data":[]}`))
	rec.Observe("GET", "/nowhere/"+testKey, 404, "application/json", nil)
	cov := rec.Report()
	r.Coverage = &cov
	r.Spent = &Spent{Budget: "models=1,evaluation-runs=1", Left: []string{"datasets 8", "conversations c-9"}, Rows: []SpentRow{
		{Kind: "models", Limit: 1, Taken: 1, Denied: 1, Created: []string{"21"}, Removed: []string{"21"}},
		{Kind: "datasets", Limit: -1, Taken: 1, Created: []string{"8"}, Left: []string{"8"}},
		{Kind: "evaluations", Limit: -1},
		{Kind: "evaluation-runs", Limit: 1, Taken: 1, Started: []string{"41"}},
		{Kind: "conversations", Limit: -1, Taken: 1, Created: []string{"c-9"}, Unplanned: []string{"c-9"}, Left: []string{"c-9"}},
		{Kind: "inferences", Limit: -1, Taken: 2, Started: []string{"", ""}},
	}}
	return r, Options{Key: testKey}
}
