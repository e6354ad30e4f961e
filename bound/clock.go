package bound

import "time"

// clock is the time a Reader reads and the timer it sets; the tests give
// a fake one, so the bounds' arithmetic is tested without waiting.
type clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) timer
}

// timer is what time.AfterFunc returns.
type timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

type realClock struct{}

func (realClock) Now() time.Time                            { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }
