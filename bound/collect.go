package bound

import (
	"errors"
	"io"
	"sync"
)

// How a body is held while it is read, so that reading one answer holds
// about its bound and no more, however many answers a run reads (measured
// in memory.go):
//
//   - an answer that announced its length (Content-Length) within the
//     bound is read into one buffer of that length: no growth, no copy;
//   - any other is read into a scratch buffer of the bound's size taken
//     from a pool, then copied out at its exact length, and the scratch
//     goes back to the pool: a run that reads a hundred answers cut at
//     8 MiB allocates one 8 MiB buffer, not a hundred;
//   - a body cut by its byte bound keeps only its first CutKept bytes when
//     the caller asks (trim): what it said past them is no answer a judge
//     reads (it is incomplete), and a report shows an excerpt. Kept whole,
//     each cut answer an exchange holds would hold its bound.

// CutKept is what a body cut by its byte bound keeps of what was read when
// Collect trims it: 64 KiB, far more than a report's excerpt.
const CutKept = 64 << 10

// scratchMax is the largest bound whose buffers are pooled; a larger one
// (no bound at all) grows its buffer by doubling.
const scratchMax = 64 << 20

// scratch holds the pools of read buffers, one per capacity (a bound plus
// the one byte that tells a body at the bound from one past it).
var scratch struct {
	mu    sync.Mutex
	pools map[int]*sync.Pool
}

func scratchPool(capacity int) *sync.Pool {
	scratch.mu.Lock()
	defer scratch.mu.Unlock()
	if scratch.pools == nil {
		scratch.pools = map[int]*sync.Pool{}
	}
	p := scratch.pools[capacity]
	if p == nil {
		p = &sync.Pool{New: func() any {
			b := make([]byte, capacity)
			return &b
		}}
		scratch.pools[capacity] = p
	}
	return p
}

// Collect reads r to its end and returns what it read: nil, an *Error
// when r is a Reader whose bound cut it, or the transport's error. limit
// is r's byte bound (0: none), size the length the answer announced
// (Content-Length; -1 when it announced none). With trim, a body cut by a
// size bound keeps only its first CutKept bytes. The slice returned is
// the caller's alone (never a pooled buffer), and not nil.
func Collect(r io.Reader, size, limit int64, trim bool) ([]byte, error) {
	var buf []byte
	var pooled *[]byte
	switch {
	case size >= 0 && (limit <= 0 || size <= limit) && size < scratchMax:
		// One more byte than announced: the read that finds the end.
		buf = make([]byte, 0, size+1)
	case limit > 0 && limit < scratchMax:
		pooled = scratchPool(int(limit) + 1).Get().(*[]byte)
		buf = (*pooled)[:0]
	default:
		buf = make([]byte, 0, 4<<10)
	}
	for {
		if len(buf) == cap(buf) {
			buf, pooled = grow(buf, pooled, limit)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return release(buf, pooled, nil, trim)
		}
		if err != nil {
			return release(buf, pooled, err, trim)
		}
	}
}

// grow makes room in a full buffer: an announced length that was passed
// moves to a scratch buffer of the bound; a scratch buffer that is full
// (a reader that reads past its bound) or an unbounded read doubles.
func grow(buf []byte, pooled *[]byte, limit int64) ([]byte, *[]byte) {
	if pooled == nil && limit > 0 && limit < scratchMax && int64(cap(buf)) < limit+1 {
		p := scratchPool(int(limit) + 1).Get().(*[]byte)
		return append((*p)[:0], buf...), p
	}
	next := make([]byte, len(buf), 2*cap(buf)+1)
	copy(next, buf)
	if pooled != nil {
		scratchPool(cap(*pooled)).Put(pooled)
	}
	return next, nil
}

// release returns what the caller keeps of buf (all of it, or the first
// CutKept bytes of a body cut with trim) in a slice of its own, and puts
// a scratch buffer back in its pool.
func release(buf []byte, pooled *[]byte, err error, trim bool) ([]byte, error) {
	kept := buf
	cut := trim && errors.Is(err, ErrOverSize) && len(kept) > CutKept
	if cut {
		kept = kept[:CutKept]
	}
	if pooled == nil && !cut {
		return kept, err
	}
	out := append(make([]byte, 0, len(kept)), kept...)
	if pooled != nil {
		scratchPool(cap(*pooled)).Put(pooled)
	}
	return out, err
}
