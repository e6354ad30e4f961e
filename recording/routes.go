package recording

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"contractkit/spec"
)

// operation is what an exchange of one contract operation does to an
// account: its steps, in order.
type operation struct {
	// readByID: a 404 answer means the record is gone (the server said so).
	readByID bool
	steps    []step
	// does names the steps, for tests and the index.
	does []string
	// multipart: the request body is a multipart form (seed §4.3).
	multipart bool
	id        string // the path's id, when the operation has one
}

// apply runs the steps; the first reason not to record wins.
func (op operation) apply(a *account, x Exchange, in request) string {
	for _, s := range op.steps {
		if why := s(a, x, in); why != "" {
			return why
		}
	}
	return ""
}

// request is what is read of an exchange before the Recorder's lock is
// taken: the path's id and, for the uploads, the multipart form (the
// largest body; parsing it must not hold up other exchanges).
type request struct {
	id      string
	form    form
	formErr error
}

// derive is what an exchange of op does, from op's place in c and its
// x-effect marks (kinds.go): a create, a read, an update or an action that
// answers its resource's record takes the record; a list, the list; a
// delete removes; a GET under an item reads the collection it names; the
// effects add files, append an exchange, move a state. ok is false when
// none of it reaches a kind the recorder keeps; exempt is then the reason
// an operation needs none (a read of nothing the fixture format holds).
func derive(c *spec.Contract, op spec.Operation) (out operation, exempt string, ok bool) {
	role, r := c.Place(op)
	var k kind
	known := false
	if r != nil {
		k, known = kinds[r.Param]
	}
	add := func(name string, s step) {
		out.steps = append(out.steps, s)
		out.does = append(out.does, name)
	}
	get := strings.EqualFold(op.Method, http.MethodGet)
	if known {
		what := r.Word()
		switch {
		case role == spec.RoleList && k.list != nil:
			add(what+" list", k.list)
		case role == spec.RoleDelete && k.remove != nil:
			add(what+" delete", k.remove)
		case role == spec.RoleCreate && k.create != nil && c.AnswersRecord(op):
			add(what+" create", k.create)
		case c.AnswersRecord(op) && k.read != nil:
			add(what+" read", k.read)
			out.readByID = get
		case role == spec.RoleChild && get && k.colls[suffix(op, r)] != nil:
			add(what+" "+suffix(op, r), k.colls[suffix(op, r)])
			out.readByID = true
		}
	}
	for _, e := range c.Effects(op) {
		if name, s := effectStep(c, op, e); s != nil {
			add(name, s)
		}
	}
	if len(out.steps) == 0 {
		if get && len(c.References(op)) == 0 && r == nil {
			return operation{}, "a read of no resource: nothing a fixture holds", false
		}
		return operation{}, "", false
	}
	out.multipart = c.Multipart(op)
	return out, "", true
}

// suffix is the last segment of op's path under r's item.
func suffix(op spec.Operation, r *spec.Resource) string {
	rest := strings.TrimPrefix(op.Path, r.Item+"/")
	return rest[strings.LastIndex(rest, "/")+1:]
}

// effectStep is the step of one x-effect entry of op, nil for a rule that
// changes nothing the fixture format holds beyond what the next read shows
// (a soft delete, the scores of a run, a state a request must be in).
func effectStep(c *spec.Contract, op spec.Operation, e spec.Effect) (string, step) {
	_, own := c.Place(op)
	switch e.Rule {
	case "files":
		into := e.Str("into")
		if into == "" && own != nil {
			// The files join the record the operation creates, which its
			// kind's create step has taken.
			into = own.Param
		}
		k, ok := kinds[into]
		if !ok || k.files == nil {
			return "", nil
		}
		return "files into " + into, func(a *account, x Exchange, in request) string {
			if in.formErr != nil {
				return strings.TrimSuffix(into, "_id") + " files: " + in.formErr.Error()
			}
			var res map[string]json.RawMessage
			_ = json.Unmarshal(payload(x.ResponseBody), &res)
			var id flexID
			if own != nil && into == own.Param {
				_ = id.UnmarshalJSON(res["id"])
			} else {
				_ = id.UnmarshalJSON(res[into])
				if !id.ok {
					_ = id.UnmarshalJSON([]byte(in.form.fields.Get(into)))
				}
			}
			if !id.ok {
				return strings.TrimSuffix(into, "_id") + " files: no " + into + " in the request or the answer"
			}
			var failed []string
			_ = json.Unmarshal(res["failed_files"], &failed)
			k.files(a, id.v, accepted(in.form.files, failed))
			return ""
		}
	case "exchange":
		into, roles := e.Str("into"), e.List("roles")
		k, ok := kinds[into]
		if !ok || k.exchange == nil || len(roles) != 2 {
			return "", nil
		}
		question := e.Str("question")
		return "exchange into " + into, func(a *account, x Exchange, _ request) string {
			var body map[string]any
			if json.Unmarshal(x.RequestBody, &body) != nil {
				return "exchange: the request is not JSON"
			}
			id, _ := body[into].(string)
			if id == "" {
				return "exchange without a " + strings.TrimSuffix(into, "_id") + ": nothing to record"
			}
			answer, ok := answerText(x)
			if !ok {
				return "exchange: the answer is neither an event stream nor a JSON result"
			}
			q, _ := body[question].(string)
			k.exchange(a, id, [2]string{roles[0], roles[1]}, q, answer, body)
			return ""
		}
	case "state":
		target, to := e.Str("target"), e.List("to")
		k, ok := kinds[target]
		if !ok || k.state == nil || len(to) != 1 || own == nil || own.Param != target || c.AnswersRecord(op) {
			// Several states to move to: the answer, or the next read,
			// says which; an action that answers the record is read.
			return "", nil
		}
		field := e.Str("state")
		return strings.TrimSuffix(target, "_id") + " " + field + " " + to[0], func(a *account, _ Exchange, in request) string {
			return k.state(a, in.id, field, to[0])
		}
	}
	return "", nil
}

// routes is the recorder's table, derived from the contract once: what an
// exchange of each operation does, by operationId.
var routes = sync.OnceValue(func() map[string]operation {
	out := map[string]operation{}
	c := spec.Strict()
	for _, op := range c.Operations {
		if o, _, ok := derive(c, op); ok {
			out[op.ID] = o
		}
	}
	return out
})

// apiPrefix starts every path of the contract (seed §9); what comes before
// it is the target's base path.
const apiPrefix = "/api/v1/"

// route finds, with the contract's router, the operation of a request that
// holds recordable data; check-name and paths outside the contract have
// none. The operation's id is the value of its path parameter (every
// operation of the contract names at most one record in its path).
func route(method, path string) (operation, bool) {
	i := strings.Index(path, apiPrefix)
	if i < 0 {
		return operation{}, false
	}
	// path is decoded (an http.Request's URL.Path): the router is given it
	// as it is, and gives its segments back escaped.
	kop, params, _, found := spec.Strict().Find(&http.Request{Method: method, URL: &url.URL{Path: path[i:]}})
	if !found {
		return operation{}, false
	}
	op, ok := routes()[kop.OperationID]
	if !ok {
		return operation{}, false
	}
	for _, v := range params {
		if id, err := url.PathUnescape(v); err == nil {
			op.id = id
		}
	}
	return op, true
}

// RouteTable is the recorder's table for the kit's operation index
// (internal/opindex), derived from c as the recorder derives it: every
// operation whose place and x-effect marks reach a kind the recorder keeps
// maps to "", a read of nothing the fixture format holds to that reason,
// and an operation of neither is left out, for the index to name.
func RouteTable(c *spec.Contract) (name, file string, entries map[string]string) {
	entries = map[string]string{}
	for _, op := range c.Operations {
		if _, why, ok := derive(c, op); ok || why != "" {
			entries[op.ID] = why
		}
	}
	return "recording: what an exchange of each operation does to an account, from its place and its x-effect marks",
		"recording/kinds.go (the kinds of record it keeps, by the resource's id parameter, and the x-effect rules it applies)", entries
}

// does names the steps an exchange of operation id runs, derived from the
// embedded contract (for tests).
func does(id string) []string { return slices.Clone(routes()[id].does) }
