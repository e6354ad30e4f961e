package mockserver

import (
	"bytes"
	"net/http"
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
	budget  int // bytes kept at most (journalBudget unless setBudget said)
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
	// Override names the override (POST /admin/overrides) that answered or
	// steered the call; absent when none did.
	Override *journalOverride `json:"override,omitempty"`
	// UnknownFields names what the request body sent that the contract
	// does not (D-29), at most maxUnknownNames; UnknownMore counts the
	// names left out.
	UnknownFields []string `json:"unknown_fields,omitempty"`
	UnknownMore   int      `json:"unknown_fields_more,omitempty"`
	// Preflight marks a CORS preflight (OPTIONS, no key) recorded with the
	// call it prepared (preflight.go).
	Preflight bool `json:"preflight,omitempty"`
	// Orphan marks a preflight no call followed: a probable CORS failure
	// (preflight.go).
	Orphan *journalOrphan `json:"orphan,omitempty"`

	// What curlCommand needs beyond the exported fields, kept so that the
	// command is built only when someone reads the journal.
	host      string
	tls       bool
	multipart []journalPart // nil unless the body was multipart/form-data
	bytes     int           // size(), computed once when added
	orphanWhy string        // a preflight's probable reason, should no call follow
}

type journalMessage struct {
	Headers       http.Header    `json:"headers"`
	Body          string         `json:"body"`
	BodySize      int64          `json:"body_size"`
	BodyTruncated bool           `json:"body_truncated"`
	Stream        *journalStream `json:"stream,omitempty"`

	// data, when set, is the data of a success envelope the answer was
	// exactly (apierr.DataKeeper), shared with whoever encoded it: Body is
	// built from it when the journal is read (text), so recording an answer
	// encoded ahead costs no copy of it.
	data []byte
}

// text is the body as the journal shows it.
func (m *journalMessage) text() string {
	if m.data != nil {
		return envelopeOf(m.data)
	}
	return m.Body
}

// envelopeOf is the success envelope around data, as apierr.WriteData
// writes it.
func envelopeOf(data []byte) string {
	return apierr.SuccessPrefix + string(data) + apierr.SuccessSuffix
}

// envelopeLen is len(envelopeOf(data)).
func envelopeLen(data []byte) int {
	return len(apierr.SuccessPrefix) + len(data) + len(apierr.SuccessSuffix)
}

// isEnvelope reports whether p is envelopeOf(data).
func isEnvelope(p, data []byte) bool {
	pre, suf := len(apierr.SuccessPrefix), len(apierr.SuccessSuffix)
	return len(p) == envelopeLen(data) && string(p[:pre]) == apierr.SuccessPrefix &&
		string(p[len(p)-suf:]) == apierr.SuccessSuffix && bytes.Equal(p[pre:len(p)-suf], data)
}

type journalStream struct {
	Chunks     []string `json:"chunks"` // filled from log when the journal is read (expanded)
	ChunkCount int      `json:"chunk_count"`
	Truncated  bool     `json:"truncated"`
	// Fault names the stream fault that ended it (stall, cut or error), so a
	// deliberately broken stream does not read as a plain 200.
	Fault string `json:"fault,omitempty"`

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
	if d := e.Response.data; d != nil {
		n += envelopeLen(d)
	}
	if st := e.Response.Stream; st != nil {
		n += len(st.log.enc) // a recorded stream keeps only its compact log
	}
	return n
}

// of returns the account's journal, creating it; j.mu is held.
func (j *journal) of(account string) *accountJournal {
	if j.accounts == nil {
		j.accounts = map[string]*accountJournal{}
	}
	a := j.accounts[account]
	if a == nil {
		a = &accountJournal{budget: journalBudget}
		j.accounts[account] = a
	}
	return a
}

// setBudget bounds the bytes the account's journal keeps (accounts opened
// on demand keep less: there may be many of them).
func (j *journal) setBudget(account string, bytes int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.of(account).budget = bytes
}

func (j *journal) add(account string, e *journalEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	a := j.of(account)
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
	for a.n > 1 && a.bytes > a.budget {
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
