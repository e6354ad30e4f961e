// Package recording turns the exchanges that passed through the conformance
// proxy into a fixture set that `mockserver --fixtures DIR` loads: datasets
// with the text of the files uploaded to them, models, conversations with
// their messages, and evaluations, as the server last described them.
//
// The Recorder follows what the server said: a create, a read, a list or an
// update answer gives a record's current fields (the latest wins), a delete
// (or a 404 on a read by id) removes it, and a record seen only by its id is
// recorded from what its reads said. Uploaded file bytes come from the
// multipart requests the server accepted. Keys select the account and are
// never written; see Write for how several keys are laid out.
//
// What the fixture format cannot hold is left out or mapped to the nearest
// value it holds (build.go, build_records.go: a running evaluation is
// pending, a pending model training), and every such record is named in
// Summary, for the proxy to print. Whether a file can be read is decided by
// the mock's own extraction (mockserver/retrieval), so a written set always
// preloads.
package recording

import (
	"crypto/sha256"

	"contractkit/exchange"
	"contractkit/judge"
	"net/http"
	"strings"
	"sync"
)

// Exchange is one finished request and its answer, as the proxy saw them.
type Exchange struct {
	Method, Path, RawQuery string
	RequestHeader          http.Header // Authorization included; never written anywhere
	RequestBody            []byte      // whole (multipart uploads included), bounded by the proxy
	Status                 int
	ResponseHeader         http.Header
	ResponseBody           []byte // whole for JSON; for event streams the text as it passed
	// Verdict is the one judge's verdict on the exchange when Judged (the
	// proxy's, taken as it passed); an unjudged exchange is judged by
	// the Recorder's judge (SetJudge), when it has one.
	Verdict judge.Findings
	Judged  bool
}

// Recorder collects the state of each account from the exchanges it
// observes. It is safe for concurrent use.
type Recorder struct {
	mu sync.Mutex
	// accounts by the SHA-256 of their key, in the order they first showed.
	accounts map[[32]byte]*account
	order    []*account
	// keys are kept (in memory only) so Write can redact any of them that a
	// recorded text happens to hold.
	keys map[string]bool
	// ignored counts exchanges not recorded, or not wholly, by reason.
	ignored map[string]int
	seen    int
	// fileBytes is the upload bytes kept so far, at most maxFileBytes
	// (MaxFileBytes; tests lower it).
	fileBytes, maxFileBytes int64
	// judge judges an exchange that comes unjudged (SetJudge); nil: none.
	judge *judge.Judge
}

// SetJudge makes j judge the exchanges that come without a verdict.
func (r *Recorder) SetJudge(j *judge.Judge) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.judge = j
}

// breaksContract reports whether x's answer breaks the declared contract,
// by the one judge's verdict: what such an answer says is no record.
func (r *Recorder) breaksContract(x Exchange) bool {
	v := x.Verdict
	if !x.Judged && r.judge != nil {
		v = r.judge.Verdict(&exchange.Exchange{Method: x.Method, Path: x.Path, RawQuery: x.RawQuery,
			RequestHeader: x.RequestHeader, Sent: x.RequestBody, Status: x.Status,
			ResponseHeader: x.ResponseHeader, Raw: x.ResponseBody}, nil, false)
	}
	return v.Side(judge.Server).Has(judge.Server, judge.Declared)
}

// maxKeys bounds the refused keys kept for redaction.
const maxKeys = 10_000

// MaxFileBytes bounds the uploaded bytes a Recorder keeps in memory; the
// files of an upload past it are not kept (and named in the Summary as
// files whose text is unknown).
const MaxFileBytes = 1 << 30

// keepFiles drops an upload's files when keeping them would pass
// MaxFileBytes; the caller holds r.mu.
func (r *Recorder) keepFiles(f *form) {
	var n int64
	for _, u := range f.files {
		n += int64(len(u.data))
	}
	if r.fileBytes+n > r.maxFileBytes {
		f.files = nil
		r.ignore("upload files not kept: the recording holds its limit of uploaded bytes (MaxFileBytes) already")
		return
	}
	r.fileBytes += n
}

// New returns an empty Recorder.
func New() *Recorder {
	return &Recorder{
		accounts: map[[32]byte]*account{}, keys: map[string]bool{}, ignored: map[string]int{},
		maxFileBytes: MaxFileBytes,
	}
}

// Observe records one exchange. The key of its Authorization header selects
// the account; an exchange without a key, or with an answer that is not a
// success, changes nothing (a 404 on a read by id removes the record).
func (r *Recorder) Observe(x Exchange) {
	key := bearerKey(x.RequestHeader)
	op, known := route(x.Method, x.Path)
	in := request{id: op.id}
	if known && op.multipart && x.Status >= 200 && x.Status < 300 {
		in.form, in.formErr = readForm(x)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen++
	if key == "" {
		r.ignore("no API key in the request")
		return
	}
	// Any key seen is redacted from what is written, even one the server
	// refused: it may still be someone's key. The refused ones are bounded
	// (a client trying keys must not grow the set without end); the key of
	// an account is always in it (below).
	if len(r.keys) < maxKeys {
		r.keys[key] = true
	}
	if !known {
		r.ignore("not an operation of the contract that holds data")
		return
	}
	if madeUp(x.RequestHeader) {
		r.ignore("the answer was made up on request (Prefer: example, dynamic or code), not the server's data")
		return
	}
	success := x.Status >= 200 && x.Status < 300
	if !success && !(x.Status == http.StatusNotFound && op.readByID) {
		r.ignore("answer was not a success")
		return
	}
	if r.breaksContract(x) {
		r.ignore("the answer breaks the declared contract (the one judge's verdict)")
		return
	}
	digest := sha256.Sum256([]byte(key))
	a := r.accounts[digest]
	if a == nil {
		a = newAccount(len(r.order) + 1)
		r.accounts[digest] = a
		r.order = append(r.order, a)
		r.keys[key] = true
	}
	if op.multipart && in.formErr == nil {
		r.keepFiles(&in.form)
	}
	if reason := op.apply(a, x, in); reason != "" {
		r.ignore(reason)
	}
}

func (r *Recorder) ignore(reason string) { r.ignored[reason]++ }

// bearerKey is the key of an Authorization header (seed §5: "Bearer <key>").
func bearerKey(h http.Header) string {
	scheme, key, ok := strings.Cut(strings.TrimSpace(h.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(key)
}

// madeUp: the request asked, in Prism's spelling that the mock also reads,
// for an example, generated or forced answer: what it says is no record.
func madeUp(h http.Header) bool {
	for _, v := range h.Values("Prefer") {
		for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' }) {
			k, _, _ := strings.Cut(strings.TrimSpace(part), "=")
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "example", "dynamic", "code":
				return true
			}
		}
	}
	return false
}
