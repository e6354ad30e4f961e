package mockserver

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/lifecycle"
)

// limiter is a token bucket per account: rate tokens a second, bursts of at
// most rate (D-14).
type limiter struct {
	rate  int
	clock lifecycle.Clock

	mu      sync.Mutex // guards buckets
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate int, clock lifecycle.Clock) *limiter {
	return &limiter{rate: rate, clock: clock, buckets: map[string]*bucket{}}
}

// allow takes a token for account, setting the rate-limit headers; with none
// left it returns the 429 (with Retry-After already set).
func (l *limiter) allow(w http.ResponseWriter, account string) error {
	if l.rate <= 0 {
		return nil
	}
	now := l.clock.Now()
	l.mu.Lock()
	b := l.buckets[account]
	if b == nil {
		b = &bucket{tokens: float64(l.rate), last: now}
		l.buckets[account] = b
	}
	b.tokens = math.Min(float64(l.rate), b.tokens+now.Sub(b.last).Seconds()*float64(l.rate))
	b.last = now
	ok := b.tokens >= 1
	if ok {
		b.tokens--
	}
	remaining, deficit := int(b.tokens), 1-b.tokens
	l.mu.Unlock()

	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.rate))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(remaining, 0)))
	if ok {
		return nil
	}
	retry := int(math.Ceil(deficit / float64(l.rate)))
	h.Set("Retry-After", strconv.Itoa(max(retry, 1)))
	return apierr.New(apierr.RateLimited, "Rate limit exceeded: %d requests per second", l.rate)
}
