package refmodel

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"

	"contractkit/judge"
)

// Call is one request as the model sees it.
type Call struct {
	// Op is the contract's operationId.
	Op string
	// Key is the credentials it carries.
	Key Key
	// Near is which near miss of a real key a KeyBad call carries: the
	// sender's n-th (the suite's client.NearKeys: the last character
	// changed, one appended, the last dropped, the other case).
	Near int
	// Path are its path parameters by name.
	Path map[string]string
	// Query is its query string.
	Query url.Values
	// Body is the JSON body it sent, decoded (numbers as json.Number), nil
	// without one.
	Body any
	// Raw is a body sent as bytes that Body cannot say (malformed JSON),
	// with ContentType. ContentType, when set, is the Content-Type header
	// whatever the body (a JSON body's is application/json otherwise; a
	// call without a body may carry one too).
	Raw         []byte
	ContentType string
	// Form is a multipart body.
	Form *Form
	// Accept is its Accept header.
	Accept string
	// Wire is how it is carried: its transport and spellings (wire.go).
	Wire Wire
}

// Form is a multipart/form-data body.
type Form struct {
	Fields map[string][]string
	Files  []File
}

// File is one file part of a form.
type File struct {
	// Field is the part's form name ("files"), Name its file name.
	Field, Name string
	Content     []byte
}

// Answer is what came back.
type Answer struct {
	// Status is 0 when no answer came (a transport error).
	Status int
	Header http.Header
	// Body is the decoded JSON body (numbers as json.Number), nil when the
	// answer is not JSON.
	Body any
	// Stream is an event stream's reading, nil for other answers.
	Stream *Stream
	// Cut: the answer was cut short (the suite's deadline, the transport).
	Cut bool
	// Note is what the sender keeps with the answer (the suite's
	// exchange); the model does not read it.
	Note any
}

// Stream is what an event stream said.
type Stream struct {
	// Text is the answer's pieces (token and delta chunks) joined.
	Text string
	// Done are the fields of the done chunk, nil when none came.
	Done map[string]any
	// Complete: the stream ended with [DONE].
	Complete bool
	// NotJSON are the data of its events before [DONE] that are not one
	// JSON value (a chunk whose text broke its escaping).
	NotJSON []string
}

// Verdict is what the model makes of one answer.
type Verdict struct {
	// Findings are predictions the answer breaks.
	Findings []judge.Finding
	// Timing are breaks that hold only if no state moved unseen since the
	// model last saw it (the server's clock may have moved it): a caller
	// confirms them by replay before it reports them.
	Timing []judge.Finding
}

// value returns the value a call sent at loc: "path" (the operation's
// item parameter), "query:name", "body:name", "form:name".
func (c Call) value(op *operation, loc string) (any, bool) {
	where, name, _ := cut(loc)
	switch where {
	case "path":
		if op.kind != nil {
			v, ok := c.Path[op.kind.param]
			return v, ok
		}
	case "query":
		if c.Query != nil && c.Query.Has(name) {
			if p := op.param("query", name); p != nil && p.Schema != nil {
				return queryValue(p.Schema.Value, c.Query.Get(name)), true
			}
			return c.Query.Get(name), true
		}
	case "body":
		if b, ok := c.Body.(map[string]any); ok {
			v, ok := b[name]
			return v, ok
		}
	case "form":
		if c.Form != nil && len(c.Form.Fields[name]) > 0 {
			return c.Form.Fields[name][0], true
		}
	}
	return nil, false
}

// cut splits a location "query:page" into its place and name.
func cut(loc string) (where, name string, ok bool) { return strings.Cut(loc, ":") }

// field returns a request field of the body or form by name.
func (c Call) field(name string) (any, bool) {
	if c.Form != nil {
		if v := c.Form.Fields[name]; len(v) > 0 {
			return v[0], true
		}
		return nil, false
	}
	b, ok := c.Body.(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := b[name]
	return v, ok
}

// request builds the HTTP request a call is, for the contract's validator.
func (c Call) request(op *operation) (*http.Request, error) {
	path := op.path
	for name, v := range c.Path {
		path = strings.ReplaceAll(path, "{"+name+"}", url.PathEscape(v))
	}
	u := &url.URL{Path: path, RawQuery: c.Query.Encode()}
	var body []byte
	ctype := c.ContentType
	switch {
	case c.Raw != nil:
		body = c.Raw
	case c.Form != nil:
		var err error
		body, ctype, err = c.Form.encode()
		if err != nil {
			return nil, err
		}
	case c.Body != nil:
		var err error
		if body, err = json.Marshal(c.Body); err != nil {
			return nil, err
		}
		if ctype == "" {
			ctype = "application/json"
		}
	}
	r, err := http.NewRequest(op.method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	return r, nil
}

// encode writes the form as a multipart body.
func (f *Form) encode() ([]byte, string, error) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, name := range sortedKeys(f.Fields) {
		for _, v := range f.Fields[name] {
			if err := w.WriteField(name, v); err != nil {
				return nil, "", err
			}
		}
	}
	for _, file := range f.Files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(file.Field)+`"; filename="`+quoteEscaper.Replace(file.Name)+`"`)
		h.Set("Content-Type", "application/octet-stream")
		p, err := w.CreatePart(h)
		if err != nil {
			return nil, "", err
		}
		if _, err := p.Write(file.Content); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return b.Bytes(), w.FormDataContentType(), nil
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

// files are the call's file parts: those of the operation's field of
// binary items.
func (c Call) files(op *operation) []File {
	if c.Form == nil || op.files == "" {
		return nil
	}
	var out []File
	for _, f := range c.Form.Files {
		if f.Field == op.files {
			out = append(out, f)
		}
	}
	return out
}
