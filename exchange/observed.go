package exchange

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"time"
)

// An exchange the kit did not make but saw pass (the validating proxy): it
// becomes an Exchange like the suite's own, so the same judges and reports
// serve it. The client's key is whatever its Authorization header carries;
// it is redacted from everything the Exchange shows, and its curl command
// reads it from $CONFORMANCE_API_KEY.

// Observed is one exchange as a proxy saw it, key included.
type Observed struct {
	Method string
	// Target is the base address the exchange was forwarded to; with
	// Path and RawQuery it makes the URL of the report and the curl.
	Target         string
	Path, RawQuery string
	RequestHeader  http.Header
	// RequestBody is the whole body, or nil when it was not held
	// (RequestBodyCut: over the proxy's bound).
	RequestBody    []byte
	RequestBodyCut bool
	Status         int
	ResponseHeader http.Header
	// ResponseBody is what passed of the answer (at most the proxy's bound).
	ResponseBody []byte
	// Error is why the exchange ended early ("" when it ended well).
	Error    string
	Duration time.Duration
}

// Key is the API key of an Authorization header: the token of a Bearer
// header, else the whole value.
func Key(h http.Header) string {
	v := h.Get("Authorization")
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return strings.TrimSpace(v[7:])
	}
	return v
}

// Exchange returns o as an Exchange, redacted, with a curl command that
// replays it against o.Target. Before the answer came (Status 0, no Error)
// it is the request alone.
func (o Observed) Exchange() *Exchange {
	r := NewRedactor(Key(o.RequestHeader), "")
	u := strings.TrimRight(o.Target, "/") + o.Path
	if o.RawQuery != "" {
		u += "?" + o.RawQuery
	}
	x := &Exchange{
		Method:        o.Method,
		URL:           r.String(u),
		RequestHeader: r.Header(withoutHopHeaders(o.RequestHeader)),
		Status:        o.Status,
		Error:         r.String(o.Error),
		Duration:      o.Duration,
		Path:          o.Path,
		RawQuery:      o.RawQuery,
		Sent:          o.RequestBody,
		SentCut:       o.RequestBodyCut,
		Raw:           o.ResponseBody,
	}
	if o.Status != 0 {
		x.ResponseHeader = r.Header(o.ResponseHeader)
		x.ResponseBody = r.String(ExcerptOf(o.ResponseBody))
	}
	form := readForm(o.RequestHeader, o.RequestBody)
	var data []byte
	switch {
	case form != nil:
		x.RequestBody = "(multipart/form-data)"
	case o.RequestBodyCut:
		x.RequestBody = "(a body over the proxy's bound, not held)"
	case len(o.RequestBody) > 0:
		data = o.RequestBody
		x.RequestBody = r.String(ExcerptOf(data))
	}
	x.Curl = Curl(r, o.Method, u, withoutHopHeaders(o.RequestHeader), data, form)
	if o.RequestBodyCut {
		x.Curl += " # the body was over the proxy's bound and is not shown"
	}
	return x
}

// Judged is o.Exchange() without what only a rendering of it shows: the
// excerpts of the bodies (RequestBody, ResponseBody) and the curl command
// (Curl; CurlOf makes it). Every field a judge reads is there, the same
// (the raw bodies, the redacted headers and error, the URL of its line):
// the validating proxy judges every exchange but renders only those with
// a finding.
func (o Observed) Judged() *Exchange {
	r := NewRedactor(Key(o.RequestHeader), "")
	x := &Exchange{
		Method:        o.Method,
		URL:           r.String(o.url()),
		RequestHeader: r.headerWithoutHop(o.RequestHeader),
		Path:          o.Path,
		RawQuery:      o.RawQuery,
		Sent:          o.RequestBody,
		SentCut:       o.RequestBodyCut,
	}
	o.answerOf(r, x, false)
	return x
}

// headerWithoutHop is r.Header(withoutHopHeaders(h)), made in one pass.
func (r *Redactor) headerWithoutHop(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if len(vs) > 0 && !slices.Contains(hopHeaders, k) {
			out[k] = r.values(vs)
		}
	}
	return out
}

// CurlOf is the curl command of o.Exchange(): the request replayed
// against o.Target, the key read from $CONFORMANCE_API_KEY.
func (o Observed) CurlOf() string {
	r := NewRedactor(Key(o.RequestHeader), "")
	form := readForm(o.RequestHeader, o.RequestBody)
	var data []byte
	if form == nil && !o.RequestBodyCut && len(o.RequestBody) > 0 {
		data = o.RequestBody
	}
	c := Curl(r, o.Method, o.url(), withoutHopHeaders(o.RequestHeader), data, form)
	if o.RequestBodyCut {
		c += " # the body was over the proxy's bound and is not shown"
	}
	return c
}

// url is the URL of o's request at its target.
func (o Observed) url() string {
	u := strings.TrimRight(o.Target, "/") + o.Path
	if o.RawQuery != "" {
		u += "?" + o.RawQuery
	}
	return u
}

// answerOf sets the answer's part of x from o; the excerpt of its body
// only when excerpt is true.
func (o Observed) answerOf(r *Redactor, x *Exchange, excerpt bool) {
	x.Status, x.Error, x.Duration, x.Raw = o.Status, r.String(o.Error), o.Duration, o.ResponseBody
	x.ResponseHeader, x.ResponseBody = nil, ""
	if o.Status != 0 {
		x.ResponseHeader = r.Header(o.ResponseHeader)
		if excerpt {
			x.ResponseBody = r.String(ExcerptOf(o.ResponseBody))
		}
	}
}

// JudgedAtEnd is JudgedWithAnswer for the end of an answer whose headers
// were judged in at (JudgedWithAnswer of the same request, with the same
// response header map): its redacted response header is at's when the
// status is the same, not made again.
func (o Observed) JudgedAtEnd(req, at *Exchange) *Exchange {
	if at == nil || at.Status != o.Status || o.Status == 0 {
		return o.JudgedWithAnswer(req)
	}
	x := *req
	x.Status, x.Error, x.Duration, x.Raw = o.Status, NewRedactor(Key(o.RequestHeader), "").String(o.Error), o.Duration, o.ResponseBody
	x.ResponseHeader, x.ResponseBody = at.ResponseHeader, ""
	return &x
}

// JudgedWithAnswer is Judged for an o whose request is the one req (an
// earlier Judged) was made from: the request's part — its URL, its
// redacted headers, which depend on the request alone — is req's, made
// once; only the answer's part is made again. The validating proxy judges
// an exchange at its request, its answer's headers and its end.
func (o Observed) JudgedWithAnswer(req *Exchange) *Exchange {
	x := *req
	o.answerOf(NewRedactor(Key(o.RequestHeader), ""), &x, false)
	return &x
}

// withoutHopHeaders leaves out what a replay must not repeat: the
// connection's own headers and the body's length, which curl computes.
func withoutHopHeaders(h http.Header) http.Header {
	out := h.Clone()
	for _, k := range hopHeaders {
		out.Del(k)
	}
	return out
}

// hopHeaders are the headers a replay leaves out, in canonical form.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length", "Accept-Encoding", "User-Agent"}

// readForm reads a multipart body's parts as a Form whose files curl reads
// from files named like the uploaded ones; nil when body is not a whole
// multipart/form-data body.
func readForm(h http.Header, body []byte) *Form {
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" || body == nil {
		return nil
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	f := &Form{}
	for {
		p, err := mr.NextPart()
		if err != nil {
			return f // io.EOF, or a body that breaks off: the parts read so far
		}
		if p.FileName() != "" {
			f.Files = append(f.Files, FormFile{Field: p.FormName(), Name: p.FileName()})
			continue
		}
		v, _ := io.ReadAll(io.LimitReader(p, CurlBodyLimit))
		f.Fields = append(f.Fields, FormField{Name: p.FormName(), Value: string(v)})
	}
}

// PartNames lists the names of a multipart body's parts in order (files
// and fields), nil when body is not a multipart/form-data body.
func PartNames(h http.Header, body []byte) []string {
	f := readForm(h, body)
	if f == nil {
		return nil
	}
	var out []string
	for _, p := range f.Fields {
		out = append(out, p.Name)
	}
	for _, p := range f.Files {
		out = append(out, p.Field)
	}
	return out
}
