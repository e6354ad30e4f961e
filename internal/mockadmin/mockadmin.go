// Package mockadmin drives a running mock through its admin API, for tests
// that run the conformance suite against it: Drive moves the mock's clocks
// forward while the suite polls (so a mock whose models train for minutes,
// as a real service's do, costs a test seconds), and Snapshot reads what an
// account holds, so a test can prove a run left it as it found it.
//
// It speaks HTTP to any running mock (in process, or a child started by
// internal/childserver) and knows only the admin routes of
// mockserver/admin.go: POST /admin/advance and GET /admin/state.
package mockadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// maxAnswer bounds an admin answer read (a state dump of a large account).
const maxAnswer = 64 << 20

// Client is one account of a running mock.
type Client struct {
	// Base is the mock's address ("http://127.0.0.1:8080").
	Base string
	// Key opens the account; it is sent, never printed.
	Key string
	// HTTP sends the requests; nil is http.DefaultClient.
	HTTP *http.Client
}

func (c Client) do(ctx context.Context, method, path string, q url.Values, into any) error {
	u := c.Base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %.200s", method, path, resp.StatusCode, body)
	}
	if into == nil {
		return nil
	}
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return json.Unmarshal(env.Data, into)
}

// Advance moves the account's clock forward by d: its trainings and
// evaluations go on as if d had passed.
func (c Client) Advance(ctx context.Context, d time.Duration) error {
	return c.do(ctx, http.MethodPost, "/admin/advance", url.Values{"by": {d.String()}}, nil)
}

// Finish ends every training and evaluation of the account now.
func (c Client) Finish(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/admin/advance", nil, nil)
}

// maxSteps bounds a Drive: at its default pace, far longer than any run.
const maxSteps = 1_000_000

// Driver moves mock clocks in the background (Drive).
type Driver struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex // guards advanced and err
	advanced time.Duration
	err      error
}

// Drive advances every account's clock by step every `every` of real time
// until Stop is called (or ctx ends), so a suite that polls for a model to
// train sees it train step/every times faster. A failed advance (the mock
// went away) ends the drive; Stop returns its error.
func Drive(ctx context.Context, accounts []Client, step, every time.Duration) *Driver {
	ctx, cancel := context.WithCancel(ctx)
	d := &Driver{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for range maxSteps {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for _, a := range accounts {
				if err := a.Advance(ctx, step); err != nil {
					d.mu.Lock()
					if ctx.Err() == nil {
						d.err = err
					}
					d.mu.Unlock()
					return
				}
			}
			d.mu.Lock()
			d.advanced += step
			d.mu.Unlock()
		}
	}()
	return d
}

// Done is closed when the drive has ended: stopped, or by a failed advance.
func (d *Driver) Done() <-chan struct{} { return d.done }

// Stop ends the drive and returns how far it moved the clocks and the
// error that ended it early, if any.
func (d *Driver) Stop() (time.Duration, error) {
	d.cancel()
	<-d.done
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.advanced, d.err
}

// Snapshot is what an account holds, by kind: the ids of its models,
// datasets (live and soft-deleted) and evaluations, and its conversations
// with their number of messages. Fields a clock moves (a training's
// progress) are left out: a snapshot compares what a run made and removed.
type Snapshot struct {
	Models          []string
	Datasets        []string
	DeletedDatasets []string
	Evaluations     []string
	// Conversations maps a conversation's id to its number of messages.
	Conversations map[string]int
}

// Snapshot reads the account's state (GET /admin/state).
func (c Client) Snapshot(ctx context.Context) (Snapshot, error) {
	type rec struct {
		ID json.RawMessage `json:"id"`
	}
	var dump struct {
		Models          []rec `json:"models"`
		Datasets        []rec `json:"datasets"`
		DeletedDatasets []rec `json:"deleted_datasets"`
		Evaluations     []rec `json:"evaluations"`
		Conversations   []struct {
			ID       string            `json:"id"`
			Messages []json.RawMessage `json:"messages"`
		} `json:"conversations"`
	}
	if err := c.do(ctx, http.MethodGet, "/admin/state", nil, &dump); err != nil {
		return Snapshot{}, err
	}
	ids := func(rs []rec) []string {
		out := make([]string, 0, len(rs))
		for _, r := range rs {
			s, err := strconv.Unquote(string(r.ID))
			if err != nil {
				s = string(r.ID) // a number
			}
			out = append(out, s)
		}
		slices.Sort(out)
		return out
	}
	s := Snapshot{Models: ids(dump.Models), Datasets: ids(dump.Datasets), DeletedDatasets: ids(dump.DeletedDatasets),
		Evaluations: ids(dump.Evaluations), Conversations: map[string]int{}}
	for _, c := range dump.Conversations {
		s.Conversations[c.ID] = len(c.Messages)
	}
	return s, nil
}

// Diff lists how after differs from before, one line per kind that
// changed ("models: made 21; removed 4"); none when the account is as it
// was.
func Diff(before, after Snapshot) []string {
	var out []string
	for _, k := range []struct {
		kind string
		b, a []string
	}{
		{"models", before.Models, after.Models},
		{"datasets", before.Datasets, after.Datasets},
		{"deleted datasets", before.DeletedDatasets, after.DeletedDatasets},
		{"evaluations", before.Evaluations, after.Evaluations},
		{"conversations", sortedKeys(before.Conversations), sortedKeys(after.Conversations)},
	} {
		if line := setDiff(k.kind, k.b, k.a); line != "" {
			out = append(out, line)
		}
	}
	for _, id := range sortedKeys(before.Conversations) {
		if n, ok := after.Conversations[id]; ok && n != before.Conversations[id] {
			out = append(out, fmt.Sprintf("conversation %s: %d messages, was %d", id, n, before.Conversations[id]))
		}
	}
	return out
}

func setDiff(kind string, before, after []string) string {
	var made, removed []string
	for _, id := range after {
		if !slices.Contains(before, id) {
			made = append(made, id)
		}
	}
	for _, id := range before {
		if !slices.Contains(after, id) {
			removed = append(removed, id)
		}
	}
	switch {
	case made == nil && removed == nil:
		return ""
	case removed == nil:
		return fmt.Sprintf("%s: made %v", kind, made)
	case made == nil:
		return fmt.Sprintf("%s: removed %v", kind, removed)
	}
	return fmt.Sprintf("%s: made %v; removed %v", kind, made, removed)
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
