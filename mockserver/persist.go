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
	"sync/atomic"
	"time"

	"contractkit/mockserver/store"
)

// DefaultSaveDelay is how long after a change the state file is written
// when Config.SaveDelay is zero: changes in a burst (a test suite's setup)
// cost one write, and a crash loses at most this much.
const DefaultSaveDelay = 500 * time.Millisecond

// openState restores the store from cfg.StateFile and starts saving to it.
// A missing file is an empty start: the file is created at once, so a path
// that cannot be written fails now, not on the first change. A file that
// cannot be read or restored is an error naming it, and is left as it is.
func (s *Server) openState() error {
	path := s.cfg.StateFile
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.log.Info("no state file yet: starting empty", "file", path)
	case err != nil:
		return fmt.Errorf("state file %s: %w", path, err)
	default:
		if err := s.store.Restore(data); err != nil {
			return fmt.Errorf("state file %s: %w (the file was left untouched; fix it, move it away or start without --state)", path, err)
		}
		s.log.Info("state restored", "file", path, "bytes", len(data))
	}
	s.saver = newSaver(path, s.store, s.log, s.cfg.SaveDelay)
	return nil
}

// startSaving writes the state file once, then after every change.
func (s *Server) startSaving() error {
	if s.saver == nil {
		return nil
	}
	if err := s.saver.Flush(); err != nil {
		return err
	}
	s.saver.started.Store(true)
	go s.saver.run()
	return nil
}

// SaveState writes the state file now (nothing without a state file).
func (s *Server) SaveState() error {
	if s.saver == nil {
		return nil
	}
	return s.saver.Flush()
}

// Close stops saving and writes the state file one last time; call it after
// the http.Server has shut down, so the last requests' changes are kept.
// Without a state file it does nothing.
func (s *Server) Close() error {
	if s.saver == nil {
		return nil
	}
	return s.saver.Close()
}

// saver writes a store to a file some time after it changes. It saves at
// most once per delay however fast changes come, so a steady stream of
// requests cannot postpone saving forever.
type saver struct {
	path  string
	store *store.Store
	log   *slog.Logger
	delay time.Duration
	// after waits for the delay; tests replace it to fire saves by hand.
	after func(time.Duration) <-chan time.Time
	// saved, when set, is called after each save of run (tests).
	saved func(error)

	writeMu sync.Mutex // serialises writes of the file

	started   atomic.Bool // run was started: Close waits for it
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

func newSaver(path string, st *store.Store, log *slog.Logger, delay time.Duration) *saver {
	if delay <= 0 {
		delay = DefaultSaveDelay
	}
	return &saver{
		path: path, store: st, log: log, delay: delay, after: time.After,
		stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// run saves after changes until Close.
func (sv *saver) run() {
	defer close(sv.done)
	for {
		select {
		case <-sv.stop:
			return
		case <-sv.store.Changed():
		}
		select {
		case <-sv.stop:
			return // Close saves
		case <-sv.after(sv.delay):
		}
		// The snapshot taken now holds every change signalled during the
		// delay: drop that signal, or the burst would cost a second save.
		select {
		case <-sv.store.Changed():
		default:
		}
		err := sv.Flush()
		if err != nil {
			sv.log.Error("state file not saved", "file", sv.path, "err", err)
		}
		if sv.saved != nil {
			sv.saved(err)
		}
	}
}

// Flush writes the store's snapshot to the file now.
func (sv *saver) Flush() error {
	sv.writeMu.Lock()
	defer sv.writeMu.Unlock()
	data, err := sv.store.Snapshot()
	if err != nil {
		return fmt.Errorf("state file %s: %w", sv.path, err)
	}
	if err := writeFileAtomic(sv.path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return fmt.Errorf("state file %s: %w", sv.path, err)
	}
	sv.log.Debug("state saved", "file", sv.path, "bytes", len(data))
	return nil
}

// Close stops run (if it was started) and saves one last time. Later calls
// return the first call's result.
func (sv *saver) Close() error {
	sv.closeOnce.Do(func() {
		close(sv.stop)
		if sv.started.Load() {
			<-sv.done
		}
		sv.closeErr = sv.Flush()
	})
	return sv.closeErr
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
