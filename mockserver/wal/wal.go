// Package wal is the mock's write-ahead log for --state: an append-only
// file of records, each on disk (written and fsynced) before the answer
// that reports it is sent, so a crash (kill -9, power loss) loses no
// acknowledged change. The store folds the log into its snapshot now and
// then (Rotate), which keeps the log short.
//
// A record is one line: its CRC-32C in hex, its sequence number, the
// payload (JSON, which never holds a raw newline), a newline:
//
//	1f2e3d4c 42 {"account":"account-1",...}
//
// The checksum covers the sequence number and the payload. Sequence numbers
// grow by one per record and never repeat across rotations or restarts (the
// caller passes the next one to Create), so a snapshot can say which
// records it already holds.
//
// Records are gathered in memory by Append (cheap: callers hold their own
// locks) and written by one goroutine: a write and an fsync carry every
// record appended since the last one (group commit), and Wait returns once
// the records appended before it are on disk.
package wal

import (
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
)

// castagnoli is CRC-32C, the checksum of every record.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrClosed is Wait's answer once the log is closed.
var ErrClosed = errors.New("the state log is closed")

// maxSpare is the largest write buffer kept for the next batch: one huge
// record (a large upload's text) is not kept alive after it is written.
const maxSpare = 1 << 20

// file is what the log writes to: an *os.File, or a test's failing one.
type file interface {
	Write(p []byte) (int, error)
	Sync() error
	Close() error
}

// Log appends records to one file. Create it with Create; it is safe for
// concurrent use.
type Log struct {
	path string

	mu   sync.Mutex
	work *sync.Cond // the writer waits for records, a rotation or Close
	done *sync.Cond // Wait and Rotate wait for the writer
	// buf holds the framed records not yet handed to the writer; spare is
	// the writer's last buffer, reused.
	buf, spare []byte
	next       uint64 // the sequence number of the next record
	buffered   uint64 // the sequence number of the last record in buf
	err        error  // the first write or sync error: every later Wait fails
	rotation   *rotation
	closing    bool
	closed     bool
	closeErr   error
	size       int64 // bytes in the current file (the writer's)
	threshold  int64 // Full is signalled once size reaches it (0: never)

	// appended and durable are the last sequence numbers appended and on
	// disk, read without the lock by Wait's fast path.
	appended, durable atomic.Uint64
	// records and syncs count what was written, for the benchmarks.
	records, syncs atomic.Uint64

	f       file
	full    chan struct{}
	stopped chan struct{}
}

type rotation struct {
	to   string
	err  error
	done chan struct{}
}

// Create opens a new, empty log at path (an existing file there is
// truncated), readable by its owner only, whose first record will have
// sequence number next (at least 1). The directory is synced so the file
// itself survives a crash.
func Create(path string, next uint64) (*Log, error) {
	f, err := createFile(path)
	if err != nil {
		return nil, err
	}
	return start(path, f, next), nil
}

func start(path string, f file, next uint64) *Log {
	if next == 0 {
		next = 1
	}
	l := &Log{path: path, f: f, next: next, full: make(chan struct{}, 1), stopped: make(chan struct{})}
	l.work, l.done = sync.NewCond(&l.mu), sync.NewCond(&l.mu)
	l.appended.Store(next - 1)
	l.durable.Store(next - 1)
	go l.run()
	return l
}

func createFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Append adds a record and returns its sequence number. It does no I/O: the
// record reaches the disk with the next batch, and Wait waits for it. The
// payload must not hold a newline (JSON never does). After Close the record
// is dropped.
func (l *Log) Append(payload []byte) uint64 {
	for _, c := range payload {
		if c == '\n' {
			panic("wal: a record holds a newline")
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	seq := l.next
	l.next++
	l.appended.Store(seq)
	if l.closing {
		return seq // never written: a Wait for it says so
	}
	l.buf = appendFrame(l.buf, seq, payload)
	l.buffered = seq
	l.work.Signal()
	return seq
}

// appendFrame appends one record's line to b.
func appendFrame(b []byte, seq uint64, payload []byte) []byte {
	var num [20]byte
	n := strconv.AppendUint(num[:0], seq, 10)
	crc := crc32.Update(0, castagnoli, n)
	crc = crc32.Update(crc, castagnoli, []byte{' '})
	crc = crc32.Update(crc, castagnoli, payload)
	b = fmt.Appendf(b, "%08x ", crc)
	b = append(b, n...)
	b = append(b, ' ')
	b = append(b, payload...)
	return append(b, '\n')
}

// Wait returns once every record appended before it was called is on disk,
// or with the error that keeps them off it. With nothing outstanding it
// takes no lock: a read that changed nothing answers at once.
func (l *Log) Wait() error {
	upto := l.appended.Load()
	if l.durable.Load() >= upto {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.durable.Load() < upto {
		if l.err != nil {
			return l.err
		}
		if l.closed {
			return ErrClosed
		}
		l.done.Wait()
	}
	return nil
}

// Rotate writes what is pending, then renames the file to `to` (replacing
// any file there) and goes on in a new, empty file at the log's path. The
// caller folds the old file into a snapshot, then removes it. Records
// appended meanwhile land in one file or the other, in order.
func (l *Log) Rotate(to string) error {
	r := &rotation{to: to, done: make(chan struct{})}
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return ErrClosed
	}
	for l.rotation != nil { // one at a time
		l.done.Wait()
	}
	l.rotation = r
	l.work.Signal()
	l.mu.Unlock()
	<-r.done
	return r.err
}

// Full is signalled (once, until received) when the current file has
// reached the threshold set by SetThreshold.
func (l *Log) Full() <-chan struct{} { return l.full }

// SetThreshold sets the size at which Full is signalled (0: never).
func (l *Log) SetThreshold(bytes int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.threshold = bytes
}

// Stats are the records written and the fsyncs that carried them: with
// requests in parallel, one fsync carries several records (group commit).
func (l *Log) Stats() (records, syncs uint64) { return l.records.Load(), l.syncs.Load() }

// Close writes and syncs what is pending, closes the file and stops the
// writer. Later appends are dropped; later Waits for them return ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	l.closing = true
	l.work.Signal()
	l.mu.Unlock()
	<-l.stopped
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.err, l.closeErr)
}

// run is the writer: it writes and syncs the pending records as one batch,
// then serves a rotation or Close, until Close.
func (l *Log) run() {
	defer close(l.stopped)
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		for len(l.buf) == 0 && l.rotation == nil && !l.closing {
			l.work.Wait()
		}
		if len(l.buf) > 0 {
			l.writeBatch()
			continue // what came meanwhile goes before a rotation or Close
		}
		if r := l.rotation; r != nil {
			l.mu.Unlock()
			r.err = l.rotate(r.to)
			l.mu.Lock()
			l.rotation = nil
			close(r.done)
			l.done.Broadcast()
			continue
		}
		// closing, nothing pending
		l.closeErr = l.f.Close()
		l.closed = true
		l.done.Broadcast()
		return
	}
}

// writeBatch writes and syncs l.buf; the caller holds l.mu, which is
// released during the I/O so that appends go on. After an error nothing
// more is written: the file's end is unknown.
func (l *Log) writeBatch() {
	buf, upto := l.buf, l.buffered
	l.buf, l.spare = l.spare[:0], nil
	if l.err != nil {
		l.done.Broadcast()
		return
	}
	l.mu.Unlock()
	n := uint64(0)
	for _, c := range buf {
		if c == '\n' {
			n++
		}
	}
	_, err := l.f.Write(buf)
	if err == nil {
		err = l.f.Sync()
	}
	l.mu.Lock()
	if cap(buf) <= maxSpare {
		l.spare = buf[:0]
	}
	if err != nil {
		l.err = fmt.Errorf("state log %s: %w", l.path, err)
	} else {
		l.durable.Store(upto)
		l.records.Add(n)
		l.syncs.Add(1)
		l.size += int64(len(buf))
		if l.threshold > 0 && l.size >= l.threshold {
			select {
			case l.full <- struct{}{}:
			default:
			}
		}
	}
	l.done.Broadcast()
}

// rotate renames the current file and opens a new one; only the writer
// calls it, with nothing pending.
func (l *Log) rotate(to string) error {
	if l.err != nil {
		return l.err
	}
	if err := os.Rename(l.path, to); err != nil {
		return fmt.Errorf("state log %s: %w", l.path, err)
	}
	f, err := createFile(l.path)
	if err != nil {
		err = fmt.Errorf("state log %s: %w", l.path, err)
		if back := os.Rename(to, l.path); back != nil {
			// Appends go on into the file at `to`, which the next
			// rotation would replace: no more writes.
			l.mu.Lock()
			l.err = errors.Join(err, back)
			l.mu.Unlock()
		}
		return err
	}
	old := l.f
	l.mu.Lock()
	l.f, l.size = f, 0
	l.mu.Unlock()
	return old.Close()
}

// syncDir makes a file's creation, rename or removal in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Remove removes the file at path, if there is one, durably.
func Remove(path string) error {
	if err := os.Remove(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	return syncDir(filepath.Dir(path))
}
