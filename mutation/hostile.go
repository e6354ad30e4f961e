package mutation

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"contractkit/internal/hostile"
	"contractkit/spec"
)

// Caps that end a hostile server's loops when no client ends them first:
// far beyond any bound a client keeps, so to a client they never end.
const (
	floodCap = 64 << 30         // bytes of an endless answer or header
	holdCap  = 10 * time.Minute // a silence held open
	dripStep = 2 * time.Second  // between two dripped bytes
)

// errSilent ends the mock's stream handler once a silence is over.
var errSilent = errors.New("hostile: the stream stays silent")

// hostiles are servers a candidate under development becomes by accident:
// they hang, flood and drip. Each is hostile on one operation and
// otherwise the mock. The suite must end against each with exit 1 and
// readable reports, in bounded time and memory: List leaves them out, the
// runner adds them to its default set and judges them by that expectation
// (mutation/runner, hostile.go).
var hostiles = []Mutant{
	{Name: "hostile-model-list-endless", Area: "models", Hostile: true,
		Breaks: "the model list never ends: whitespace without end after `[`",
		Serve: onServe(opHostileListModels, func(x *Exchange, w http.ResponseWriter) {
			hostile.Endless(w, x.Client, "application/json", []byte(`{"status":"success","data":[`), ' ', floodCap)
		})},
	{Name: "hostile-json-endless", Area: "explore", Hostile: true,
		Breaks: "every JSON answer never ends: the mock's status, headers and body, its last byte held back and whitespace without end after it",
		Serve: func(x *Exchange, w http.ResponseWriter) bool {
			if x.route().op == "" {
				return false
			}
			endlessAnswer(x, w)
			return true
		}},
	{Name: "hostile-model-drip", Area: "models", Hostile: true,
		Breaks: "a GET of one model drips its answer, a byte every 2 s",
		Serve: onServe(opHostileGetModel, func(x *Exchange, w http.ResponseWriter) {
			rec := x.recorded()
			hostile.Drip(w, x.Client, rec.Code, rec.Header(), rec.Body.Bytes(), dripStep)
		})},
	{Name: "hostile-stream-never-done", Area: "inference", Hostile: true,
		Breaks: "an inference stream never sends [DONE]: after the answer, a token chunk every 100 ms without end",
		Stream: func(x *Exchange, _ http.Header) StreamFilter {
			return StreamFilter{Write: func(out StreamOut, p []byte) error {
				if bytes.Contains(p, []byte("[DONE]")) {
					hostile.Repeat(x.Client.Context(), out, hostile.TokenEvent, 100*time.Millisecond, floodCap)
					return x.Client.Context().Err()
				}
				_, err := out.Write(p)
				return err
			}}
		}},
	{Name: "hostile-stream-silent", Area: "inference", Hostile: true,
		Breaks: "an inference stream goes silent after its first chunk, the connection held open",
		Stream: func(x *Exchange, _ http.Header) StreamFilter {
			writes := 0
			return StreamFilter{Write: func(out StreamOut, p []byte) error {
				if writes++; writes > 1 {
					hostile.Hold(x.Client.Context(), holdCap)
					return errSilent // the client left, or the hold ran out: the handler stops
				}
				_, err := out.Write(p)
				return err
			}}
		}},
	{Name: "hostile-dataset-list-garbage", Area: "datasets", Hostile: true,
		Breaks: "the dataset list is 64 KiB of binary noise labelled application/json",
		Serve: onServe(opListDatasets, func(_ *Exchange, w http.ResponseWriter) {
			hostile.Garbage(w, 64<<10)
		})},
	{Name: "hostile-evaluation-list-reset", Area: "evaluations", Hostile: true,
		Breaks: "the evaluation list resets the connection (TCP RST) without an answer",
		Serve: onServe(opListEvaluations, func(_ *Exchange, w http.ResponseWriter) {
			_ = hostile.Reset(w) // HTTP/2 cannot be reset this way: the mock serves HTTP/1
		})},
	{Name: "hostile-conversation-list-nested", Area: "conversations", Hostile: true,
		Breaks: "the conversation list is JSON nested 200,000 deep",
		Serve: onServe(opListConversations, func(_ *Exchange, w http.ResponseWriter) {
			hostile.Nested(w, 200_000)
		})},
	{Name: "hostile-dataset-headers-endless", Area: "datasets", Hostile: true,
		Breaks: "a GET of one dataset sends headers that never end",
		Serve: onServe(opGetDataset, func(x *Exchange, w http.ResponseWriter) {
			_ = hostile.EndlessHeaders(w, x.Client, floodCap)
		})},
}

// endlessAnswer answers with the mock's answer made endless when it is JSON
// (its status and headers, its body less its closing byte, then spaces
// until the client leaves); any other answer (an event stream, an empty
// 204) goes as the mock wrote it.
func endlessAnswer(x *Exchange, w http.ResponseWriter) {
	rec := x.recorded()
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	body := bytes.TrimRight(rec.Body.Bytes(), " \r\n\t")
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") || len(body) == 0 {
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes()) // a client gone: nothing to do
		return
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.Code)
	out := hostile.Flushing(w)
	if _, err := out.Write(body[:len(body)-1]); err != nil {
		return
	}
	hostile.Repeat(x.Client.Context(), out, hostile.Filler(' '), 0, floodCap)
}

// The operations the hostile servers misbehave on that no other mutant
// names (the others' sets are shared: opListDatasets, opGetDataset,
// opListEvaluations, opListConversations).
var (
	opHostileListModels = ops(spec.OpListModels)
	opHostileGetModel   = ops(spec.OpGetModel)
)

// onServe answers requests to the operations of s with f; others go to
// the mock.
func onServe(s opSet, f func(x *Exchange, w http.ResponseWriter)) func(*Exchange, http.ResponseWriter) bool {
	return func(x *Exchange, w http.ResponseWriter) bool {
		if !x.is(s) {
			return false
		}
		f(x, w)
		return true
	}
}

// recorded is the wrapped handler's whole answer to the request.
func (x *Exchange) recorded() *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	x.next.ServeHTTP(rec, x.Req)
	return rec
}
