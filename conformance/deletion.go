package conformance

import (
	"net/http"
	"net/url"
	"slices"

	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"

	. "github.com/onsi/ginkgo/v2"
)

// The end of a resource's life, the same in every area's Ordered flow: the
// delete check, then the checks that the resource is gone. Each DELETE
// operation of the contract has its delete check in deleteChecks, keyed by
// operationId; the area whose flow makes the resource calls deletionSpecs
// where its flow deletes, with the checks that it is gone, each naming the
// operation that must no longer show it.

// deleteCheck is the delete check of one DELETE operation.
type deleteCheck struct {
	behaviour string
	class     Class
	// status200: the seed states HTTP 200 for this delete.
	status200 bool
}

// deleteChecks are keyed by the DELETE operation's operationId. A DELETE
// of the contract with no check here is named by the operation index
// (internal/opindex, DeletionTable); an operation that deletes nothing
// needs none.
var deleteChecks = map[string]deleteCheck{
	"deleteModel":        {"MUST delete the model with HTTP 200 and a success envelope", declared("4.1.4", "1.1"), true},
	"deleteDataset":      {"MUST delete the dataset with a success envelope", declared("4.3.5", "1.1"), false},
	"deleteConversation": {"MUST delete the conversation with HTTP 200 and a success envelope", declared("4.2.4", "1.1"), true},
	"deleteEvaluation":   {"MUST delete an ended evaluation with HTTP 200 and a message", declared("4.5.5", "1.1", "D-02"), true},
}

// deletion is one area's end of a resource's life.
type deletion struct {
	// op is the DELETE operation (deleteChecks); the resource it deletes
	// names it in skip reasons and messages.
	op string
	// res is the flow's resource, made by its BeforeAll.
	res *created

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
	dc, ok := deleteChecks[d.op]
	op, isOp := spec.Strict().Operation(d.op)
	_, r := spec.Strict().Place(op)
	if !ok || !isOp || r == nil {
		panic("conformance: deletionSpecs: " + d.op + " is no DELETE of a resource with a check in deleteChecks")
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
		req := e.sampleRequest(op, map[string]string{r.Param: d.res.id})
		if e.cfg.Spend.active() && op.ID == "deleteDataset" {
			// D-40: a run that counts its spending leaves no dataset
			// soft-deleted (the contract has no way to erase one later).
			req.Query = url.Values{"permanent": {"true"}}
		}
		x := e.do(ctx, req)
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

// notReturned judges that operation id (a read that names the deleted
// resource in its path) does not find it (404, D-17).
func (e *env) notReturned(id string) func(SpecContext, string) {
	op, param := pathRead(id)
	return func(ctx SpecContext, deleted string) {
		GinkgoHelper()
		e.expectNotFound(e.do(ctx, e.sampleRequest(op, map[string]string{param: deleted})))
	}
}

// pathRead is operation id and the id parameter of its path.
func pathRead(id string) (spec.Operation, string) {
	op, ok := spec.Strict().Operation(id)
	if refs := spec.Strict().References(op); ok && len(refs) > 0 && refs[0].In == spec.InPath {
		return op, refs[0].Name
	}
	panic("conformance: " + id + " is no read of a resource by its path")
}

// notListed judges that the list operation id, naming the resources
// scope() gives (nil for none), does not hold the deleted resource.
func (e *env) notListed(id string, scope func() map[string]string) func(SpecContext, string) {
	op, ok := spec.Strict().Operation(id)
	role, r := spec.Strict().Place(op)
	if !ok || role != spec.RoleList {
		panic("conformance: " + id + " is no list of a resource")
	}
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
