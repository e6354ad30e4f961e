package judge

import (
	"crypto/sha256"
	"net/http"
	"strconv"
	"sync"

	"contractkit/exchange"
	"contractkit/spec"
)

// The same answer is judged many times: a client polls a model while it
// trains, reloads a list, reads a record it just wrote. Validating an
// answer against the contract is the proxy's main cost (make bench-proxy),
// and the verdict depends only on the operation, the status, the answer's
// declared headers and its bytes. The verdict cache keys on those and
// keeps the findings (none for a pass), so an answer seen before costs a
// hash, not a validation, and a broken one is still described, in full,
// every time it passes.

// verdictCacheSize bounds the cache; when full it starts again empty, which
// keeps it simple and its memory at most verdictCacheSize verdicts.
const verdictCacheSize = 4096

// maxCachedFindings bounds the findings of one cached verdict: an answer
// broken in more places is validated each time rather than held.
const maxCachedFindings = 32

type answerKey struct {
	op     string
	status int
	sum    [sha256.Size]byte
}

var verdicts = struct {
	sync.Mutex
	seen map[answerKey]Findings
}{seen: map[answerKey]Findings{}}

// keyOf is the key of x's answer to operation op, or ok=false when the
// answer cannot be cached: the operation is unknown, the answer broke off
// (its bytes are not all it would have said), or the contract documents
// headers for its answer (Retry-After, X-RateLimit-*), whose values change
// from one answer to the next.
func keyOf(op string, x *exchange.Exchange) (answerKey, bool) {
	if op == "" || x.Error != "" || documentsHeaders(op, x.Status) {
		return answerKey{}, false
	}
	h := sha256.New()
	h.Write([]byte(x.Method + " " + x.ResponseHeader.Get("Content-Type") + "\n"))
	h.Write(x.Raw)
	k := answerKey{op: op, status: x.Status}
	h.Sum(k.sum[:0])
	return k, true
}

// contractCached is contract(x), from the cache when the same answer was
// judged before. An answer the contract as written accepts, the declared
// view (the same contract with decided constraints removed, spec.Relax)
// accepts too: a pass costs one validation, not two.
func contractCached(op string, x *exchange.Exchange) Findings {
	k, cacheable := keyOf(op, x)
	if cacheable {
		verdicts.Lock()
		fs, seen := verdicts.seen[k]
		verdicts.Unlock()
		if seen {
			return append(Findings(nil), fs...)
		}
	}
	var fs Findings
	if len(Contract(spec.Strict(), x)) != 0 {
		fs = contract(x)
	}
	if cacheable && len(fs) <= maxCachedFindings {
		verdicts.Lock()
		if len(verdicts.seen) >= verdictCacheSize {
			clear(verdicts.seen)
		}
		verdicts.seen[k] = append(Findings(nil), fs...)
		verdicts.Unlock()
	}
	return fs
}

// headerDocs says, per operation and status, whether the contract documents
// response headers there; read from the contract once.
var headerDocs = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	doc := spec.Strict().Kin
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for code, ref := range op.Responses.Map() {
				if ref != nil && ref.Value != nil && len(ref.Value.Headers) > 0 {
					out[op.OperationID+" "+code] = true
				}
			}
		}
	}
	return out
})

// documentsHeaders: a documented response with headers, or a status the
// operation documents only through a range or default (judged in full).
func documentsHeaders(op string, status int) bool {
	docs := headerDocs()
	code := strconv.Itoa(status)
	if docs[op+" "+code] {
		return true
	}
	return docs[op+" "+code[:1]+"XX"] || docs[op+" default"] || status < 100 || status > 599 || http.StatusText(status) == ""
}
