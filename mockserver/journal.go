package mockserver

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"contractkit/mockserver/apierr"
)

// The request journal keeps, per account, the last /api/v1 calls as a
// frontend developer needs to see them: what the page sent, what the mock
// answered, streamed chunks included. E2E tests read it with
// GET /admin/requests; the console's inspector shows it. Memory is bounded
// three ways: entries per account, bytes per body, bytes per account.
const (
	journalEntries   = 500      // entries kept per account (a ring)
	journalBodyBytes = 64 << 10 // bytes kept of one body (and of one stream's chunks)
	journalChunks    = 1000     // chunks kept of one stream
	journalBudget    = 32 << 20 // bytes kept per account: oldest entries go first
	journalPartValue = 200      // bytes kept of one multipart field value
	journalParts     = 100      // multipart parts summarised
)

// journal is the zero-value-ready store of every account's entries.
type journal struct {
	mu       sync.Mutex
	accounts map[string]*accountJournal
}

// accountJournal is a ring: entries[head] is the oldest of n entries, so
// recording a call never shifts the others.
type accountJournal struct {
	seq     int64
	entries []*journalEntry
	head, n int
	bytes   int
}

// at is the i-th oldest entry.
func (a *accountJournal) at(i int) *journalEntry { return a.entries[(a.head+i)%len(a.entries)] }

// dropOldest forgets the oldest entry.
func (a *accountJournal) dropOldest() {
	a.bytes -= a.entries[a.head].bytes
	a.entries[a.head] = nil
	a.head = (a.head + 1) % len(a.entries)
	a.n--
}

type journalEntry struct {
	ID         int64          `json:"id"`
	Time       time.Time      `json:"time"`
	Method     string         `json:"method"`
	Path       string         `json:"path"`
	Query      string         `json:"query"`
	Status     int            `json:"status"`
	DurationMS float64        `json:"duration_ms"`
	Request    journalMessage `json:"request"`
	Response   journalMessage `json:"response"`
	Curl       string         `json:"curl"` // built when listed (curlCommand), not per request

	// What curlCommand needs beyond the exported fields, kept so that the
	// command is built only when someone reads the journal.
	host      string
	tls       bool
	multipart []journalPart // nil unless the body was multipart/form-data
	bytes     int           // size(), computed once when added
}

type journalMessage struct {
	Headers       http.Header    `json:"headers"`
	Body          string         `json:"body"`
	BodySize      int64          `json:"body_size"`
	BodyTruncated bool           `json:"body_truncated"`
	Stream        *journalStream `json:"stream,omitempty"`
}

type journalStream struct {
	Chunks     []string `json:"chunks"` // filled from log when the journal is read (expanded)
	ChunkCount int      `json:"chunk_count"`
	Truncated  bool     `json:"truncated"`

	// log keeps the chunks front-coded in the journal too: they are turned
	// into strings only for someone reading the journal, so recording a
	// stream that ends costs no copy of all its chunks.
	log chunkLog
}

// expanded is the stream as GET /admin/requests shows it, chunks as strings.
func (st *journalStream) expanded() *journalStream {
	out := *st
	out.Chunks = nonNilStrings(st.log.strings())
	return &out
}

// size approximates the bytes an entry holds, for the account budget.
func (e *journalEntry) size() int {
	n := 512 + len(e.Path) + len(e.Query) + len(e.Curl) + len(e.Request.Body) + len(e.Response.Body)
	for _, h := range []http.Header{e.Request.Headers, e.Response.Headers} {
		for k, vs := range h {
			n += len(k)
			for _, v := range vs {
				n += len(v)
			}
		}
	}
	if st := e.Response.Stream; st != nil {
		n += len(st.log.enc) // a recorded stream keeps only its compact log
	}
	return n
}

func (j *journal) add(account string, e *journalEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.accounts == nil {
		j.accounts = map[string]*accountJournal{}
	}
	a := j.accounts[account]
	if a == nil {
		a = &accountJournal{}
		j.accounts[account] = a
	}
	a.seq++
	e.ID = a.seq
	e.bytes = e.size()
	if a.entries == nil {
		a.entries = make([]*journalEntry, journalEntries)
	}
	if a.n == len(a.entries) {
		a.dropOldest()
	}
	a.entries[(a.head+a.n)%len(a.entries)] = e
	a.n++
	a.bytes += e.bytes
	for a.n > 1 && a.bytes > journalBudget {
		a.dropOldest()
	}
}

// list returns the account's entries (oldest first) that pass keep.
func (j *journal) list(account string, keep func(*journalEntry) bool) []*journalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []*journalEntry{}
	if a := j.accounts[account]; a != nil {
		for i := range a.n {
			if e := a.at(i); keep(e) {
				out = append(out, e)
			}
		}
	}
	return out
}

// clear empties the account's journal; the id sequence goes on, so a
// client polling with ?since= never sees an id twice.
func (j *journal) clear(account string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	a := j.accounts[account]
	if a == nil {
		return 0
	}
	n := a.n
	a.entries, a.head, a.n, a.bytes = nil, 0, 0, 0
	return n
}

// journaled serves an authenticated /api/v1 request through api and records
// it in the account's journal. (A request without a valid key belongs to no
// account and is not recorded.) The key itself is never stored: the
// Authorization header is masked and the curl command names $API_KEY.
func (s *Server) journaled(w http.ResponseWriter, r *http.Request, account string) {
	start := time.Now()
	at := s.cfg.Clock.Now()
	rb := newJournalBody(r)
	if rb != nil {
		r = r.WithContext(r.Context()) // a shallow copy: the caller's request keeps its body
		r.Body = rb
	}
	jw := &journalWriter{ResponseWriter: w}
	// Deferred, so a stream cut on purpose (a panic of http.ErrAbortHandler)
	// is recorded too; the panic goes on.
	defer func() {
		e := &journalEntry{
			Time: at.UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			Status: jw.status, DurationMS: float64(time.Since(start).Microseconds()) / 1000,
			Request:  journalMessage{Headers: maskHeaders(r.Header)},
			Response: jw.message(),
			host:     r.Host, tls: r.TLS != nil,
		}
		if rb != nil {
			rb.finish(r)
			e.Request.Body, e.Request.BodySize, e.Request.BodyTruncated = rb.summary()
			if rb.pw != nil {
				e.multipart = nonNilParts(rb.parts)
			}
		}
		s.journal.add(account, e)
	}()
	s.api(jw, r, account, nil)
}

// nonNilParts marks a multipart body without parts as multipart still.
func nonNilParts(p []journalPart) []journalPart {
	if p == nil {
		return []journalPart{}
	}
	return p
}

// maskHeaders copies h with credentials masked: the scheme stays, the
// secret becomes ****.
func maskHeaders(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	for _, name := range []string{"Authorization", "Proxy-Authorization", "Cookie"} {
		vs := out.Values(name)
		for i, v := range vs {
			if scheme, _, ok := strings.Cut(strings.TrimSpace(v), " "); ok && name != "Cookie" {
				vs[i] = scheme + " ****"
			} else {
				vs[i] = "****"
			}
		}
	}
	return out
}

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
}

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
		m.Stream = &journalStream{log: log, ChunkCount: w.chunkCount, Truncated: w.truncated}
		return m
	}
	m.Body = w.body.String()
	return m
}

// journalBody copies what the handler reads of a request body: the first
// journalBodyBytes of a plain body; of a multipart body only a summary of
// its parts (names, file names, types, sizes, short field values), parsed as
// the bytes pass, because uploads are large and their files are not ours to
// keep.
type journalBody struct {
	io.ReadCloser
	n         int64
	buf       strings.Builder
	truncated bool

	// multipart: the copy goes through a pipe to a parser goroutine.
	pw    *io.PipeWriter
	done  chan struct{}
	parts []journalPart
	more  bool // parts beyond journalParts
	bad   string
}

type journalPart struct {
	Name, FileName, ContentType, Value string
	Size                               int64
}

func newJournalBody(r *http.Request) *journalBody {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b := &journalBody{ReadCloser: r.Body}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" && params["boundary"] != "" {
		pr, pw := io.Pipe()
		b.pw, b.done = pw, make(chan struct{})
		go b.parse(multipart.NewReader(pr, params["boundary"]), pr)
	}
	return b
}

func (b *journalBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	switch {
	case b.pw != nil:
		_, _ = b.pw.Write(p[:n]) // the parser drains everything, even after an error
	case b.buf.Len() < journalBodyBytes:
		keep := min(n, journalBodyBytes-b.buf.Len())
		b.buf.Write(p[:keep])
		b.truncated = b.truncated || keep < n
	case n > 0:
		b.truncated = true
	}
	return n, err
}

func (b *journalBody) parse(mr *multipart.Reader, pr *io.PipeReader) {
	defer close(b.done)
	defer func() { _, _ = io.Copy(io.Discard, pr) }()
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return
		}
		if err != nil {
			b.bad = "the body is not complete multipart"
			return
		}
		jp := journalPart{Name: part.FormName(), FileName: part.FileName(), ContentType: part.Header.Get("Content-Type")}
		if jp.FileName == "" {
			var v bytes.Buffer
			n, _ := io.Copy(&v, io.LimitReader(part, journalPartValue))
			rest, _ := io.Copy(io.Discard, part)
			jp.Size, jp.Value = n+rest, v.String()
		} else {
			jp.Size, _ = io.Copy(io.Discard, part)
		}
		if len(b.parts) < journalParts {
			b.parts = append(b.parts, jp)
		} else {
			b.more = true
		}
	}
}

// finish reads what the handler left of a small body (a request refused
// before its body was read, such as a 422 on a query parameter), so the
// journal shows what was sent; then it ends the multipart parser.
func (b *journalBody) finish(r *http.Request) {
	if r.ContentLength > 0 && r.ContentLength <= journalBodyBytes && b.n < r.ContentLength {
		_, _ = io.Copy(io.Discard, io.LimitReader(b, r.ContentLength-b.n))
	}
	if b.pw != nil {
		_ = b.pw.Close()
		<-b.done
	}
	if r.ContentLength > b.n {
		b.n = r.ContentLength
		b.truncated = b.truncated || b.pw == nil
	}
}

// summary returns the body as the journal shows it.
func (b *journalBody) summary() (string, int64, bool) {
	if b.pw == nil {
		return b.buf.String(), b.n, b.truncated
	}
	var s strings.Builder
	fmt.Fprintf(&s, "multipart/form-data, %d part(s) (summary: the raw body is not recorded)\n", len(b.parts))
	for _, p := range b.parts {
		if p.FileName != "" {
			fmt.Fprintf(&s, "%s: file %q (%s, %d bytes)\n", p.Name, p.FileName, orDefault(p.ContentType, "no type"), p.Size)
		} else {
			fmt.Fprintf(&s, "%s = %q\n", p.Name, p.Value+ifTrue(p.Size > int64(len(p.Value)), "…"))
		}
	}
	if b.more {
		fmt.Fprintf(&s, "… more than %d parts\n", journalParts)
	}
	if b.bad != "" {
		s.WriteString(b.bad + "\n")
	}
	return s.String(), b.n, true
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func ifTrue(c bool, s string) string {
	if c {
		return s
	}
	return ""
}

// curlHeaders are the request headers a curl command repeats: those that
// change the answer. Browser noise (User-Agent, Sec-*, Origin) is left out.
var curlHeaders = []string{"Accept", "Content-Type", "Prefer", "X-Mock-Delay", "X-Mock-Stream-Fault"}

// curlCommand rebuilds the recorded request as a command to paste into a
// shell, the key read from $API_KEY.
func curlCommand(e *journalEntry) string {
	scheme := "http"
	if e.tls {
		scheme = "https"
	}
	u := scheme + "://" + e.host + e.Path
	if e.Query != "" {
		u += "?" + e.Query
	}
	parts := []string{"curl -sS"}
	if e.Response.Stream != nil {
		parts[0] += " -N"
	}
	if e.Method != http.MethodGet {
		parts[0] += " -X " + e.Method
	}
	parts[0] += " " + shellQuote(u)
	parts = append(parts, `-H "Authorization: Bearer $API_KEY"`)
	multi := e.multipart != nil
	for _, name := range curlHeaders {
		if multi && name == "Content-Type" {
			continue // curl -F writes it, with its own boundary
		}
		for _, v := range e.Request.Headers.Values(name) {
			parts = append(parts, "-H "+shellQuote(name+": "+v))
		}
	}
	switch {
	case multi:
		for _, p := range e.multipart {
			if p.FileName != "" {
				f := p.Name + "=@" + p.FileName
				if p.ContentType != "" {
					f += ";type=" + p.ContentType
				}
				parts = append(parts, "-F "+shellQuote(f))
			} else {
				parts = append(parts, "-F "+shellQuote(p.Name+"="+p.Value))
			}
		}
	case e.Request.BodyTruncated:
		parts = append(parts, "--data-binary @body  # the body ("+strconv.FormatInt(e.Request.BodySize, 10)+" bytes) was too large to record")
	case e.Request.Body != "":
		parts = append(parts, "--data-raw "+shellQuote(e.Request.Body))
	}
	return strings.Join(parts, " \\\n  ")
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// listRequests answers GET /admin/requests: the caller's journal, oldest
// first, filtered by ?method=, ?path= (a prefix), ?status= (404 or 4xx) and
// ?since= (ids above it, for polling).
func (s *Server) listRequests(w http.ResponseWriter, r *http.Request, account string) {
	q := r.URL.Query()
	method := strings.ToUpper(q.Get("method"))
	path := q.Get("path")
	status, err := statusFilter(q.Get("status"))
	if err != nil {
		apierr.Write(w, s.log, err)
		return
	}
	var since int64
	if v := q.Get("since"); v != "" {
		if since, err = strconv.ParseInt(v, 10, 64); err != nil || since < 0 {
			apierr.Write(w, s.log, apierr.New(apierr.Invalid, "since: a non-negative entry id"))
			return
		}
	}
	entries := s.journal.list(account, func(e *journalEntry) bool {
		return e.ID > since && (method == "" || e.Method == method) &&
			strings.HasPrefix(e.Path, path) && status(e.Status)
	})
	out := make([]journalEntry, len(entries))
	for i, e := range entries {
		out[i] = *e
		out[i].Curl = curlCommand(e)
		if st := e.Response.Stream; st != nil {
			out[i].Response.Stream = st.expanded() // a copy: the entry keeps its compact form
			out[i].Response.Body = strings.Join(out[i].Response.Stream.Chunks, "")
		}
	}
	apierr.WriteData(w, out)
}

// statusFilter reads "404" (that status) or "4xx" (that class).
func statusFilter(v string) (func(int) bool, error) {
	if v == "" {
		return func(int) bool { return true }, nil
	}
	bad := apierr.New(apierr.Invalid, "status: a status such as 404, or a class such as 4xx")
	if len(v) == 3 && strings.EqualFold(v[1:], "xx") && v[0] >= '1' && v[0] <= '5' {
		class := int(v[0]-'0') * 100
		return func(s int) bool { return s >= class && s < class+100 }, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 100 || n > 599 {
		return nil, bad
	}
	return func(s int) bool { return s == n }, nil
}
