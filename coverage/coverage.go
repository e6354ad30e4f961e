// Package coverage measures how much of the contract a body of traffic
// exercised: per operation, the documented statuses seen and never seen,
// the fields of the documented answers never observed, the statuses no
// document allows, and the operations never called. The suite's client
// and the validating proxy feed one Recorder each; Report is what their
// reports print.
//
// Everything is read from the contract (spec.Contract): the operations,
// their documented statuses and answer schemas, the event-stream chunk
// schema (the x-event-schema mark of a text/event-stream answer), and the
// routing of a concrete path to its operation (the contract's router).
package coverage

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"contractkit/spec"

	"github.com/getkin/kin-openapi/openapi3"
)

// Limits of what a Recorder keeps about requests no operation matches: a
// client that walks arbitrary paths must not grow it without bound.
const (
	maxUnrouted     = 64
	maxUnroutedPath = 200
)

// Recorder collects, per contract operation, the documented statuses seen
// and the answer fields observed. Safe for concurrent use.
type Recorder struct {
	c    *spec.Contract
	byID map[string]*opState

	mu            sync.Mutex
	ops           []*opState // in the contract's order (path, then method)
	unrouted      map[routeKey]int
	unroutedOther int // requests beyond maxUnrouted distinct ones
	// remembered is the size of the bodies the statuses remember.
	remembered int
}

type routeKey struct{ method, path string }

type opState struct {
	op           spec.Operation
	calls        int
	statuses     []*statusState // in the contract's order
	undocumented map[int]int
}

type statusState struct {
	code  string // as documented: "200", "4XX", "default"
	seen  int
	media []*mediaState
	// bodies are the answers whose fields were marked, by media type
	// (Recorder.remember).
	bodies map[string]map[string]bool
}

// mediaState is one documented answer body of a status: its media type
// and the fields of its schema, or of one chunk for an event stream.
type mediaState struct {
	typ      string
	event    bool
	fields   []string
	observed map[string]bool
	// tree holds fields as a tree of their segments, to find them in an
	// answer without naming every path of it (markIn).
	tree *fieldNode
}

// New returns a Recorder over the operations of c.
func New(c *spec.Contract) *Recorder {
	r := &Recorder{c: c, byID: map[string]*opState{}, unrouted: map[routeKey]int{}}
	for _, op := range c.Operations {
		st := &opState{op: op, undocumented: map[int]int{}}
		kop := c.Kin.Paths.Find(op.Path).GetOperation(op.Method)
		for _, code := range op.Statuses {
			st.statuses = append(st.statuses, &statusState{code: code, media: documentedMedia(c, kop.Responses.Value(code))})
		}
		r.ops = append(r.ops, st)
		r.byID[op.ID] = st
	}
	return r
}

// documentedMedia lists the answer bodies of one documented response that
// have fields: a JSON schema's, or an event stream's chunk schema.
func documentedMedia(c *spec.Contract, resp *openapi3.ResponseRef) []*mediaState {
	if resp == nil || resp.Value == nil {
		return nil
	}
	var out []*mediaState
	for _, typ := range sortedKeys(resp.Value.Content) {
		mt := resp.Value.Content[typ]
		m := &mediaState{typ: typ, observed: map[string]bool{}}
		if chunk := c.EventSchema(mt); chunk != nil {
			m.event, m.fields = true, schemaFields(chunk)
		} else if mt.Schema != nil {
			m.fields = schemaFields(mt.Schema)
		}
		if len(m.fields) > 0 {
			m.tree = fieldTree(m.fields)
			out = append(out, m)
		}
	}
	return out
}

// Observe records one answer: method and URL path (no query) of the
// request, status, the answer's Content-Type and its body (JSON; for
// text/event-stream the whole stream text as read so far).
func (r *Recorder) Observe(method, path string, status int, contentType string, body []byte) {
	r.observe(r.route(method, path), status, contentType, body, nil, false)
}

// ObserveParsed is Observe for an answer already routed and parsed: op is
// the operationId of its request ("" when not known: it is routed here),
// and value, when parsed, is its JSON body as encoding/json's Unmarshal
// made it (the validating proxy's judge parses every answer once, and
// coverage reads the same value).
func (r *Recorder) ObserveParsed(op, method, path string, status int, contentType string, body []byte, value any, parsed bool) {
	st := r.byID[op]
	if st == nil {
		st = r.route(method, path)
	}
	r.observe(st, status, contentType, body, value, parsed)
}

func (r *Recorder) observe(st *opState, status int, contentType string, body []byte, value any, parsed bool) {
	if st == nil {
		return
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "text/event-stream" {
		r.observeStream(st, status, body)
		return
	}
	r.mu.Lock()
	st.calls++
	ss := st.status(status)
	if ss == nil {
		st.undocumented[status]++
		r.mu.Unlock()
		return
	}
	ss.seen++
	// The bodies whose fields this answer may show, and that have fields
	// not observed yet: once every documented field of a body was seen,
	// its answers are not read again.
	var open []*mediaState
	for _, m := range ss.media {
		// A JSON body under a content type the status does not document
		// still shows its fields; the content type itself is the judges'
		// business, not coverage's.
		if !m.event && (m.typ == mt || isJSON(m.typ) && !ss.has(mt)) && len(m.observed) < len(m.fields) {
			open = append(open, m)
		}
	}
	// The same body again (a poll, a reload) shows no field it did not
	// show the first time: it is not read again.
	again := len(body) <= maxRememberedBody && ss.bodies[mt][string(body)]
	r.mu.Unlock()
	if len(open) == 0 || len(body) == 0 || again {
		return
	}
	if !parsed { // parsed outside the lock
		if json.Unmarshal(body, &value) != nil {
			return // not JSON: no field shows
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range open {
		m.markIn(value)
	}
	r.remember(ss, mt, body)
}

// maxRememberedBody bounds one remembered body, and maxRememberedBytes all
// the bodies a Recorder remembers; when they are full its memory starts
// again empty.
const (
	maxRememberedBody  = 16 << 10
	maxRememberedBytes = 4 << 20
)

// remember notes a body of media type mt of status ss whose fields were
// marked. The caller holds r.mu.
func (r *Recorder) remember(ss *statusState, mt string, body []byte) {
	if len(body) > maxRememberedBody || ss.bodies[mt][string(body)] {
		return
	}
	if r.remembered+len(body) > maxRememberedBytes {
		for _, st := range r.ops {
			for _, s := range st.statuses {
				s.bodies = nil
			}
		}
		r.remembered = 0
	}
	if ss.bodies == nil {
		ss.bodies = map[string]map[string]bool{}
	}
	if ss.bodies[mt] == nil {
		ss.bodies[mt] = map[string]bool{}
	}
	ss.bodies[mt][string(body)] = true
	r.remembered += len(body)
}

// observeStream records an event-stream answer: the fields of each chunk.
func (r *Recorder) observeStream(st *opState, status int, body []byte) {
	var chunks []map[string]bool // parsed before locking
	for _, data := range eventData(body) {
		if f := jsonFields([]byte(data)); f != nil {
			chunks = append(chunks, f)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st.calls++
	ss := st.status(status)
	if ss == nil {
		st.undocumented[status]++
		return
	}
	ss.seen++
	for _, m := range ss.media {
		if m.event {
			for _, f := range chunks {
				m.mark(f)
			}
		}
	}
}

// ObserveEvent records one event-stream chunk's data (JSON) of an answer.
func (r *Recorder) ObserveEvent(method, path string, data []byte) {
	st := r.route(method, path)
	if st == nil {
		return
	}
	f := jsonFields(data)
	if f == nil {
		return // "[DONE]" or a chunk that is not JSON
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ss := range st.statuses {
		for _, m := range ss.media {
			if m.event {
				m.mark(f)
			}
		}
	}
}

// route finds the operation of a concrete request with the contract's
// router; a request no operation matches is counted as unrouted.
func (r *Recorder) route(method, path string) *opState {
	req := &http.Request{Method: method, URL: &url.URL{Scheme: "http", Host: "localhost", Path: path}, Host: "localhost", Header: http.Header{}}
	op, _, _, ok := r.c.Find(req)
	if ok && op != nil {
		if st := r.byID[op.OperationID]; st != nil {
			return st
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := routeKey{method, path}
	if len(k.path) > maxUnroutedPath {
		k.path = k.path[:maxUnroutedPath] + "…"
	}
	if _, known := r.unrouted[k]; known || len(r.unrouted) < maxUnrouted {
		r.unrouted[k]++
	} else {
		r.unroutedOther++
	}
	return nil
}

// status finds the documented response of a status: the exact code, then
// its range ("4XX"), then "default".
func (st *opState) status(code int) *statusState {
	c := strconv.Itoa(code)
	for _, want := range []string{c, c[:1] + "XX", "default"} {
		for _, ss := range st.statuses {
			if strings.EqualFold(ss.code, want) {
				return ss
			}
		}
	}
	return nil
}

func (ss *statusState) has(mediaType string) bool {
	for _, m := range ss.media {
		if m.typ == mediaType {
			return true
		}
	}
	return false
}

// mark records the documented fields among seen.
func (m *mediaState) mark(seen map[string]bool) {
	for _, f := range m.fields {
		if seen[f] {
			m.observed[f] = true
		}
	}
}

func isJSON(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}

// eventData returns the data of each event of an event-stream text, by the
// WHATWG rules in short: lines end in CRLF, LF or CR, a blank line ends an
// event, "data:" lines are joined by "\n", comments (":") and other fields
// are skipped. An event the text cuts short is left out.
func eventData(text []byte) []string {
	s := strings.ReplaceAll(strings.ReplaceAll(string(text), "\r\n", "\n"), "\r", "\n")
	var out, data []string
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		if line == "" {
			if data != nil && i < len(lines)-1 {
				out = append(out, strings.Join(data, "\n"))
			}
			data = nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		if field == "data" {
			data = append(data, strings.TrimPrefix(value, " "))
		}
	}
	return out
}
