package mockserver

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"contractkit/mockserver/store"
	"contractkit/mockserver/wal"
)

// DefaultCompactBytes is the size of the state log past which it is folded
// into the snapshot, when Config.CompactBytes is zero; a larger snapshot
// raises it to its own size, so that rewriting the snapshot costs at most
// as much again as the log it replaces.
const DefaultCompactBytes = 4 << 20

// The state is three files (docs/frontend.md, "--state"): the snapshot at the path
// given, the log of the changes since, and while the log is being folded
// into a new snapshot, the log before.
const (
	logSuffix  = ".log"
	prevSuffix = ".log.prev"
)

// persister keeps the store in the state files: every change is appended
// to the log, and on disk before it is answered (durableWriter); now and
// then the log is folded into the snapshot.
type persister struct {
	snapshot, logPath, prevPath string
	store                       *store.Store
	log                         *slog.Logger
	minCompact                  int64
	// next is the sequence number of the first new record.
	next uint64

	wal *wal.Log // nil until start

	compactMu sync.Mutex // one compaction at a time
	// prevLeft says a compaction failed after rotating the log: the file at
	// prevPath holds records no snapshot holds yet.
	prevLeft bool

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// openState restores the store from the snapshot at cfg.StateFile and the
// log beside it. Missing files are an empty start. A torn last record (a
// crash mid-append: it was never answered) is dropped with a warning. A
// snapshot or a log that cannot be read is an error naming the file (and
// the record's offset), and every file is left as it is.
func (s *Server) openState() error {
	path := s.cfg.StateFile
	if path == "" {
		return nil
	}
	p := &persister{
		snapshot: path, logPath: path + logSuffix, prevPath: path + prevSuffix,
		store: s.store, log: s.log, minCompact: s.cfg.CompactBytes,
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	if p.minCompact <= 0 {
		p.minCompact = DefaultCompactBytes
	}
	leave := "the files were left untouched; fix them, move them away or start without --state"
	data, err := os.ReadFile(path)
	var last uint64
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.log.Info("no state file yet: starting empty", "file", path)
	case err != nil:
		return fmt.Errorf("state file %s: %w", path, err)
	default:
		if last, err = s.store.Restore(data); err != nil {
			return fmt.Errorf("state file %s: %w (%s)", path, err, leave)
		}
	}
	// The logs' sequence numbers grow from one file to the next; the
	// snapshot may hold some of their records already (it was written
	// while they were appended, or before the folded log was removed):
	// Apply skips those.
	records, logged := 0, uint64(0)
	for _, log := range []string{p.prevPath, p.logPath} {
		r, err := wal.Replay(log, logged, s.store.Apply)
		if err != nil {
			return fmt.Errorf("%w (%s)", err, leave)
		}
		if r.TornBytes > 0 {
			s.log.Warn("state log: dropped a torn last record (the server stopped while writing it, before answering)",
				"file", log, "offset", r.TornAt, "bytes", r.TornBytes)
		}
		records += r.Records
		logged = r.Last
	}
	last = max(last, logged)
	if data != nil || records > 0 {
		s.log.Info("state restored", "file", path, "bytes", len(data), "log_records", records)
	}
	p.next = last + 1
	s.persist = p
	return nil
}

// startSaving writes the snapshot of everything restored and preloaded,
// starts an empty log, and from then on logs every change.
func (s *Server) startSaving() error {
	p := s.persist
	if p == nil {
		return nil
	}
	data, err := p.writeSnapshot()
	if err != nil {
		return err
	}
	// The snapshot holds every record: the logs can go.
	if p.wal, err = wal.Create(p.logPath, p.next); err != nil {
		return fmt.Errorf("state log %s: %w", p.logPath, err)
	}
	if err := wal.Remove(p.prevPath); err != nil {
		return errors.Join(fmt.Errorf("state log %s: %w", p.prevPath, err), p.wal.Close())
	}
	p.wal.SetThreshold(max(p.minCompact, int64(len(data))))
	s.store.SetLog(p.wal)
	go p.run(p.wal.Full())
	return nil
}

// durable waits until every change made so far is on disk (nothing to
// wait for without a state file).
func (s *Server) durable() error {
	if s.persist == nil || s.persist.wal == nil {
		return nil
	}
	return s.persist.wal.Wait()
}

// SaveState folds the state log into the snapshot now (nothing without a
// state file). Every answered change is on disk already; this only
// shortens the next start.
func (s *Server) SaveState() error {
	if s.persist == nil {
		return nil
	}
	return s.persist.compact()
}

// Close folds the state log into the snapshot a last time and closes the
// log; call it after the http.Server has shut down. Without a state file it
// does nothing. Later calls return the first call's result.
func (s *Server) Close() error {
	// The streams that took their connection over are not the
	// http.Server's to wait for: once shutdown has told them to end, they
	// are waited for here, so their last changes are saved too.
	select {
	case <-s.shutdown:
		s.taken.wg.Wait()
	default:
	}
	if s.persist == nil {
		return nil
	}
	return s.persist.close()
}

// run folds the log into the snapshot whenever it has grown past its
// threshold (full), until close.
func (p *persister) run(full <-chan struct{}) {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		case <-full:
			if err := p.compact(); err != nil {
				p.log.Error("state log not folded into the snapshot (every change is still in the log)", "err", err)
			}
		}
	}
}

// compact rotates the log, writes a snapshot (which holds every record of
// the rotated log, and perhaps some of the new one: replay skips those),
// then removes the rotated log. A crash at any point leaves files that
// replay to the same state.
func (p *persister) compact() error {
	p.compactMu.Lock()
	defer p.compactMu.Unlock()
	if !p.prevLeft {
		if err := p.wal.Rotate(p.prevPath); err != nil {
			return err
		}
		p.prevLeft = true
	}
	data, err := p.writeSnapshot()
	if err != nil {
		return err
	}
	if err := wal.Remove(p.prevPath); err != nil {
		return fmt.Errorf("state log %s: %w", p.prevPath, err)
	}
	p.prevLeft = false
	p.wal.SetThreshold(max(p.minCompact, int64(len(data))))
	p.log.Debug("state log folded into the snapshot", "file", p.snapshot, "bytes", len(data))
	return nil
}

func (p *persister) writeSnapshot() ([]byte, error) {
	data, err := p.store.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", p.snapshot, err)
	}
	if err := writeFileAtomic(p.snapshot, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return nil, fmt.Errorf("state file %s: %w", p.snapshot, err)
	}
	return data, nil
}

func (p *persister) close() error {
	p.closeOnce.Do(func() {
		if p.wal == nil { // New failed before saving began
			return
		}
		close(p.stop)
		<-p.done
		p.closeErr = errors.Join(p.compact(), p.wal.Close())
	})
	return p.closeErr
}

// writeFileAtomic replaces the file at path by what write writes, so that a
// crash or an error at any moment leaves either the old file or the new one,
// whole, never a mix: it writes a temporary file in the same directory
// (rename is atomic only within one file system), syncs it, renames it over
// path and syncs the directory so the rename itself is durable. On an error
// the temporary file is removed and path is untouched. The file is readable
// by its owner only: it holds the users' uploaded data.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // may already be closed; the write error is the one to report
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
