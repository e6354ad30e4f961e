package mockserver

import (
	"errors"
	"net/http"

	"contractkit/mockserver/apierr"
)

// durableWriter holds an answer back until every change made so far is on
// disk (with --state): a client that got an answer, whatever it reports,
// never sees it undone by a crash. An answer that changed nothing, with
// nothing else outstanding, passes at once. When the state log cannot be
// written the answer is replaced by a 500 envelope that says so: the change
// is in memory but would not survive a crash.
type durableWriter struct {
	http.ResponseWriter
	s       *Server
	checked bool
	failed  bool
}

// ready waits for the disk once, before the answer's first byte; false when
// the answer was replaced.
func (w *durableWriter) ready() bool {
	if w.checked {
		return !w.failed
	}
	w.checked = true
	if err := w.s.durable(); err != nil {
		w.failed = true
		w.s.log.Error("state not saved: answering 500", "err", err)
		apierr.Write(w.ResponseWriter, nil, apierr.New(apierr.Internal, "The change could not be saved to the state file: %v", err))
	}
	return !w.failed
}

func (w *durableWriter) WriteHeader(code int) {
	if w.ready() {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *durableWriter) Write(b []byte) (int, error) {
	if !w.ready() {
		return len(b), nil // the replaced answer's bytes go nowhere
	}
	return w.ResponseWriter.Write(b)
}

// FlushError sends what was written (http.ResponseController calls it);
// the header waits for the disk first. A replaced answer ends there.
func (w *durableWriter) FlushError() error {
	if !w.ready() {
		return errNotSaved
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush is FlushError for callers that want an http.Flusher.
func (w *durableWriter) Flush() { _ = w.FlushError() }

// errNotSaved ends a stream whose answer was replaced.
var errNotSaved = errors.New("the answer was replaced: the state could not be saved")

// finish waits for the disk when the handler wrote nothing (net/http then
// sends a bare 200 on its own).
func (w *durableWriter) finish() { w.ready() }

// Unwrap lets http.ResponseController reach the writer below.
func (w *durableWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
