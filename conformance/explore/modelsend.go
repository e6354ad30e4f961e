package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"contractkit/conformance/client"
	refmodel "contractkit/conformance/refmodel"
	"contractkit/conformance/refmodel/drive"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"
)

// The reference model's calls (package model/drive) sent through the
// host's client: recorded with their curl lines, a 429 waited out as the
// client does, coverage fed. What comes back is read whole, an event
// stream joined as a client joins it.

// modelStreamIdle bounds the silence between two events of a stream the
// model reads, modelStreamTime a whole stream: a stream cut by either is
// an answer cut by the suite, never a verdict.
const (
	modelStreamIdle = 10 * time.Second
	modelStreamTime = 30 * time.Second
)

type modelSender struct {
	host Host
	ops  map[string]spec.Operation
	// log, when set, sees each exchange (the area's report of the calls).
	log func(*exchange.Exchange)
}

// ModelSender is a drive.Sender over the host's client; log (nil: none)
// sees each exchange it made.
func ModelSender(host Host, log func(*exchange.Exchange)) drive.Sender {
	s := modelSender{host: host, ops: map[string]spec.Operation{}, log: log}
	for _, op := range spec.Strict().Operations {
		s.ops[op.ID] = op
	}
	return s
}

var modelAuth = map[refmodel.Key]client.Auth{refmodel.KeyA: client.AuthKey, refmodel.KeyB: client.AuthKey2,
	refmodel.KeyBad: client.AuthNear, refmodel.KeyNone: client.AuthNone}

// Send sends c and reads its answer.
func (s modelSender) Send(ctx context.Context, c refmodel.Call) refmodel.Answer {
	op, ok := s.ops[c.Op]
	if !ok {
		return refmodel.Answer{}
	}
	r := client.Request{Method: strings.ToUpper(op.Method), Path: c.PathOf(op.Path), Query: c.Query, Auth: modelAuth[c.Key], Near: c.Near,
		Chunked: c.Wire.Chunked, Continue: c.Wire.Continue}
	if c.Wire.Space != "" && len(c.Query) > 0 {
		r.RawQuery = c.RawQuery()
	}
	switch {
	case c.Raw != nil:
		r.Body, r.ContentType = c.Raw, c.ContentType
	case c.Form != nil:
		r.Form = modelForm(c.Form)
	case c.Body != nil && c.ContentType != "":
		b, err := json.Marshal(c.Body)
		if err != nil {
			return refmodel.Answer{}
		}
		r.Body, r.ContentType = b, c.ContentType
	case c.Body != nil:
		r.JSON = c.Body
	case c.ContentType != "":
		r.Body, r.ContentType = []byte{}, c.ContentType // a type on a call without a body
	}
	if c.Accept != "" {
		r.Header = http.Header{"Accept": {c.Accept}}
	}
	resp, x := s.host.Client().Open(ctx, r)
	if resp == nil {
		s.logged(x)
		return refmodel.Answer{Status: x.Status, Header: x.ResponseHeader, Note: x}
	}
	defer resp.Body.Close()
	a := refmodel.Answer{Status: resp.StatusCode, Header: resp.Header, Note: x}
	if judge.IsEventStream(resp.StatusCode, resp.Header) {
		sctx, cancel := context.WithTimeout(ctx, modelStreamTime)
		defer cancel()
		stop := context.AfterFunc(sctx, func() { resp.Body.Close() })
		defer stop()
		st := judge.ReadStream(resp.Body, modelStreamIdle, cancel)
		// A stream cut by the model's own bounds is the suite's doing:
		// judged by the events read (a server that broke it off is not).
		s.host.Client().FinishStream(x, st, errors.Is(st.Err, judge.ErrStalled) || sctx.Err() != nil)
		s.logged(x)
		a.Stream, a.Cut = joined(st), st.Err != nil
		return a
	}
	_, err := s.host.Client().FinishRead(x, resp) // within the client's body bound (D-42)
	s.logged(x)
	a.Cut = err != nil
	dec := json.NewDecoder(bytes.NewReader(x.Raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil {
		a.Body = v
	}
	return a
}

// logged hands x to the log as reports show it: its body's excerpt, not
// its body (the phase keeps every exchange until its check reports).
func (s modelSender) logged(x *exchange.Exchange) {
	if s.log != nil && x != nil {
		kept := *x
		kept.Raw, kept.Sent = nil, nil
		s.log(&kept)
	}
}

// joined is an event stream as a client joins it (D-03): the pieces of
// its token and delta chunks, the fields of its done chunk.
func joined(st *judge.Stream) *refmodel.Stream {
	out := &refmodel.Stream{Complete: st.Done, NotJSON: st.NotJSON}
	var text strings.Builder
	for _, c := range st.Chunks {
		chunk, _ := c.(map[string]any) // numbers as json.Number, as the model reads them
		switch chunk["type"] {
		case "token", "delta":
			s, _ := chunk["content"].(string)
			text.WriteString(s)
		case "done":
			out.Done = map[string]any{}
			for k, v := range chunk {
				if k != "type" && k != "content" {
					out.Done[k] = v
				}
			}
		}
	}
	out.Text = text.String()
	return out
}

// modelForm is a model's form as the client sends it.
func modelForm(f *refmodel.Form) *exchange.Form {
	out := &exchange.Form{}
	for _, name := range slices.Sorted(maps.Keys(f.Fields)) {
		for _, v := range f.Fields[name] {
			out.Fields = append(out.Fields, exchange.FormField{Name: name, Value: v})
		}
	}
	for _, file := range f.Files {
		out.Files = append(out.Files, exchange.FormFile{Field: file.Field, Name: file.Name, Content: file.Content})
	}
	return out
}
