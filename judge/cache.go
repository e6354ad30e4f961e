package judge

import (
	"crypto/sha256"
	"strconv"
	"sync"

	"contractkit/exchange"
)

// The same answer is judged many times: a client polls a model while it
// trains, reloads a list, reads a record it just wrote. Parsing an answer
// and validating it against the contract are the proxy's main costs (make
// profile-proxy), and what the end of an answer breaks (its content type,
// its envelope, the contract: Watch.End) depends only on the operation,
// the method, the status, the answer's declared headers and its bytes. The
// verdict cache keys on those and keeps the findings (none for a pass), so
// an answer seen before costs a hash, not a parse and a validation, and a
// broken one is still described, in full, every time it passes. Each Judge
// has its own.

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

type verdictCache struct {
	mu   sync.Mutex
	seen map[answerKey]Findings
}

func newVerdictCache() *verdictCache { return &verdictCache{seen: map[answerKey]Findings{}} }

func (c *verdictCache) get(k answerKey) (Findings, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fs, ok := c.seen[k]
	return append(Findings(nil), fs...), ok
}

func (c *verdictCache) put(k answerKey, fs Findings) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) >= verdictCacheSize {
		clear(c.seen)
	}
	c.seen[k] = append(Findings(nil), fs...)
}

// keyOf is the key of x's answer to operation op, or ok=false when the
// answer cannot be cached: the operation is unknown, the answer broke off
// (its bytes are not all it would have said), or the contract documents
// headers for its answer (Retry-After, X-RateLimit-*), whose values change
// from one answer to the next.
func (j *Judge) keyOf(op string, x *exchange.Exchange) (answerKey, bool) {
	if op == "" || x.Error != "" || j.documentsHeaders(op, x.Status) {
		return answerKey{}, false
	}
	h := sha256.New()
	h.Write([]byte(x.Method + " " + x.ResponseHeader.Get("Content-Type") + "\n"))
	h.Write(x.Raw)
	k := answerKey{op: op, status: x.Status}
	h.Sum(k.sum[:0])
	return k, true
}

// requestKey is the key of x's request to operation op, or ok=false when
// its verdict may depend on more than the key holds: the operation is
// unknown, or its check reads headers (header or cookie parameters). What
// Request reads of a request is its method, path and query, whether it
// carries an Authorization header, its Content-Type, its body and whether
// the body was held.
func (j *Judge) requestKey(op string, x *exchange.Exchange) (answerKey, bool) {
	rc := j.declared.Request(op)
	if op == "" || rc == nil || rc.ReadsHeaders() {
		return answerKey{}, false
	}
	h := sha256.New()
	auth := "-"
	if x.RequestHeader.Get("Authorization") != "" {
		auth = "+"
	}
	cut := "-"
	if x.SentCut {
		cut = "+"
	}
	// Each part after its length: a decoded path may hold any byte.
	for _, part := range []string{x.Method, x.Path, x.RawQuery, x.RequestHeader.Get("Content-Type"), auth + cut} {
		h.Write([]byte(strconv.Itoa(len(part)) + ":" + part))
	}
	h.Write(x.Sent)
	k := answerKey{op: op}
	h.Sum(k.sum[:0])
	return k, true
}

// answerContract is contract(x) for an answer whose body is parsed (p).
// An answer the contract as written accepts, the declared view (the same
// contract with decided constraints removed, spec.Relax) accepts too: a
// pass costs one validation, not two. An answer the contract's answer
// check accepts (spec.ResponseCheck: the validator's own compiled schema,
// on the body parsed once) passes without the validator's round; anything
// else is validated as before.
func (j *Judge) answerContract(op string, x *exchange.Exchange, p Parsed) Findings {
	var fs Findings
	accepted := op != "" && p.OK && j.strict.Response(op).Accepts(x.Status, x.ResponseHeader.Get("Content-Type"), p.Value)
	if !accepted && len(Contract(j.strict, x)) != 0 {
		fs = j.contract(op, x)
	}
	if j.seedSuccessBroken(op, x.Status) && len(fs.Rule(RuleStatus)) == 0 {
		// A success the contract documents, yet not the one the reference
		// names for the operation.
		fs = append(fs, j.successStatusFinding(op, x.Status))
	}
	return fs
}
