package conformance

import (
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/judge"
	"contractkit/spec"
)

// smokeSpecs registers the Smoke area (--profile smoke, D-40): every
// operation of the contract reached once, nothing written, nothing waited
// for. A read is sent with the key, naming the first record of the
// account's list of its resource (an unknown id when the list is empty, to
// be refused with 404), and must succeed. A write is sent without a key
// and without a body, its path ids unknown ones: it names no account and
// carries nothing to write, so even a server that ignored §5.1 would have
// nothing to act on, and it must be refused with 401 (§5.3; the key is
// judged first, D-48). The --budget all=0 run sends refusals with the key
// (invalid bodies, unknown ids, the key under another scheme): a server
// that wrongly accepted one would change the account, which a smoke of a
// live deployment must never risk. The gate withholds any write with a key
// in a smoke run (spending.keylessWrites), so the promise holds whatever a
// check asks.
func (e *env) smokeSpecs() {
	// Ordered: a read needs the ids of the lists before it (Ginkgo would
	// order checks registered on one line by their text).
	e.describe("Smoke", Label(smokeLabel), Ordered, ContinueOnFailure, func() {
		// ids are the first record of each list read so far, by the
		// resource's id parameter ("model_id").
		ids := map[string]string{}
		for _, op := range smokeOrder(spec.Strict()) {
			if op.Method == http.MethodGet {
				e.check("MUST answer a read with the account's key: "+opTitle(op),
					declared("5.1", "1.1", op.Clause, "D-17"), func(ctx SpecContext) {
						e.smokeRead(ctx, op, ids)
					})
				continue
			}
			e.check("MUST refuse a write without a key and without a body with the error envelope (401): "+opTitle(op),
				declared("5.1", "5.3", "1.2", "7.1", op.Clause), func(ctx SpecContext) {
					r := e.sampleRequest(op, nil)
					r.Auth = client.AuthNone
					r.JSON, r.Body, r.ContentType, r.Form = nil, nil, "", nil
					e.expectError(e.do(ctx, r), refusal{statuses: []int{http.StatusUnauthorized}})
				})
		}
		e.check("MUST answer every operation of the contract, each reached once by the smoke, none unanswered",
			declared("4"), func(ctx SpecContext) {
				var missed []string
				for _, op := range e.client.Coverage().Operations {
					if op.Calls == 0 {
						missed = append(missed, fmt.Sprintf("%s %s (%s)", op.Method, op.Path, op.ID))
					}
				}
				if len(missed) > 0 {
					Fail(fmt.Sprintf("%d operation(s) not answered in this run:\n  - %s", len(missed), strings.Join(missed, "\n  - ")))
				}
			})
	})
}

// smokeRead reads op with the ids of the lists read before it: a success
// when every id it names is the account's, a refusal (404, D-17) when one
// is unknown (an empty list). A list's first record gives the ids of the
// reads after it.
func (e *env) smokeRead(ctx SpecContext, op spec.Operation, ids map[string]string) {
	GinkgoHelper()
	known := true
	for _, ref := range spec.Strict().References(op) {
		if ref.Required && ids[ref.Resource.Param] == "" {
			known = false
		}
	}
	x := e.do(ctx, e.sampleRequest(op, ids))
	if !known {
		e.expectNotFound(x)
		return
	}
	data := e.expectSuccess(x)
	if role, res := spec.Strict().Place(op); role == spec.RoleList {
		if records := judge.Records(data); len(records) > 0 {
			ids[res.Param] = records[0].Get("id").ID()
		}
	}
}

// smokeOrder is the order in which a smoke run reaches c's operations:
// each read once the lists that give its required ids have been read (the
// model list before a model's conversations, those before their
// messages), then the writes, each in c's order.
func smokeOrder(c *spec.Contract) []spec.Operation {
	var reads, writes []spec.Operation
	for _, op := range c.Operations {
		if op.Method == http.MethodGet {
			reads = append(reads, op)
		} else {
			writes = append(writes, op)
		}
	}
	listed := map[string]bool{}
	ready := func(op spec.Operation) bool {
		for _, ref := range c.References(op) {
			if _, hasList := c.OperationAt(spec.RoleList, ref.Resource.Param); ref.Required && hasList && !listed[ref.Resource.Param] {
				return false
			}
		}
		return true
	}
	var out []spec.Operation
	for len(reads) > 0 {
		var rest []spec.Operation
		for _, op := range reads {
			if !ready(op) {
				rest = append(rest, op)
				continue
			}
			out = append(out, op)
			if role, res := c.Place(op); role == spec.RoleList {
				listed[res.Param] = true
			}
		}
		if len(rest) == len(reads) {
			out = append(out, rest...) // ids no list gives: read with unknown ones
			break
		}
		reads = rest
	}
	return append(out, writes...)
}
