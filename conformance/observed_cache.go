package conformance

import (
	"crypto/sha256"
	"net/http"
	"strconv"
	"sync"

	"contractkit/conformance/exchange"
	"contractkit/spec"
)

// A proxy judges the same answer many times: a client polls a model while
// it trains, reloads a list, reads a record it just wrote. Validating an
// answer against the contract is the proxy's main cost (make bench-proxy),
// and its verdict depends only on the operation, the status, the answer's
// declared headers and its bytes. passedCache remembers which of those the
// contract as written accepted, so an answer seen before costs a hash, not
// a validation. Only passes are kept: a failing answer is judged in full
// each time, so every violation is still described as it happens.

// passedCacheSize bounds the cache; when full it starts again empty, which
// keeps it simple and its memory at most passedCacheSize keys.
const passedCacheSize = 4096

type passKey struct {
	op     string
	status int
	sum    [sha256.Size]byte
}

var passedCache = struct {
	sync.Mutex
	seen map[passKey]struct{}
}{seen: map[passKey]struct{}{}}

// answerKey is the key of x's answer to operation opID, or ok=false when
// the answer cannot be cached: the operation is unknown, the answer broke
// off (its bytes are not all it would have said), or the contract
// documents headers for its answer (Retry-After, X-RateLimit-*), whose
// values change from one answer to the next.
func answerKey(opID string, x *exchange.Exchange) (passKey, bool) {
	if opID == "" || x.Error != "" || documentsHeaders(opID, x.Status) {
		return passKey{}, false
	}
	h := sha256.New()
	h.Write([]byte(x.Method + " " + x.ResponseHeader.Get("Content-Type") + "\n"))
	h.Write(x.Raw)
	k := passKey{op: opID, status: x.Status}
	h.Sum(k.sum[:0])
	return k, true
}

// strictPasses reports whether the contract as written accepts x's answer,
// from the cache when the same answer passed before.
func strictPasses(opID string, x *exchange.Exchange) bool {
	k, cacheable := answerKey(opID, x)
	if cacheable {
		passedCache.Lock()
		_, seen := passedCache.seen[k]
		passedCache.Unlock()
		if seen {
			return true
		}
	}
	if len(ContractMismatches(spec.Strict(), x)) != 0 {
		return false
	}
	if cacheable {
		passedCache.Lock()
		if len(passedCache.seen) >= passedCacheSize {
			clear(passedCache.seen)
		}
		passedCache.seen[k] = struct{}{}
		passedCache.Unlock()
	}
	return true
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
func documentsHeaders(opID string, status int) bool {
	docs := headerDocs()
	code := strconv.Itoa(status)
	if docs[opID+" "+code] {
		return true
	}
	return docs[opID+" "+code[:1]+"XX"] || docs[opID+" default"] || status < 100 || status > 599 || http.StatusText(status) == ""
}
