package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"contractkit/conformance/client"
	"contractkit/judge"
	"contractkit/spec"
)

// An evaluation whose status is none of the four of §2.8.
const pausedEvaluation = `{"status":"success","data":{"id":5,"name":"n","type":"ragas","model_id":1,"status":"paused","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`

func judgedClient(t *testing.T, h http.HandlerFunc) *client.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	c := client.New(u, "key-judged", "", 5*time.Second)
	c.SetJudge(judge.New(spec.Strict(), spec.Declared()))
	return c
}

// Every answer the client reads is judged once: what no caller claims is
// swept, with its findings' own classes; what a caller claims is not.
func TestEveryAnswerReadIsJudgedAndSweptUnlessClaimed(t *testing.T) {
	c := judgedClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, pausedEvaluation)
	})
	get := client.Request{Method: http.MethodGet, Path: "/api/v1/evaluations/5"}
	polled := c.Do(context.Background(), get) // a poll no check judges
	claimed := c.Do(context.Background(), get)
	fs := c.Verdict(claimed)
	if !fs.Has(judge.Server, judge.Declared) || fs.Rule(judge.RuleSchema)[0].Pointer != "/data/status" {
		t.Fatalf("the claimed verdict: %q, want the declared /data/status break", fs.Lines())
	}
	swept, dropped := c.Sweep()
	if len(swept) != 1 || swept[0].X.Seq != polled.Seq || dropped != 0 {
		t.Fatalf("swept %d (dropped %d), want the poll alone", len(swept), dropped)
	}
	if !swept[0].Findings.Has(judge.Server, judge.Declared) {
		t.Errorf("the poll's findings: %q, want the declared break", swept[0].Findings.Lines())
	}
	if again, _ := c.Sweep(); len(again) != 0 {
		t.Errorf("a second sweep found %d again", len(again))
	}
}

// A 429 the client waits out is an answer too: its body must be the error
// envelope (§7), and it is judged like any other.
func TestA429WaitedOutIsJudged(t *testing.T) {
	var n atomic.Int32
	c := judgedClient(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, "slow down")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":[]}`)
	})
	x := c.Do(context.Background(), client.Request{Method: http.MethodGet, Path: "/api/v1/user/dataset"})
	if x.Status != 200 || len(c.Verdict(x)) != 0 {
		t.Fatalf("the answer after the wait: %d %q", x.Status, c.Verdict(x).Lines())
	}
	swept, _ := c.Sweep()
	if len(swept) != 1 || swept[0].X.Status != http.StatusTooManyRequests || len(swept[0].Findings.Rule(judge.RuleEnvelope)) == 0 {
		t.Fatalf("swept %d, want the 429 without its envelope", len(swept))
	}
}

// Nothing the server cannot be blamed for is judged: a request the caller
// gave up on (its context ended) is no finding.
func TestAnAnswerTheCallerGaveUpOnIsNotAFinding(t *testing.T) {
	release := make(chan struct{})
	c := judgedClient(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	x := c.Do(ctx, client.Request{Method: http.MethodGet, Path: "/api/v1/user/dataset"})
	if x.Status != 0 {
		t.Fatalf("answered %d", x.Status)
	}
	if swept, _ := c.Sweep(); len(swept) != 0 {
		t.Errorf("a request the caller gave up on was judged: %q", swept[0].Findings.Lines())
	}
}
