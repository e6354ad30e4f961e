package mockserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeTimers fire at once and note every wait the mock asked for: the
// tests of delays never sleep.
type fakeTimers struct {
	mu    sync.Mutex
	waits []time.Duration
}

type fakeTimer struct {
	f *fakeTimers
	c chan time.Time
}

func (f *fakeTimers) newTimer(d time.Duration) waitTimer {
	t := &fakeTimer{f: f, c: make(chan time.Time, 1)}
	t.Reset(d)
	return t
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }
func (t *fakeTimer) Stop()               {}
func (t *fakeTimer) Reset(d time.Duration) {
	t.f.mu.Lock()
	t.f.waits = append(t.f.waits, d)
	t.f.mu.Unlock()
	select {
	case t.c <- time.Time{}:
	default:
	}
}

// take returns the waits noted since the last take.
func (f *fakeTimers) take() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.waits
	f.waits = nil
	return out
}

// withFakeTimers serves with timers that fire at once, noted in ft.
func withFakeTimers(ft *fakeTimers) serverOption {
	return withHook(func(s *Server) { s.timers = ft })
}

func within(t *testing.T, what string, d, lo, hi time.Duration) {
	t.Helper()
	if d < lo || d > hi {
		t.Errorf("%s: waited %v, want within %v..%v", what, d, lo, hi)
	}
}

// latencies serves n model lists to each key in turn and returns the
// waits of each key.
func latencies(t *testing.T, seed int64, n int, keys ...string) map[string][]time.Duration {
	ft := &fakeTimers{}
	ts := newTestServer(t, withFakeTimers(ft), withConfig(func(c *Config) {
		c.Seed, c.Latency, c.LatencyMax = seed, 100*time.Millisecond, 900*time.Millisecond
	}))
	out := map[string][]time.Duration{}
	for range n {
		for _, k := range keys {
			ts.client(t, k).get("/api/v1/user/model").want(t, 200)
			w := ft.take()
			if len(w) != 1 {
				t.Fatalf("one call waited %v, want one wait", w)
			}
			out[k] = append(out[k], w[0])
		}
	}
	return out
}

// TestLatencyRangeIsDrawnPerCallSeeded: --latency 100ms..900ms waits a
// different time per call, within the range, the same with the same seed,
// each account its own sequence whatever the others do.
func TestLatencyRangeIsDrawnPerCallSeeded(t *testing.T) {
	a := latencies(t, 7, 12, testKey1)
	b := latencies(t, 7, 12, testKey2, testKey1) // another account's calls in between
	c := latencies(t, 8, 12, testKey1)
	for _, d := range a[testKey1] {
		within(t, "a call", d, 100*time.Millisecond, 900*time.Millisecond)
	}
	if slices.Min(a[testKey1]) == slices.Max(a[testKey1]) {
		t.Errorf("12 calls all waited %v: a range must vary", a[testKey1][0])
	}
	if !slices.Equal(a[testKey1], b[testKey1]) {
		t.Errorf("the same seed gave account 1 %v, then %v with account 2 calling too", a[testKey1], b[testKey1])
	}
	if slices.Equal(a[testKey1], c[testKey1]) {
		t.Errorf("seeds 7 and 8 gave the same waits %v", a[testKey1])
	}
	if slices.Equal(b[testKey1], b[testKey2]) {
		t.Error("two accounts drew the same waits: each has its own sequence")
	}
}

func TestDelayHeaderTakesARange(t *testing.T) {
	ft := &fakeTimers{}
	ts := newTestServer(t, withFakeTimers(ft))
	c := ts.client(t, testKey1)
	for range 5 {
		c.get("/api/v1/user/model", withHeader("X-Mock-Delay", "10ms..20ms")).want(t, 200)
	}
	for _, d := range ft.take() {
		within(t, "X-Mock-Delay 10ms..20ms", d, 10*time.Millisecond, 20*time.Millisecond)
	}
	for _, bad := range []string{"20ms..10ms", "1s..2m", "10ms..", "..5ms"} {
		c.get("/api/v1/user/model", withHeader("X-Mock-Delay", bad)).wantError(t, 400, "X-Mock-Delay")
	}
}

// TestOverrideDelayRangeWithAStatus: one override waits within its range
// and then answers its status; the journal says how long each use waited,
// the same on another server with the same seed.
func TestOverrideDelayRangeWithAStatus(t *testing.T) {
	run := func() ([]time.Duration, []any) {
		ft := &fakeTimers{}
		ts := newTestServer(t, withFakeTimers(ft))
		c := ts.client(t, testKey1)
		o := setOverride(t, c, map[string]any{
			"match":   map[string]any{"method": "GET", "path": modelTemplate},
			"respond": map[string]any{"status": 500, "message": "slow and failing", "delay": map[string]any{"min": "100ms", "max": "900ms"}},
			"times":   3,
		})
		if fmt.Sprint(o.Respond["delay"]) != "map[max:900ms min:100ms]" {
			t.Errorf("the override shows its delay as %v, want it as sent", o.Respond["delay"])
		}
		id := c.models()[0].ID
		ft.take()
		for range 3 {
			c.get(fmt.Sprintf("/api/v1/user/model/%d", id)).wantError(t, 500, "slow and failing")
		}
		waits := ft.take()
		var shown []any
		for _, e := range journalOf(t, c, "?status=500") {
			ov := e["override"].(map[string]any)
			if ov["kind"] != "status" {
				t.Errorf("journal kind %v, want status", ov["kind"])
			}
			shown = append(shown, ov["delay_ms"])
		}
		return waits, shown
	}
	waits, shown := run()
	if len(waits) != 3 || len(shown) != 3 {
		t.Fatalf("waits %v, journal %v: want 3 of each", waits, shown)
	}
	for i, d := range waits {
		within(t, "use "+fmt.Sprint(i+1), d, 100*time.Millisecond, 900*time.Millisecond)
		if ms, ok := shown[i].(float64); !ok || time.Duration(ms*float64(time.Millisecond)) != d.Truncate(time.Microsecond) {
			t.Errorf("use %d waited %v, the journal says %v ms", i+1, d, shown[i])
		}
	}
	if again, _ := run(); !slices.Equal(waits, again) {
		t.Errorf("the same seed waited %v, then %v", waits, again)
	}
}

// TestOverrideStreamPaceAndFault: an override paces its stream with a range
// of its own, after a delay, and breaks it as asked; another paces only.
func TestOverrideStreamPaceAndFault(t *testing.T) {
	ft := &fakeTimers{}
	ts := newTestServer(t, withFakeTimers(ft))
	c := ts.client(t, testKey1)
	model := c.models()[0]
	body := map[string]any{"query": "What does the warranty cover?", "model_id": model.ID}
	infer := map[string]any{"method": "POST", "path": "/api/v1/user/inference"}
	setOverride(t, c, map[string]any{"match": infer, "times": 1,
		"respond": map[string]any{"stream_fault": "error", "delay": "250ms", "token_interval": "30ms..60ms"}})
	ft.take()
	res := c.ask(body)
	if res.count("error") != 1 {
		t.Errorf("the stream got %d error chunks, want the fault's one", res.count("error"))
	}
	waits := ft.take()
	if len(waits) < 3 || waits[0] != 250*time.Millisecond {
		t.Fatalf("waits %v: want the 250ms delay, then the tokens' pace", waits)
	}
	for _, d := range waits[1:] {
		within(t, "a token", d, 30*time.Millisecond, 60*time.Millisecond)
	}

	setOverride(t, c, map[string]any{"match": infer, "times": 1, "respond": map[string]any{"token_interval": "7ms"}})
	res = c.ask(body)
	waits = ft.take()
	if !res.DoneMarker || len(waits) != res.Tokens || slices.Min(waits) != 7*time.Millisecond || slices.Max(waits) != 7*time.Millisecond {
		t.Errorf("a paced stream of %d tokens waited %v, want 7ms before each", res.Tokens, waits)
	}
	c.ask(body) // no override: the server's pace (0 in tests), no wait
	if w := ft.take(); len(w) != 0 {
		t.Errorf("an unpaced stream waited %v", w)
	}
	var kinds []string
	for _, e := range journalOf(t, c, "?path=/api/v1/user/inference") {
		if o, ok := e["override"].(map[string]any); ok {
			kinds = append(kinds, fmt.Sprint(o["kind"], " ", o["delay_ms"]))
		}
	}
	if want := []string{"stream_fault 250", "pace <nil>"}; !slices.Equal(kinds, want) {
		t.Errorf("journal marks %q, want %q", kinds, want)
	}
}

func TestParseDelaySpec(t *testing.T) {
	for in, want := range map[string]delaySpec{
		"250ms": {250 * time.Millisecond, 250 * time.Millisecond}, "2s": {2 * time.Second, 2 * time.Second},
		"40": {40 * time.Millisecond, 40 * time.Millisecond}, "100ms..900ms": {100 * time.Millisecond, 900 * time.Millisecond},
		" 1s .. 2s ": {time.Second, 2 * time.Second},
	} {
		got, err := parseDelaySpec(in)
		if err != nil || got != want {
			t.Errorf("parseDelaySpec(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "soon", "-1s", "61s", "2s..1s", "1s..x"} {
		if _, err := parseDelaySpec(bad); err == nil {
			t.Errorf("parseDelaySpec(%q) accepted", bad)
		}
	}
	var v json.RawMessage = []byte(`{"min":"1ms","max":"3ms"}`)
	if d, err := parseDelayJSON(v); err != nil || d != (delaySpec{time.Millisecond, 3 * time.Millisecond}) {
		t.Errorf("parseDelayJSON(%s) = %v, %v", v, d, err)
	}
}
