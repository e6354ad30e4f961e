package conformance

import (
	"net/http"
	"slices"

	"contractkit/conformance/client"
	"contractkit/conformance/exchange"
	"contractkit/conformance/judge"

	. "github.com/onsi/ginkgo/v2"
)

// The end of a resource's life, the same in every area's Ordered flow: the
// delete check, then the checks that the resource is gone. Each area
// describes its own (deletion) and calls deletionSpecs where its flow
// deletes.

// deletion is one area's end of a resource's life.
type deletion struct {
	// what names the resource in skip reasons and messages ("model").
	what string
	// res is the flow's resource, made by its BeforeAll.
	res *created
	// collection is the path the resource's id is appended to.
	collection string

	// behaviour and class are the delete check's.
	behaviour string
	class     Class
	// status200: the seed states HTTP 200 for this delete.
	status200 bool
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
	deleted := false
	e.check(d.behaviour, d.class, func(ctx SpecContext) {
		e.need(*d.res, d.what)
		if d.notYet != nil {
			if why := d.notYet(); why != "" {
				Skip(why + ", so it cannot be deleted")
			}
		}
		x := e.do(ctx, client.Request{Method: http.MethodDelete, Path: at(d.collection, d.res.id)})
		deleted = x.Status/100 == 2
		data := e.expectSuccess(x)
		if d.status200 {
			e.expectFindings(x, "the delete did not answer HTTP 200", judge.Status(x, http.StatusOK))
		}
		if d.more != nil {
			d.more(x, data)
		}
	}, Offset(2))
	for _, g := range d.gone {
		e.check(g.behaviour, g.class, func(ctx SpecContext) {
			e.need(*d.res, d.what)
			switch {
			case d.notYet != nil:
				if why := d.notYet(); why != "" {
					Skip(why + ", so it was not deleted")
				}
			case !deleted:
				Skip("the " + d.what + " was not deleted (see the delete check)")
			}
			g.judge(ctx, d.res.id)
		}, Offset(2))
	}
}

// notReturned judges that the resource at collection/id+rest is not found
// (404, D-17).
func (e *env) notReturned(collection string, rest ...string) func(SpecContext, string) {
	return func(ctx SpecContext, id string) {
		GinkgoHelper()
		e.expectNotFound(e.do(ctx, client.Request{Method: http.MethodGet, Path: at(collection, id, rest...)}))
	}
}

// notListed judges that the list answering list() does not hold the id of
// the deleted what; items finds the list's records.
func (e *env) notListed(what string, list func() client.Request, items func(judge.J) []judge.J) func(SpecContext, string) {
	return func(ctx SpecContext, id string) {
		GinkgoHelper()
		x := e.do(ctx, list())
		ids := judge.IDs(items(e.expectSuccess(x)))
		e.expectThat(x, !slices.Contains(ids, id), "deleted %s %s is still listed", what, id)
	}
}
