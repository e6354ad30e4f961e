package mockserver

import (
	"net/http"
	"strings"
)

// journalWriter passes every write through at once (a stream is never held
// back) and keeps a bounded copy: the body of a JSON answer, the chunks of
// an event stream (one write of the stream is one event). Flushes reach the
// real writer through Unwrap (http.ResponseController).
type journalWriter struct {
	http.ResponseWriter
	status     int
	headers    http.Header
	stream     bool
	body       strings.Builder // String() shares the bytes: no copy per entry
	size       int64
	truncated  bool
	chunks     chunkLog // front-coded while the stream is open
	chunkCount int
	fault      string           // set by markStreamFault
	override   *journalOverride // the override that acted on the call, if one did
	unknown    *unknownFields   // fields the contract does not name (D-29), if any
	// pending is the data WriteData said its next body wraps (KeepData);
	// data is that data once the body was exactly its envelope, kept in
	// place of a copy of the body (journalMessage.data).
	pending, data []byte
}

// KeepData is apierr.DataKeeper: the body written next is the success
// envelope around data, which is never changed; Write keeps data instead
// of copying the body when the body is exactly that.
func (w *journalWriter) KeepData(data []byte) { w.pending = data }

func (w *journalWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
		// Kept, not cloned: net/http snapshots the map itself when the
		// status is written, and the mock's handlers set no header after it,
		// so this is what was sent.
		w.headers = w.Header()
		w.stream = mediaType(w.headers.Get("Content-Type")) == "text/event-stream"
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *journalWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(p)
	w.size += int64(n)
	switch {
	case w.stream:
		w.chunkCount++
		if w.chunks.n < journalChunks && w.chunks.size+n <= journalBodyBytes {
			w.chunks.add(p[:n])
		} else {
			w.truncated = true
		}
	case w.keptData(p[:n]):
	case w.body.Len() < journalBodyBytes:
		keep := min(n, journalBodyBytes-w.body.Len())
		w.body.Write(p[:keep])
		w.truncated = w.truncated || keep < n
	default:
		w.truncated = true
	}
	return n, err
}

// Unwrap lets http.ResponseController reach Flush on the real writer.
func (w *journalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *journalWriter) message() journalMessage {
	h := w.headers
	if h == nil {
		h = w.Header().Clone()
	}
	m := journalMessage{Headers: h, BodySize: w.size, BodyTruncated: w.truncated}
	if w.stream {
		log := w.chunks
		log.prev = nil // only needed while chunks are added
		m.Stream = &journalStream{log: log, ChunkCount: w.chunkCount, Truncated: w.truncated, Fault: w.fault}
		return m
	}
	m.Body, m.data = w.body.String(), w.data
	return m
}

// keptData reports whether p, the body's first write, is the envelope
// around the data KeepData announced, now kept as w.data. A later write
// puts the envelope into the copied body first, so the body stays whole.
func (w *journalWriter) keptData(p []byte) bool {
	d := w.pending
	w.pending = nil
	if w.data != nil {
		w.body.WriteString(envelopeOf(w.data))
		w.data = nil
		return false
	}
	if d == nil || w.body.Len() != 0 || w.truncated || len(p) != envelopeLen(d) || len(p) > journalBodyBytes ||
		!isEnvelope(p, d) {
		return false
	}
	w.data = d
	return true
}

// markStreamFault tells the journal, if w records one, that fault is ending
// the stream: the entry then says so instead of reading as a plain 200.
func markStreamFault(w http.ResponseWriter, fault string) {
	if jw := journalWriterOf(w); jw != nil {
		jw.fault = fault
	}
}

// journalWriterOf is the journal's writer under w, looking through the
// writers that wrap it (Unwrap); nil when the call is not journaled.
func journalWriterOf(w http.ResponseWriter) *journalWriter {
	for w != nil {
		if jw, ok := w.(*journalWriter); ok {
			return jw
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}
