package apierr

import (
	"net/http"
	"sync"
	"time"
)

// Appender is data that writes its own JSON, byte for byte as WriteJSON
// (encoding/json, HTML left unescaped) would write it. A frequent answer
// (a created conversation) then costs no reflection: encoding/json walks
// the struct and has every time.Time marshal itself and then be
// re-scanned. AppendJSON reports false for a value it does not write
// itself (a string that needs escaping, a time out of RFC 3339's range):
// WriteData then encodes the value with encoding/json.
type Appender interface {
	AppendJSON(b []byte) ([]byte, bool)
}

// AppendString appends s as a JSON string when it needs no escaping
// (printable ASCII without '"' or '\\'); otherwise it reports false.
func AppendString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return b, false
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// AppendTime appends t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds, trailing zeros dropped), or reports false where MarshalJSON
// would fail or differ (a year outside 0..9999, an offset of a day or more).
func AppendTime(b []byte, t time.Time) ([]byte, bool) {
	if y := t.Year(); y < 0 || y > 9999 {
		return b, false
	}
	if _, off := t.Zone(); off <= -24*3600 || off >= 24*3600 {
		return b, false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), true
}

// writeAppended answers 200 with the success envelope around a's own
// JSON, or reports false, having written nothing, when a does not write it.
func writeAppended(w http.ResponseWriter, a Appender) bool {
	bp := appendBuffers.Get().(*[]byte)
	b, ok := a.AppendJSON(append((*bp)[:0], SuccessPrefix...))
	if ok {
		b = append(b, SuccessSuffix...)
		writeBody(w, http.StatusOK, b)
	}
	if cap(b) <= maxPooledBuffer { // one huge answer does not pin its buffer
		*bp = b[:0]
		appendBuffers.Put(bp)
	}
	return ok
}

var appendBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}
