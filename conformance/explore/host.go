package explore

import (
	"context"
	"net/url"
	"strings"
	"time"

	"contractkit/conformance/client"
	"contractkit/spec"
)

// Host is what the phase needs of the suite that runs it.
type Host interface {
	// Client sends the phase's requests: its log and the run's coverage
	// see them.
	Client() *client.Client
	// Shared are the written checks' resources every sequence may start
	// with, by the parameter that names them ("dataset_id": "12"); the
	// phase never changes or deletes them.
	Shared() map[string]string
	// Remove deletes a resource the phase created (its path), tolerantly:
	// gone already is fine, and what cannot be removed is the host's to
	// report.
	Remove(ctx context.Context, path string)
}

// Budgeted is a Host that caps what the phase may create and start (the
// run's --budget): the phase draws an operation the contract marks with a
// cost (x-cost) only while Affords says one more is within it.
type Budgeted interface {
	Affords(op spec.Operation) bool
}

// Config is what one run of the phase is asked to do.
type Config struct {
	// Seed draws the requests: the same seed replays the same requests
	// against a fresh server.
	Seed uint64
	// Budget bounds the requests spent exploring (shrinking aside).
	Budget int
	// Strict makes a decided break fatal, like a declared one.
	Strict bool
	// Keep leaves the phase's resources in place.
	Keep bool
	// Permanent deletes what the phase deletes for good, when the
	// contract lets it choose (a delete's `permanent` query parameter): a
	// run that counts its spending leaves no soft-deleted dataset (D-40).
	Permanent bool
	// SecondAccount says the client holds a second account's key: the
	// phase then acts as the other account too (isolation).
	SecondAccount bool
	// Time bounds the phase (0: exploreTime, 40 s); shrinking a failure
	// found near its end gets a time of its own.
	Time time.Duration
}

// Run runs the phase once, within its budget and at most exploreTime
// (shrinking a failure included), and returns what it found.
func Run(ctx context.Context, host Host, cfg Config) *Result {
	x := newExplorer(ctx, host, cfg)
	x.run()
	return &Result{x: x}
}

// at joins a collection path and an id.
func at(collection, id string) string {
	return collection + "/" + url.PathEscape(id)
}

// quoteList renders a list of strings as ["a", "b"].
func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
