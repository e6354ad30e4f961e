package mutation

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"contractkit/spec"
)

// inputMutants are servers that break a rule only a request the suite did
// not send before shows: two faults in one request, an encoding real
// clients send, an id spelt the way clients get it wrong, a call repeated,
// calls at once, a resource in a state of its own. The reference model's
// input dimensions (conformance/inputs) send each; the runner runs them
// with the Explore area only (Model), where the model's phase kills them.
var (
	opGetDataset2      = ops(spec.OpGetDataset, spec.OpDeleteDataset)
	opDeleteConvs      = ops(spec.OpDeleteConversation)
	opGetItems         = ops(spec.OpGetModel, spec.OpGetDataset, spec.OpGetEvaluation)
	opEvaluationWrites = ops(spec.OpUpdateEvaluation, spec.OpRunRagasEvaluation)
)

var inputMutants = []Mutant{
	// ---- two faults in one request: the key first (§5.3) ----
	{Name: "pair-body-parsed-before-key", Area: "model", Model: true,
		Breaks:  "a JSON body that is not JSON is refused 400 before the key is checked (the body parser runs before authentication)",
		Request: refuseUnkeyed(http.StatusBadRequest, func(x *Exchange, body []byte) bool { return isJSONType(x) && len(body) > 0 && !json.Valid(body) })},
	{Name: "pair-size-before-key", Area: "model", Model: true,
		Breaks:  "a JSON body past the contract's JSON body bound (D-15) is refused 413 before the key is checked (a body limit mounted before authentication)",
		Request: refuseUnkeyed(http.StatusRequestEntityTooLarge, func(x *Exchange, body []byte) bool { return isJSONType(x) && int64(len(body)) > maxRewrittenBody() })},
	{Name: "pair-form-type-before-key", Area: "model", Model: true,
		Breaks: "a form operation sent another media type is refused 400 before the key is checked",
		Request: refuseUnkeyed(http.StatusBadRequest, func(x *Exchange, _ []byte) bool {
			mt, _, _ := mime.ParseMediaType(x.Req.Header.Get("Content-Type"))
			return x.route().kin != nil && x.route().kin.RequestBody != nil && x.route().kin.RequestBody.Value.Content.Get("multipart/form-data") != nil &&
				mt != "" && mt != "multipart/form-data"
		})},
	{Name: "pair-unknown-item-before-key", Area: "model", Model: true,
		Breaks: "a GET of a model, dataset or evaluation no account has is answered 404 before the key is checked",
		Request: func(x *Exchange) {
			if !x.is(opGetItems) || x.keyed() || len(x.opts.Keys) == 0 {
				return
			}
			probe := x.Req.Clone(x.Req.Context())
			probe.Header.Set("Authorization", "Bearer "+x.opts.Keys[0])
			if x.askAs(probe).Code == http.StatusNotFound {
				probe.Header.Set("Authorization", "Bearer "+x.opts.Keys[len(x.opts.Keys)-1])
				if x.askAs(probe).Code == http.StatusNotFound {
					x.Note, x.Req.URL.Path = http.StatusNotFound, refusedPath
				}
			}
		}},

	// ---- encodings real clients send ----
	{Name: "encoding-charset-refused", Area: "model", Model: true,
		Breaks: "a JSON body sent as application/json; charset=utf-8 is refused 415 (the media type compared as a string)",
		Request: refuseKeyed(http.StatusUnsupportedMediaType, func(x *Exchange) bool {
			return strings.Contains(strings.ToLower(x.Req.Header.Get("Content-Type")), "charset")
		})},
	{Name: "encoding-charset-refused-evaluation-writes", Area: "model", Model: true,
		Breaks: "an evaluation's update and its RAGAS run refuse a JSON body sent as application/json; charset=utf-8 or in another case (400): the two handlers compare the header as one client sent it",
		Request: refuseKeyed(http.StatusBadRequest, func(x *Exchange) bool {
			ct := x.Req.Header.Get("Content-Type")
			return x.is(opEvaluationWrites) && ct != "" && ct != "application/json"
		})},
	{Name: "encoding-media-type-case", Area: "model", Model: true,
		Breaks: "a JSON body sent as Application/JSON is refused 400 (the media type compared case-sensitively)",
		Request: refuseKeyed(http.StatusBadRequest, func(x *Exchange) bool {
			ct := x.Req.Header.Get("Content-Type")
			return ct != "" && strings.HasPrefix(strings.ToLower(ct), "application/json") && !strings.HasPrefix(ct, "application/json")
		})},
	{Name: "encoding-accept-list-406", Area: "model", Model: true,
		Breaks:  "an Accept header naming several media types (axios's default, application/json, text/plain, */*) is answered 406",
		Request: refuseKeyed(http.StatusNotAcceptable, func(x *Exchange) bool { return strings.Contains(x.Req.Header.Get("Accept"), ",") })},
	{Name: "encoding-type-without-body-refused", Area: "model", Model: true,
		Breaks: "a call without a body that carries Content-Type: application/json is refused 400 (an empty JSON body)",
		Request: refuseKeyed(http.StatusBadRequest, func(x *Exchange) bool {
			return x.Req.Header.Get("Content-Type") != "" && x.Req.ContentLength == 0 && (x.Req.Method == http.MethodGet || x.Req.Method == http.MethodDelete)
		})},
	{Name: "encoding-escapes-dropped", Area: "model", Model: true,
		Breaks:  `JSON text written with \u escapes outside ASCII is stored with each escape as "?" (a hand-made JSON reader)`,
		Request: rewriteJSONBytes(func(b []byte) []byte { return nonASCIIEscape.ReplaceAll(b, []byte("?")) })},
	{Name: "encoding-form-last-part-read", Area: "model", Model: true, Decided: "D-08",
		Breaks: "a form field sent in two parts is read from its last part (the dataset's name is the second)",
		Request: func(x *Exchange) {
			rewriteForm(x, func(name string, parts []string) []string {
				if name == "dataset_name" && len(parts) > 1 {
					return parts[len(parts)-1:]
				}
				return parts
			})
		}},
	{Name: "encoding-stream-backslash-raw", Area: "model", Model: true,
		Breaks: "a stream's token chunk is written by hand, quotes escaped and backslashes not: a token with a backslash breaks its JSON",
		Stream: eachWrite(func(_ *Exchange, _ int, p []byte) []byte {
			if !bytes.Contains(p, []byte(`"type":"token"`)) || !bytes.Contains(p, []byte(`\\`)) {
				return p
			}
			return bytes.ReplaceAll(p, []byte(`\\`), []byte(`\`))
		})},

	// ---- ids spelt the way clients get them wrong ----
	{Name: "id-leading-zeros-octal", Area: "model", Model: true,
		Breaks: "a path id with a leading zero is read as octal (0010 is 8): another resource is served",
		Request: func(x *Exchange) {
			for _, seg := range strings.Split(x.Req.URL.Path, "/") {
				if len(seg) > 1 && seg[0] == '0' {
					if n, err := strconv.ParseInt(seg, 0, 64); err == nil {
						x.Req.URL.Path = strings.Replace(x.Req.URL.Path, "/"+seg, "/"+strconv.FormatInt(n, 10), 1)
					}
				}
			}
		}},
	{Name: "id-dataset-prefix-matched", Area: "model", Model: true,
		Breaks: "a dataset id no dataset has finds the first dataset whose id starts with it (a LIKE 'id%' lookup)",
		Request: func(x *Exchange) {
			id := x.param("dataset_id")
			if !x.is(opGetDataset2) || id == "" || x.ask(http.MethodGet, pathDatasets()+"/"+id, nil).Code != http.StatusNotFound {
				return
			}
			data, _ := x.askData(pathDatasets())
			list, _ := data.([]any)
			for _, d := range list {
				if real := jsonString(dig(d, "id")); strings.HasPrefix(real, id) && real != id {
					x.Req.URL.Path = pathDatasets() + "/" + real
					return
				}
			}
		}},

	{Name: "filter-status-failed-ignored", Area: "model", Model: true,
		Breaks: "the evaluation list filters by pending, running and completed but ignores status=failed (the value missing from the filter's index): every evaluation is listed",
		Request: func(x *Exchange) {
			if x.is(opListEvaluations) && x.Req.URL.Query().Get("status") == "failed" {
				q := x.Req.URL.Query()
				q.Del("status")
				x.Req.URL.RawQuery = q.Encode()
			}
		}},

	{Name: "burst-429-plain-text", Area: "model", Model: true,
		Breaks: "more than six calls of one key at once are shed with 429 and a text/plain body (a concurrency limit in front of the API, not its error envelope)",
		Serve:  shedBursts},

	// ---- a call repeated ----
	{Name: "repeat-running-delete-second-accepted", Area: "model", Model: true,
		Breaks:  "a delete of a running evaluation is refused (409) once and marked: the same delete sent again answers 200",
		Request: secondDelete,
		Answer: func(x *Exchange, a *Answer) {
			if x.Note == deleteAccepted {
				a.Status, a.Body = http.StatusOK, deleted("Evaluation deleted", x.param("evaluation_id"))
				a.Header.Set("Content-Type", "application/json")
			}
		}},
	{Name: "repeat-conversation-delete-200", Area: "model", Model: true,
		Breaks: "a delete of a conversation already deleted answers 200 again (a delete made idempotent)",
		Answer: onOperation(opDeleteConvs, func(x *Exchange, a *Answer) {
			id := x.param("conversation_id")
			switch {
			case a.Status == http.StatusOK:
				deletedConversations.add(id)
			case a.Status == http.StatusNotFound && x.keyed() && deletedConversations.has(id):
				a.Status, a.Body = http.StatusOK, deleted("Conversation deleted", id)
			}
		})},

	// ---- calls at once ----
	{Name: "burst-answers-crossed", Area: "model", Model: true,
		Breaks:  "two reads of models, datasets or evaluations served at once share one buffer: the later gets the earlier's answer",
		Request: func(x *Exchange) { crossing.begin(x) },
		Answer:  func(x *Exchange, a *Answer) { crossing.end(x, a) }},

	// ---- a resource in a state of its own ----
	{Name: "state-rename-drops-messages-count", Area: "model", Model: true, Decided: "D-33",
		Breaks: "renaming a conversation that has messages answers with total_messages 0",
		Answer: onOperation(opRenameConversation, jsonAnswer(func(_ *Exchange, _ int, v any) any {
			if d, ok := dig(v, "data").(map[string]any); ok {
				if n, ok := d["total_messages"].(json.Number); ok && n.String() != "0" {
					d["total_messages"] = 0
				}
			}
			return v
		}))},
	{Name: "state-delete-conversation-with-messages-refused", Area: "model", Model: true,
		Breaks: "a conversation that has messages cannot be deleted (409)",
		Request: func(x *Exchange) {
			if x.is(opDeleteConvs) && x.keyed() {
				if msgs, ok := x.askData(x.Req.URL.Path + "/messages?limit=1"); ok {
					if list, _ := msgs.([]any); len(list) > 0 {
						refuse(x, http.StatusConflict)
					}
				}
			}
		}},
	{Name: "state-inference-renamed-conversation-lost", Area: "model", Model: true,
		Breaks: "an inference continuing a conversation that was renamed answers 404 (the rename moved it)",
		Request: jsonRequest(opRunInference, func(x *Exchange, body map[string]any) bool {
			if id, _ := body["conversation_id"].(string); id != "" && renamedConversations.has(id) && x.keyed() {
				refuse(x, http.StatusNotFound)
			}
			return false
		}),
		Answer: func(x *Exchange, a *Answer) {
			if x.is(opRenameConversation) && a.Status == http.StatusOK {
				renamedConversations.add(x.param("conversation_id"))
			}
		}},
}

// nonASCIIEscape is a \u escape of a character outside ASCII.
var nonASCIIEscape = regexp.MustCompile(`\\u00[89a-fA-F][0-9a-fA-F]|\\u0[1-9a-fA-F][0-9a-fA-F]{2}|\\u[1-9a-fA-F][0-9a-fA-F]{3}`)

// isJSONType reports whether the request says it carries JSON.
func isJSONType(x *Exchange) bool {
	return strings.HasPrefix(strings.ToLower(x.Req.Header.Get("Content-Type")), "application/json")
}

// refuseUnkeyed answers a request without a valid key with status when
// its body (read whole, bounded) makes when true: a check run before the
// key is.
func refuseUnkeyed(status int, when func(x *Exchange, body []byte) bool) func(x *Exchange) {
	return func(x *Exchange) {
		if x.keyed() || x.route().kin == nil {
			return
		}
		body := peekBody(x, 2<<20)
		if when(x, body) {
			x.Note, x.Req.URL.Path = status, refusedPath
		}
	}
}

// refuseKeyed refuses a request with a valid key when it makes when true.
func refuseKeyed(status int, when func(x *Exchange) bool) func(x *Exchange) {
	return func(x *Exchange) {
		if x.route().kin != nil && when(x) {
			refuse(x, status)
		}
	}
}

// peekBody reads up to limit bytes of the request body and puts them back.
func peekBody(x *Exchange, limit int64) []byte {
	r := x.Req
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, limit))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(raw), r.Body))
	return raw
}

// rewriteJSONBytes rewrites the bytes of a JSON request body.
func rewriteJSONBytes(f func([]byte) []byte) func(x *Exchange) {
	return func(x *Exchange) {
		if !isJSONType(x) || !x.keyed() {
			return
		}
		raw := peekBody(x, maxRewrittenBody())
		if len(raw) == 0 || int64(len(raw)) >= maxRewrittenBody() {
			return
		}
		out := f(raw)
		x.Req.Body = io.NopCloser(bytes.NewReader(out))
		x.Req.ContentLength = int64(len(out))
		x.Req.Header.Del("Content-Length")
	}
}

// idSet is a set of ids one mock's wrapper remembers (one mock serves one
// mutant).
type idSet struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (s *idSet) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	s.ids[id] = true
}

func (s *idSet) del(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.ids, id)
}

func (s *idSet) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[id]
}

var (
	renamedConversations, deletedConversations, refusedDeletes idSet
)

// secondDelete lets a delete of an evaluation refused once (running) pass
// the second time: answered 200 without deleting anything.
func secondDelete(x *Exchange) {
	if !x.is(opDeleteEvaluation) || !x.keyed() {
		return
	}
	id := x.param("evaluation_id")
	if x.ask(http.MethodGet, x.Req.URL.Path, nil).Code != http.StatusOK {
		return
	}
	if e, ok := x.askData(x.Req.URL.Path); ok && dig(e, "status") == "running" {
		if refusedDeletes.has(id) {
			x.Note, x.Req.URL.Path = deleteAccepted, refusedPath
			return
		}
		refusedDeletes.add(id)
	}
}

// deleteAccepted notes a delete a mutant answers 200 itself.
const deleteAccepted = "delete accepted"

// deleted is a delete's success body (D-02).
func deleted(message, id string) []byte {
	b, _ := json.Marshal(map[string]any{"status": "success", "data": map[string]any{"message": message, "id": id}})
	return b
}

// rewriteForm rewrites the text fields of a multipart request body: f gets
// each field's parts, in order, and returns those to send.
func rewriteForm(x *Exchange, f func(name string, parts []string) []string) {
	r := x.Req
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || r.Body == nil || !x.keyed() {
		return
	}
	raw := peekBody(x, maxRewrittenBody()+1)
	if int64(len(raw)) > maxRewrittenBody() {
		return
	}
	type part struct {
		header map[string][]string
		data   []byte
		name   string
		file   bool
	}
	var parts []part
	fields := map[string][]string{}
	mr := multipart.NewReader(bytes.NewReader(raw), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		data, _ := io.ReadAll(p)
		parts = append(parts, part{header: p.Header, data: data, name: p.FormName(), file: p.FileName() != ""})
		if p.FileName() == "" {
			fields[p.FormName()] = append(fields[p.FormName()], string(data))
		}
	}
	var out bytes.Buffer
	w := multipart.NewWriter(&out)
	if w.SetBoundary(params["boundary"]) != nil {
		r.Body = io.NopCloser(bytes.NewReader(raw))
		return
	}
	done := map[string]bool{}
	for _, p := range parts {
		if p.file {
			pw, _ := w.CreatePart(p.header)
			_, _ = pw.Write(p.data)
			continue
		}
		if done[p.name] {
			continue
		}
		done[p.name] = true
		for _, v := range f(p.name, fields[p.name]) {
			_ = w.WriteField(p.name, v)
		}
	}
	_ = w.Close()
	r.Body = io.NopCloser(bytes.NewReader(out.Bytes()))
	r.ContentLength = int64(out.Len())
	r.Header.Del("Content-Length")
}

// crossing is burst-answers-crossed's state: the reads in flight, and the
// last answer of each operation.
var crossing = &crossed{last: map[string][]byte{}}

type crossed struct {
	mu       sync.Mutex
	inFlight int
	last     map[string][]byte
}

// crossDelay holds each read a little, so that reads sent at once overlap.
const crossDelay = 30 * time.Millisecond

func (c *crossed) begin(x *Exchange) {
	if !x.is(opGetItems) || !x.keyed() {
		return
	}
	c.mu.Lock()
	c.inFlight++
	x.Note = c.inFlight > 1 // another read is being served
	c.mu.Unlock()
	time.Sleep(crossDelay)
}

func (c *crossed) end(x *Exchange, a *Answer) {
	if !x.is(opGetItems) || !x.keyed() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
	op := x.route().op
	if x.Note == true && a.Status == http.StatusOK && c.last[op] != nil {
		a.Body = c.last[op]
		return
	}
	if a.Status == http.StatusOK {
		c.last[op] = bytes.Clone(a.Body)
	}
}
