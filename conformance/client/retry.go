package client

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry bounds for a rate-limited server: a 429 with Retry-After is waited
// out and the request sent again, so a limited server gets verdicts on its
// behaviour rather than on its limit. Per request: at most MaxRetries
// repeats and MaxRetryWait of waiting in all, and never past the check's
// context.
const (
	// MaxRetries is how often one request is repeated at most.
	MaxRetries = 5
	// MaxRetryWait bounds the waiting for one request, all repeats together.
	MaxRetryWait = 30 * time.Second
)

// Retries returns how many requests were repeated after a 429.
func (c *Client) Retries() int64 { return c.retries.Load() }

// retryAfter says how long to wait before repeating r, answered resp after
// attempt repeats and waited so far; ok is false when r is not to be
// repeated: not a 429, no usable Retry-After (seconds or an HTTP date),
// r.NoRetry, or a bound reached.
func retryAfter(ctx context.Context, r Request, resp *http.Response, attempt int, waited time.Duration) (time.Duration, bool) {
	if r.NoRetry || resp.StatusCode != http.StatusTooManyRequests || attempt >= MaxRetries {
		return 0, false
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	var wait time.Duration
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		wait = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		wait = max(0, time.Until(t))
	} else {
		return 0, false
	}
	// Retry-After: 0 is "now"; a short pause keeps a loop from spinning.
	wait = max(wait, 50*time.Millisecond)
	if waited+wait > MaxRetryWait {
		return 0, false
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) < wait {
		return 0, false
	}
	return wait, true
}

// Pause waits d or until ctx ends; false when ctx ended. A check that
// waits for the server (a state that moves on its own) waits with it, so
// the run's deadline and an interrupt end the wait.
func Pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
