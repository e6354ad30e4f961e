package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/budget"
	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/report"
	"contractkit/spec"
)

// What a run spends (issue #25, D-31, D-40): the run's ledger as the
// client's gate, asked before every request, the written checks', the
// explore phase's and the clean-up's alike. A costly call beyond the
// budget, and any write to a resource the run reuses (--reuse-model), is
// withheld: the client sends nothing and the check is skipped with the
// reason (env.do). What each call made is settled from its answer: an id
// created, work started, a reservation refunded (the call was refused) or
// lost (no answer: it may have made something the run cannot name).

// spending is the gate: the ledger and the contract's resources.
type spending struct {
	ledger    *budget.Ledger
	resources budget.Resources
	// judge tells a request meant to be refused (meantToBeRefused).
	judge *judge.Judge
	// keylessWrites withholds every write that carries a key, refusals
	// included: the smoke profile's promise (D-40).
	keylessWrites bool
}

// errKeyedWrite is why a smoke run withholds a write that carries a key.
var errKeyedWrite = errors.New("the smoke profile sends no write with a key, refusals included (D-40)")

func newSpending(b budget.Budget, j *judge.Judge) *spending {
	return &spending{ledger: budget.NewLedger(b), resources: budget.ResourcesOf(spec.Declared()), judge: j}
}

// route is the operation a request goes to and its path parameters.
func route(method, path string) (spec.Operation, map[string]string, bool) {
	req, err := http.NewRequest(method, "http://contract.invalid"+path, nil)
	if err != nil {
		return spec.Operation{}, nil, false
	}
	kop, params, _, found := spec.Declared().Find(req)
	if !found || kop == nil {
		return spec.Operation{}, nil, false
	}
	op, ok := spec.Declared().Operation(kop.OperationID)
	return op, params, ok
}

// Admit implements client.Gate.
func (s *spending) Admit(r client.Request, body []byte, contentType string) (func(*exchange.Exchange), error) {
	if s.keylessWrites && r.Auth != client.AuthNone && r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil, errKeyedWrite
	}
	op, params, ok := route(r.Method, r.Path)
	if !ok {
		return nil, nil // outside the contract: nothing it marks
	}
	values := fieldsOf(body, contentType)
	for k, v := range params {
		values[k] = v
	}
	call := budget.Call{Op: op, Touches: s.resources.Touches(op, values), Refusal: r.Refusal || meantToBeRefused(s.judge, r, op, body, contentType)}
	t, err := s.ledger.Admit(call)
	if err != nil {
		return nil, err
	}
	return func(x *exchange.Exchange) { s.settle(op, params, call, t, x) }, nil
}

// meantToBeRefused tells a request the server must refuse whatever its
// state: without a key or with a wrong one, or breaking the declared
// request schema (a departure the contract reads leniently, D-21, is not
// one: a server may serve it).
func meantToBeRefused(j *judge.Judge, r client.Request, op spec.Operation, body []byte, contentType string) bool {
	if r.Auth == client.AuthNone || r.Auth == client.AuthRaw {
		return true
	}
	x := &exchange.Exchange{Method: r.Method, Path: r.Path, Sent: body, RequestHeader: http.Header{"Authorization": {"Bearer <key>"}}}
	if len(r.Query) > 0 {
		x.RawQuery = r.Query.Encode()
	}
	if contentType != "" {
		x.RequestHeader.Set("Content-Type", contentType)
	}
	return len(j.Request(op.ID, x).Class(judge.Declared)) > 0
}

// settle tells the ledger what the call did, from its answer.
func (s *spending) settle(op spec.Operation, params map[string]string, call budget.Call, t *budget.Ticket, x *exchange.Exchange) {
	ok := x.Status/100 == 2
	if ok && op.Method == http.MethodDelete {
		for _, ref := range s.resources.Touches(op, params) {
			s.ledger.Removed(ref.Kind, ref.ID)
		}
	}
	if op.Cost == nil {
		return
	}
	id := ""
	if ok {
		body, _ := judge.ParseJSON(x.Raw)
		id = body.Get("data").Get("id").ID()
	}
	switch {
	case call.Refusal:
		if ok && op.Cost.Effect == spec.CostCreates && id != "" {
			s.ledger.Unplanned(op.Cost.Kind, id)
		}
	case t == nil:
	case x.Status == 0 && (x.Withheld != nil || strings.HasPrefix(x.Error, "building the request")):
		t.Refund() // never sent (an operation the server stopped answering)
	case x.Status == 0:
		t.Lost()
	case !ok:
		t.Refund()
	case op.Cost.Effect == spec.CostStarts:
		t.Started(startedOn(op, params))
	case id != "":
		t.Created(id)
	default:
		t.Lost() // a success without an id: something may exist, unnamed
	}
}

// startedOn is the id of the resource a start names in its path ("" for
// none: an inference).
func startedOn(op spec.Operation, params map[string]string) string {
	for name, v := range params {
		if strings.Contains(op.Path, "{"+name+"}") {
			return v
		}
	}
	return ""
}

// gone records that the resource at path p is gone (the clean-up was
// answered 404): the run no longer holds it.
func (s *spending) gone(p string) {
	op, params, ok := route(http.MethodDelete, p)
	if !ok {
		return
	}
	for _, ref := range s.resources.Touches(op, params) {
		s.ledger.Removed(ref.Kind, ref.ID)
	}
}

// maxFieldBytes bounds a body read for its fields: the gate reads the ids a
// request names, never an upload's content.
const maxFieldBytes = 1 << 20

// fieldsOf are the top-level scalar fields of a JSON body or a form, as
// strings: the ids a request names.
func fieldsOf(body []byte, contentType string) map[string]string {
	out := map[string]string{}
	mt, p, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/json" && len(body) <= maxFieldBytes:
		var m map[string]any
		if json.Unmarshal(body, &m) != nil {
			return out
		}
		for k, v := range m {
			switch v := v.(type) {
			case string:
				out[k] = v
			case float64:
				out[k] = fmt.Sprint(int64(v))
			}
		}
	case mt == "multipart/form-data":
		form, err := multipart.NewReader(bytes.NewReader(body), p["boundary"]).ReadForm(maxFieldBytes)
		if err != nil {
			return out
		}
		defer form.RemoveAll()
		for k, vs := range form.Value {
			if len(vs) > 0 {
				out[k] = vs[0]
			}
		}
	}
	return out
}

// withheld skips the check whose request x the gate did not send, with
// the reason (a spent budget, a reused resource).
func (e *env) withheld(x *exchange.Exchange) {
	GinkgoHelper()
	if x != nil && x.Withheld != nil {
		e.withheldWhy = "not sent: " + x.Withheld.Error()
		Skip(e.withheldWhy)
	}
}

// costs labels a check or a container with the kinds it may create or
// start ("cost:models"): --list shows them, and a label filter such as
// '!cost:models' leaves out what would train. A shared resource (the ready
// model, the shared dataset) is paid by the first check that needs it and
// is not in the labels of the others.
func costs(kinds ...spec.CostKind) Labels {
	l := make(Labels, 0, len(kinds))
	for _, k := range kinds {
		l = append(l, report.CostLabel+string(k))
	}
	return l
}
