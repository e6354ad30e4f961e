package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
)

// events writes Server-Sent Events to one response: each event is one Write
// (the journal records one chunk per write) followed by a flush. The bytes
// are those of fmt.Fprintf(w, "data: %s\n\n", json.Marshal(v)): an Encoder
// escapes as Marshal does and ends with the first '\n'.
type events struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// eventBuf is a reused encoding buffer: an open stream holds none between
// events, and an event allocates no buffer of its own.
type eventBuf struct {
	b   bytes.Buffer
	enc *json.Encoder
}

// eventBufMax is the largest buffer put back in the pool, so that one huge
// event does not stay pinned.
const eventBufMax = 16 << 10

var eventBufs = sync.Pool{New: func() any {
	eb := &eventBuf{}
	eb.enc = json.NewEncoder(&eb.b)
	return eb
}}

// send writes v as one event; false when the client is gone.
func (e events) send(v *chunk) bool {
	eb := eventBufs.Get().(*eventBuf)
	defer func() {
		if eb.b.Cap() <= eventBufMax {
			eventBufs.Put(eb)
		}
	}()
	eb.b.Reset()
	eb.b.WriteString("data: ")
	if err := eb.enc.Encode(v); err != nil {
		return false
	}
	eb.b.WriteByte('\n')
	if _, err := e.w.Write(eb.b.Bytes()); err != nil {
		return false
	}
	return e.rc.Flush() == nil
}

var doneEvent = []byte("data: [DONE]\n\n")

// done writes the stream's last event.
func (e events) done() {
	_, _ = e.w.Write(doneEvent)
	_ = e.rc.Flush()
}

// shuttingDown ends an open stream cleanly on shutdown.
func (e events) shuttingDown() {
	e.send(&chunk{Type: "error", Message: "server is shutting down"})
	e.done()
}
