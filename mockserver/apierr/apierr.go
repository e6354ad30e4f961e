// Package apierr is the mock server's one error type and the one place that
// maps an error code to an HTTP status and writes the seed's envelopes.
//
// Handlers return *Error values; anything else reaching Write is an internal
// fault: it is logged with its text and answered as a bare 500 whose message
// carries no detail, so internal text never leaves the process.
package apierr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
)

// Code names a class of failure. Each code has exactly one HTTP status.
type Code string

// The codes, one per status the contract documents (D-17).
const (
	BadRequest       Code = "bad_request"        // 400: unreadable body, wrong content type
	Unauthorized     Code = "unauthorized"       // 401: key missing, malformed or unknown
	NotFound         Code = "not_found"          // 404: no such path or resource in the account
	MethodNotAllowed Code = "method_not_allowed" // 405: known path, other method
	Conflict         Code = "conflict"           // 409: the resource's state refuses the request
	TooLarge         Code = "too_large"          // 413: body, file count over the limit
	Invalid          Code = "invalid"            // 422: schema or semantic violation
	RateLimited      Code = "rate_limited"       // 429
	Internal         Code = "internal"           // 500

	// Forced is a status a test chose for an override (POST
	// /admin/overrides, {"status": 503}) that no code above names: the only
	// code whose status travels with the error instead of this table.
	Forced Code = "forced"
)

var statuses = map[Code]int{
	BadRequest:       http.StatusBadRequest,
	Unauthorized:     http.StatusUnauthorized,
	NotFound:         http.StatusNotFound,
	MethodNotAllowed: http.StatusMethodNotAllowed,
	Conflict:         http.StatusConflict,
	TooLarge:         http.StatusRequestEntityTooLarge,
	Invalid:          http.StatusUnprocessableEntity,
	RateLimited:      http.StatusTooManyRequests,
	Internal:         http.StatusInternalServerError,
}

// Error is a failure that may be shown to the client: Message is sent as is.
type Error struct {
	Code    Code
	Message string

	status int // Forced only: the status the test chose
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Status is the HTTP status of the error's code.
func (e *Error) Status() int {
	if e.Code == Forced && e.status >= 400 && e.status <= 599 {
		return e.status
	}
	return StatusOf(e.Code)
}

// New returns an *Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithStatus is an error answered with status (400..599), as a test forced
// it: a status one of the codes names gets that code, any other the code
// Forced carrying the status.
func WithStatus(status int, message string) *Error {
	if c, ok := CodeOf(status); ok {
		return &Error{Code: c, Message: message}
	}
	return &Error{Code: Forced, Message: message, status: status}
}

// StatusOf maps a code to its HTTP status; unknown codes are 500.
func StatusOf(c Code) int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// CodeOf maps an HTTP status back to its code (for forced errors such as
// `Prefer: code=404`). ok is false for statuses without a code.
func CodeOf(status int) (Code, bool) {
	for c, s := range statuses {
		if s == status {
			return c, true
		}
	}
	return "", false
}

// Envelope is the seed's error body (§1.2).
type Envelope struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// Success is the seed's success body (§1.1).
type Success struct {
	Status string `json:"status"`
	Data   any    `json:"data"`
}

// Write answers err as the error envelope. An *Error (also wrapped) is sent
// with its status and message; anything else is logged and sent as an opaque
// 500.
func Write(w http.ResponseWriter, log *slog.Logger, err error) {
	var e *Error
	if !errors.As(err, &e) {
		if log != nil {
			log.Error("internal error", "err", err)
		}
		e = &Error{Code: Internal, Message: "Internal server error"}
	}
	WriteJSON(w, e.Status(), Envelope{Status: "error", Message: e.Message})
}

// WriteData answers 200 with the success envelope around data. Data
// encoded ahead by Marshal (a json.RawMessage) is put in the envelope as it
// is: encoding/json would scan and re-compact it, which costs more than
// encoding the value did.
func WriteData(w http.ResponseWriter, data any) {
	if a, ok := data.(Appender); ok && writeAppended(w, a) {
		return
	}
	raw, ok := data.(json.RawMessage)
	if !ok || raw == nil {
		WriteJSON(w, http.StatusOK, Success{Status: "success", Data: data})
		return
	}
	if k, ok := w.(DataKeeper); ok {
		k.KeepData(raw)
	}
	buf := buffers.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	buf.WriteString(SuccessPrefix)
	buf.Write(raw)
	buf.WriteString(SuccessSuffix)
	writeBody(w, http.StatusOK, buf.Bytes())
}

// The success envelope around data encoded ahead: SuccessPrefix, the data,
// SuccessSuffix.
const (
	SuccessPrefix = `{"status":"success","data":`
	SuccessSuffix = `}`
)

// DataKeeper is a writer that keeps a copy of what it passes on (the mock's
// journal). WriteData tells it the data encoded ahead that the body it
// writes next wraps (SuccessPrefix, data, SuccessSuffix), so it may keep
// data itself instead of copying the body: such data is never changed
// once encoded (a change encodes anew).
type DataKeeper interface {
	KeepData(data []byte)
}

// Marshal encodes v exactly as WriteJSON does, for an answer encoded ahead
// of time (a json.RawMessage passed to WriteData is written as it is).
func Marshal(v any) ([]byte, error) {
	buf := buffers.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	if err := encode(buf, v); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

func encode(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false) // messages quote "<API_KEY>"; this is JSON, not HTML
	err := enc.Encode(v)
	if err == nil {
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	return err
}

// WriteJSON writes v as JSON with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	buf := buffers.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	err := encode(buf, v)
	body := buf.Bytes()
	if err != nil {
		// Only a programming error (an unmarshalable value) gets here.
		status = http.StatusInternalServerError
		body = []byte(`{"status":"error","message":"Internal server error"}`)
	}
	writeBody(w, status, body)
}

// writeBody sends a JSON body with its headers. Every writer the answer
// passes through (net/http's, the journal's) copies the bytes before Write
// returns, so the caller's pooled buffer can go back to the pool.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["X-Content-Type-Options"] = noSniff
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// The header values every JSON answer carries, built once. Assigning the
// canonical key directly skips Header.Set's canonicalisation and its slice
// allocation; each slice has len == cap, so an Add by a later writer
// reallocates instead of writing into the shared array.
var (
	contentTypeJSON = []string{"application/json"}
	noSniff         = []string{"nosniff"}
)

// buffers holds encode buffers between answers: an answer no longer
// allocates and grows a fresh buffer.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer keeps one huge answer (a long list) from pinning its
// buffer in the pool for good.
const maxPooledBuffer = 64 << 10

func putBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	buffers.Put(b)
}
