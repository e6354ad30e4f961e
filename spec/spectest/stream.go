package spectest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// doneData ends an inference stream: `data: [DONE]` (seed §4.4). The
// contract states it in prose only, so it is written here once.
const doneData = "[DONE]"

// stream judges an event stream as the test reads it, so a test can stop
// early (a client that leaves) or read a stream that never ends: each event
// is judged when its blank line arrives; at the clean end of the stream
// (io.EOF) the whole answer goes through the validator and must have ended
// with `data: [DONE]`. A stream that ends in a read error (a cut
// connection, a cancelled request) is not judged at its end: the test sees
// the error itself.
type stream struct {
	t     *Transport
	x     *exchange
	resp  *http.Response
	r     io.ReadCloser
	chunk *openapi3.Schema // the x-event-schema of the answer; nil: none stated
	max   int64

	mu      sync.Mutex // guards the fields below (Read and Close may race)
	all     bytes.Buffer
	over    bool     // the stream passed max: not kept whole
	pending []byte   // bytes of a line not yet ended
	data    []string // data lines of the event being read
	done    bool     // [DONE] was read
	ended   bool
}

func (t *Transport) newStream(x *exchange, resp *http.Response) *stream {
	s := &stream{t: t, x: x, resp: resp, r: resp.Body, max: t.MaxBody}
	if s.max <= 0 {
		s.max = DefaultMaxBody
	}
	if r := x.op.Responses.Status(resp.StatusCode); r != nil && r.Value != nil {
		if ref := t.Contract.EventSchema(r.Value.Content.Get("text/event-stream")); ref != nil {
			s.chunk = ref.Value
		}
	}
	return s
}

func (s *stream) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > 0 {
		s.feed(p[:n])
	}
	if errors.Is(err, io.EOF) && !s.ended {
		s.ended = true
		s.finish()
	}
	return n, err
}

func (s *stream) Close() error { return s.r.Close() }

func (s *stream) errorf(format string, args ...any) {
	s.t.rep.Errorf("spectest: stream: %s: "+format, append([]any{s.x.where()}, args...)...)
}

// feed consumes every complete line of p; a line ends at \n, \r\n or \r.
func (s *stream) feed(p []byte) {
	if !s.over {
		if int64(s.all.Len()+len(p)) > s.max {
			s.over, s.all = true, bytes.Buffer{}
		} else {
			s.all.Write(p)
		}
	}
	s.pending = append(s.pending, p...)
	for {
		i := bytes.IndexAny(s.pending, "\r\n")
		if i < 0 {
			break
		}
		next := i + 1
		if s.pending[i] == '\r' {
			if next == len(s.pending) {
				break // a \r at the end: wait for a \n that may follow
			}
			if s.pending[next] == '\n' {
				next++
			}
		}
		s.line(string(s.pending[:i]))
		s.pending = s.pending[next:]
	}
	if int64(len(s.pending)) > s.max {
		s.errorf("a line of more than %d bytes", s.max)
		s.pending = nil
	}
}

// line applies one line of the stream: a blank line ends an event; the
// contract allows `data:`, comments, `event:`, `id:` (and `retry:`) fields.
func (s *stream) line(l string) {
	switch {
	case l == "":
		if len(s.data) > 0 {
			s.event(strings.Join(s.data, "\n"))
			s.data = nil
		}
	case strings.HasPrefix(l, ":"):
	case strings.HasPrefix(l, "data:"):
		s.data = append(s.data, strings.TrimPrefix(strings.TrimPrefix(l, "data:"), " "))
	case strings.HasPrefix(l, "event:"), strings.HasPrefix(l, "id:"), strings.HasPrefix(l, "retry:"):
	default:
		s.errorf("a line that is no SSE field: %q", snippet([]byte(l)))
	}
}

// event judges the data of one event.
func (s *stream) event(data string) {
	if s.done {
		s.errorf("an event after data: %s: %s", doneData, snippet([]byte(data)))
		return
	}
	if data == doneData {
		s.done = true
		return
	}
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		s.errorf("event data is neither JSON nor %s: %q", doneData, snippet([]byte(data)))
		return
	}
	if s.chunk == nil {
		return
	}
	if err := s.chunk.VisitJSON(v); err != nil {
		s.errorf("an event does not match its x-event-schema: %s\n\tevent: %s", schemaProblem(err), snippet([]byte(data)))
	}
}

func (s *stream) finish() {
	if len(bytes.TrimSpace(s.pending)) > 0 || len(s.data) > 0 {
		s.errorf("ends inside an event (no blank line after its last field): %q", snippet(s.pending))
	}
	if !s.done {
		s.errorf("ended without data: %s (seed §4.4)", doneData)
	}
	if !s.over {
		s.t.validate(s.x, s.resp, s.all.Bytes())
	}
}
