package coverage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"contractkit/spec"
)

// small is a contract small enough to know its coverage by heart: a list
// (allOf of an envelope and an array of a $ref'd record), a read by id
// with a status range, an event stream with a chunk schema, a recursive
// schema.
const small = `
openapi: 3.0.3
info: {title: small, version: v1}
servers: [{url: /}]
x-request-limits: { json-body-bytes: 1048576, multipart-body-bytes: 104857600, json-depth: 64, form-field-bytes: 16384, multipart-parts: 1000, decision: D-15 }
paths:
  /things:
    get:
      operationId: listThings
      responses:
        '200':
          description: the things
          content:
            application/json:
              schema:
                allOf:
                  - $ref: '#/components/schemas/Envelope'
                  - type: object
                    properties:
                      data: {type: array, items: {$ref: '#/components/schemas/Thing'}}
        '404':
          description: none
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Error'}
  /things/{id}:
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: a tree
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Node'}
        4XX:
          description: refused
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Error'}
  /stream:
    post:
      operationId: streamThings
      responses:
        '200':
          description: a stream
          content:
            text/event-stream:
              x-event-schema: {$ref: '#/components/schemas/Chunk'}
              schema: {type: string}
components:
  schemas:
    Envelope:
      type: object
      properties:
        status: {type: string}
    Thing:
      type: object
      properties:
        id: {type: string}
        tags: {type: array, items: {type: string}}
        owner:
          type: object
          properties:
            name: {type: string}
    Error:
      type: object
      properties:
        status: {type: string}
        message: {type: string}
    Chunk:
      type: object
      properties:
        type: {type: string}
        content: {type: string}
    Node:
      type: object
      properties:
        name: {type: string}
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
`

func smallContract(t testing.TB) *spec.Contract {
	t.Helper()
	c, err := spec.Build([]byte(small))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func operation(t *testing.T, rep Report, id string) Operation {
	t.Helper()
	for _, o := range rep.Operations {
		if o.ID == id {
			return o
		}
	}
	t.Fatalf("no operation %s in the report", id)
	return Operation{}
}

func body(t *testing.T, o Operation, code string, event bool) Body {
	t.Helper()
	for _, s := range o.Statuses {
		if s.Code != code {
			continue
		}
		for _, b := range s.Bodies {
			if b.EventChunk == event {
				return b
			}
		}
	}
	t.Fatalf("%s: no body for %s (event %v)", o.ID, code, event)
	return Body{}
}

func TestFieldsFollowRefsAllOfArraysAndStopAtRecursion(t *testing.T) {
	rep := New(smallContract(t)).Report()
	tests := []struct {
		op, code string
		event    bool
		want     []string
	}{
		{"listThings", "200", false, []string{"data", "data[]", "data[].id", "data[].owner", "data[].owner.name", "data[].tags", "data[].tags[]", "status"}},
		{"listThings", "404", false, []string{"message", "status"}},
		{"getThing", "200", false, []string{"children", "children[]", "name"}},
		{"streamThings", "200", true, []string{"content", "type"}},
	}
	for _, tt := range tests {
		b := body(t, operation(t, rep, tt.op), tt.code, tt.event)
		if !reflect.DeepEqual(b.NeverObserved, tt.want) || b.Fields != len(tt.want) || b.Observed != 0 {
			t.Errorf("%s %s: fields %v (%d, %d observed), want %v", tt.op, tt.code, b.NeverObserved, b.Fields, b.Observed, tt.want)
		}
	}
}

func TestObserveMarksStatusesAndFields(t *testing.T) {
	r := New(smallContract(t))
	r.Observe("GET", "/things", 200, "application/json; charset=utf-8", []byte(`{"status":"success","data":[{"id":"1","owner":{"name":"a"},"extra":1}]}`))
	r.Observe("GET", "/things/7", 404, "application/json", []byte(`{"status":"error","message":"no"}`))
	r.Observe("GET", "/things/7", 302, "text/html", []byte(`<p>moved</p>`))
	rep := r.Report()

	list := operation(t, rep, "listThings")
	if list.Calls != 1 || !reflect.DeepEqual(list.SeenCodes(), []string{"200"}) || !reflect.DeepEqual(list.NeverSeenCodes(), []string{"404"}) {
		t.Errorf("listThings: calls %d, seen %v, never %v", list.Calls, list.SeenCodes(), list.NeverSeenCodes())
	}
	if got := body(t, list, "200", false).NeverObserved; !reflect.DeepEqual(got, []string{"data[].tags", "data[].tags[]"}) {
		t.Errorf("listThings 200 never observed %v", got)
	}

	get := operation(t, rep, "getThing")
	if get.Calls != 2 || !reflect.DeepEqual(get.SeenCodes(), []string{"4XX"}) {
		t.Errorf("getThing: calls %d, seen %v (404 is documented by 4XX)", get.Calls, get.SeenCodes())
	}
	if !reflect.DeepEqual(get.Undocumented, []Undocumented{{Status: 302, Count: 1}}) {
		t.Errorf("getThing undocumented %v, want 302 once", get.Undocumented)
	}
	if stream := operation(t, rep, "streamThings"); stream.Calls != 0 {
		t.Errorf("streamThings called %d times", stream.Calls)
	}
	want := Totals{Operations: 3, OperationsCalled: 2, Statuses: 5, StatusesSeen: 2, Fields: 17, FieldsObserved: 6 + 2, UndocumentedStatuses: 1}
	if rep.Totals != want {
		t.Errorf("totals %+v, want %+v", rep.Totals, want)
	}
	if line := rep.Line(); line != "Coverage: 2/3 operations called, 2/5 documented statuses seen, 8/17 answer fields observed, 1 undocumented status(es)" {
		t.Errorf("line %q", line)
	}
}

func TestEventStreamChunks(t *testing.T) {
	r := New(smallContract(t))
	// The second chunk is cut short (no blank line yet): not observed.
	r.Observe("POST", "/stream", 200, "text/event-stream", []byte(": hello\r\nevent: x\r\ndata: {\"type\":\"token\"}\r\n\r\ndata: [DONE]\n\ndata: {\"content\":\"x\"}\n"))
	b := body(t, operation(t, r.Report(), "streamThings"), "200", true)
	if !reflect.DeepEqual(b.NeverObserved, []string{"content"}) {
		t.Errorf("after the stream text: never observed %v, want [content]", b.NeverObserved)
	}
	r.ObserveEvent("POST", "/stream", []byte(`{"content":"x"}`))
	r.ObserveEvent("POST", "/stream", []byte(`[DONE]`))
	o := operation(t, r.Report(), "streamThings")
	if b := body(t, o, "200", true); len(b.NeverObserved) != 0 || o.Calls != 1 {
		t.Errorf("after ObserveEvent: never observed %v, calls %d (an event is not a call)", b.NeverObserved, o.Calls)
	}
}

func TestUnroutedRequestsAreCountedAndBounded(t *testing.T) {
	r := New(smallContract(t))
	r.Observe("GET", "/nowhere", 404, "application/json", nil)
	r.Observe("DELETE", "/things", 405, "application/json", nil) // a path, not this method
	for i := range maxUnrouted + 10 {
		r.Observe("GET", fmt.Sprintf("/x/%d", i), 404, "", nil)
	}
	rep := r.Report()
	if rep.Totals.UnroutedRequests != maxUnrouted+12 || len(rep.Unrouted) != maxUnrouted+1 {
		t.Errorf("unrouted %d requests in %d rows, want %d in %d", rep.Totals.UnroutedRequests, len(rep.Unrouted), maxUnrouted+12, maxUnrouted+1)
	}
	if rep.Totals.OperationsCalled != 0 {
		t.Errorf("an unrouted request called an operation: %+v", rep.Totals)
	}
	if !strings.Contains(rep.Line(), fmt.Sprintf("%d request(s) to no documented operation", maxUnrouted+12)) {
		t.Errorf("line %q", rep.Line())
	}
}

func TestRecorderIsSafeForConcurrentUse(t *testing.T) {
	r := New(smallContract(t))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				r.Observe("GET", fmt.Sprintf("/things/%d", i*100+j), 200, "application/json", []byte(`{"name":"n","children":[]}`))
				r.ObserveEvent("POST", "/stream", []byte(`{"type":"token"}`))
				_ = r.Report()
			}
		})
	}
	wg.Wait()
	if o := operation(t, r.Report(), "getThing"); o.Calls != 400 {
		t.Errorf("calls %d, want 400", o.Calls)
	}
}

func TestReportRoundTripsThroughJSON(t *testing.T) {
	r := New(smallContract(t))
	r.Observe("GET", "/things", 200, "application/json", []byte(`{"status":"success","data":[]}`))
	r.Observe("GET", "/things/1", 500, "application/json", nil)
	rep := r.Report()
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rep) {
		t.Errorf("round trip changed the report:\n%s", raw)
	}
	for _, key := range []string{`"operations_called":2`, `"operation_id":"listThings"`, `"never_observed":["data[]"`, `"undocumented_statuses":[{"status":500,"count":1}]`} {
		if !bytes.Contains(raw, []byte(key)) {
			t.Errorf("JSON lacks %s:\n%s", key, raw)
		}
	}
}

func TestWriteText(t *testing.T) {
	r := New(smallContract(t))
	r.Observe("GET", "/things", 200, "application/json", []byte(`{"status":"success","data":[{"id":"1"}]}`))
	r.Observe("GET", "/things/1", 302, "", nil)
	var out bytes.Buffer
	r.Report().WriteText(&out)
	text := out.String()
	for _, want := range []string{
		"OPERATION", "GET /things (listThings)",
		"200 application/json never observed: data[].owner, data[].owner.name, data[].tags, data[].tags[]",
		"undocumented status 302 (×1)",
		"Coverage: 2/3 operations called",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	// The list's row: called once, 200 seen, 404 never, 4 of 10 fields.
	if !regexp.MustCompile(`GET /things \(listThings\)\s+1\s+200\s+404\s+4/10\n`).MatchString(text) {
		t.Errorf("no row for listThings:\n%s", text)
	}
}

// TestEveryContractOperationAppears holds the report to the contract: every
// operation, in its order, with its documented statuses, and a concrete
// path routed by the contract's router.
func TestEveryContractOperationAppears(t *testing.T) {
	c := spec.Strict()
	r := New(c)
	r.Observe("GET", "/api/v1/user/model/7", 404, "application/json", []byte(`{"status":"error","message":"model 7 not found"}`))
	rep := r.Report()
	if len(rep.Operations) != len(c.Operations) || len(c.Operations) == 0 {
		t.Fatalf("%d operations in the report, %d in the contract", len(rep.Operations), len(c.Operations))
	}
	for i, op := range c.Operations {
		o := rep.Operations[i]
		var codes []string
		for _, s := range o.Statuses {
			codes = append(codes, s.Code)
		}
		if o.ID != op.ID || o.Method != op.Method || o.Path != op.Path || !reflect.DeepEqual(codes, op.Statuses) {
			t.Errorf("operation %d: %s %s %s %v, contract %s %s %s %v", i, o.ID, o.Method, o.Path, codes, op.ID, op.Method, op.Path, op.Statuses)
		}
		if _, total := o.FieldCounts(); total == 0 {
			t.Errorf("%s: no documented answer field", o.ID)
		}
	}
	if get := operation(t, rep, "getModel"); get.Calls != 1 || !reflect.DeepEqual(get.SeenCodes(), []string{"404"}) {
		t.Errorf("getModel: calls %d, seen %v", get.Calls, get.SeenCodes())
	}
	inf := operation(t, rep, "runInference")
	if b := body(t, inf, "200", true); b.Fields == 0 || !slices.Contains(b.NeverObserved, "content") {
		t.Errorf("runInference has no event chunk fields from x-event-schema: %+v", b)
	}
}
