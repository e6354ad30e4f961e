package conformance

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"

	. "github.com/onsi/ginkgo/v2"
)

// The end of a resource's life, the same in every area's Ordered flow: the
// delete check, then the checks that the resource is gone. Each resource
// the contract deletes (a DELETE on its item) has its delete check in
// deleteChecks, keyed by its id parameter; the area whose flow makes the
// resource calls deletionSpecs where its flow deletes, with the checks that
// it is gone, each naming the operation that must no longer show it.

// deleteCheck is the delete check of one resource's DELETE.
type deleteCheck struct {
	behaviour string
	class     Class
	// status200: the seed states HTTP 200 for this delete.
	status200 bool
}

// deleteChecks are keyed by the id parameter of the resource deleted: the
// check is of the DELETE on its item (spec.RoleDelete), whatever its
// operationId. A DELETE of the contract with no check here is named by the
// operation index (internal/opindex, DeletionTable); an operation that
// deletes nothing needs none.
var deleteChecks = map[string]deleteCheck{
	"model_id":        {"MUST delete the model, which has a conversation and an evaluation, with HTTP 200 and a success envelope", declared("4.1.4", "1.1"), true},
	"dataset_id":      {"MUST delete the dataset with a success envelope", declared("4.3.5", "1.1"), false},
	"conversation_id": {"MUST delete the conversation with HTTP 200 and a success envelope", declared("4.2.4", "1.1"), true},
	"evaluation_id":   {"MUST delete an ended evaluation with HTTP 200 and a message", declared("4.5.5", "1.1", "D-02"), true},
}

// deletion is one area's end of a resource's life.
type deletion struct {
	// of is the id parameter of the resource deleted ("model_id"): its
	// DELETE is the operation at that place, its check deleteChecks[of].
	of string
	// res is the flow's resource, made by its BeforeAll.
	res *created

	// before, when set, runs right before the delete (what the resource
	// is to hold when deleted: a model's conversation and evaluation).
	before func(ctx SpecContext)
	// more, when set, judges the delete's answer further.
	more func(x *exchange.Exchange, data judge.J)
	// notYet, when set, says why the resource cannot be deleted yet ("" when
	// it can): the delete check is skipped "…, so it cannot be deleted" and
	// the gone checks "…, so it was not deleted", and only then. Without it
	// the gone checks are skipped when the delete did not succeed.
	notYet func() string

	// gone are the checks that the deleted resource is gone, in order.
	gone []goneCheck
}

// goneCheck is one check that a deleted resource is gone; judge gets its id.
type goneCheck struct {
	behaviour string
	class     Class
	judge     func(ctx SpecContext, id string)
}

// deletionSpecs registers d's checks in the calling flow. Their location
// is the area file's call.
func (e *env) deletionSpecs(d deletion) {
	_, isOp := spec.Strict().OperationAt(spec.RoleDelete, d.of)
	dc, ok := deleteChecks[d.of]
	r := spec.Strict().ResourceNamed(d.of)
	if !ok || !isOp || r == nil {
		panic("conformance: deletionSpecs: no DELETE of " + d.of + " with a check in deleteChecks")
	}
	what := r.Word()
	deleted := false
	e.check(dc.behaviour, dc.class, func(ctx SpecContext) {
		e.need(*d.res, what)
		if d.notYet != nil {
			if why := d.notYet(); why != "" {
				Skip(why + ", so it cannot be deleted")
			}
		}
		if d.before != nil {
			d.before(ctx)
		}
		x := e.do(ctx, e.deleteRequest(d.of, d.res.id))
		deleted = x.Status/100 == 2
		data := e.expectSuccess(x)
		if dc.status200 {
			e.expect(x, "the delete did not answer HTTP 200", judge.Status(x, http.StatusOK))
		}
		if d.more != nil {
			d.more(x, data)
		}
	}, Offset(2))
	for _, g := range d.gone {
		e.check(g.behaviour, g.class, func(ctx SpecContext) {
			e.need(*d.res, what)
			switch {
			case d.notYet != nil:
				if why := d.notYet(); why != "" {
					Skip(why + ", so it was not deleted")
				}
			case !deleted:
				Skip("the " + what + " was not deleted (see the delete check)")
			}
			g.judge(ctx, d.res.id)
		}, Offset(2))
	}
}

// permanently is the query that makes op's delete permanent: the `unless`
// of its x-effect soft-delete (D-07); nil when its delete is not soft.
func permanently(c *spec.Contract, op spec.Operation) url.Values {
	for _, eff := range c.Effects(op) {
		if q, ok := strings.CutPrefix(eff.Str("unless"), "query:"); eff.Rule == "soft-delete" && ok {
			return url.Values{q: {"true"}}
		}
	}
	return nil
}

// notReturned judges that the read of the resource of id parameter param
// (its GET, else the first GET under its item: keptRead), naming the
// deleted one, does not find it (404, D-17).
func (e *env) notReturned(param string) func(SpecContext, string) {
	r := spec.Strict().ResourceNamed(param)
	if r == nil {
		panic("conformance: no resource " + param)
	}
	op, ok := keptRead(spec.Strict(), r)
	if !ok {
		panic("conformance: nothing reads a " + r.Word())
	}
	return func(ctx SpecContext, deleted string) {
		GinkgoHelper()
		e.expectNotFound(e.do(ctx, e.sampleRequest(op, map[string]string{param: deleted})))
	}
}

// notListed judges that the list of the resource of id parameter param,
// naming the resources scope() gives (nil for none), does not hold the
// deleted one.
func (e *env) notListed(param string, scope func() map[string]string) func(SpecContext, string) {
	op, ok := spec.Strict().OperationAt(spec.RoleList, param)
	if !ok {
		panic("conformance: no list of " + param)
	}
	r := spec.Strict().ResourceNamed(param)
	return func(ctx SpecContext, deleted string) {
		GinkgoHelper()
		var ids map[string]string
		if scope != nil {
			ids = scope()
		}
		x := e.do(ctx, e.sampleRequest(op, ids))
		listed := judge.IDs(judge.Records(e.expectSuccess(x)))
		e.want(x, !slices.Contains(listed, deleted), "/data", "deleted "+r.Word()+" "+deleted+" not listed", "listed")
	}
}
