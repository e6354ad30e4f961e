package conformance

import (
	"net/http"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/judge"
	"contractkit/spec"
)

// The isolation checks read seed §4.1's "the caller's account" (and §5's
// key, obtained by a user) as scoping every resource to the account whose
// key created it: a second account can neither see nor touch it. That a
// foreign id is answered 404, like an unknown one, is D-17.

// isolationCheck is the isolation check of one operation: its behaviour
// sentence. What it sends is the operation's sample request naming the
// first account's resources, and how the answer is judged follows from the
// operation's place in the contract (isolationJudgeOf).
type isolationCheck struct{ op, behaviour string }

// isolationChecks are keyed by operationId, in the order they run (the
// area is Ordered). An operation of the contract with no check here is in
// isolationExempt, with the reason (the operation index,
// internal/opindex, requires one or the other).
var isolationChecks = []isolationCheck{
	{"getModel", "MUST NOT let another account read a model"},
	{"listModels", "MUST NOT show a model in another account's list"},
	{"deleteModel", "MUST NOT let another account delete a model"},
	{"runInference", "MUST NOT let another account query a model"},
	{"createModel", "MUST NOT let another account build a model from a dataset"},

	{"getDataset", "MUST NOT let another account read a dataset"},
	{"listDatasets", "MUST NOT show a dataset in another account's list"},
	{"uploadDatasetFiles", "MUST NOT let another account add files to a dataset"},
	{"deleteDataset", "MUST NOT let another account delete a dataset"},

	{"listConversations", "MUST NOT show a model's conversations to another account"},
	{"createConversation", "MUST NOT let another account open a conversation on a model"},
	{"renameConversation", "MUST NOT let another account rename a conversation"},
	{"listMessages", "MUST NOT let another account read a conversation's messages"},
	{"deleteConversation", "MUST NOT let another account delete a conversation"},

	{"getEvaluation", "MUST NOT let another account read an evaluation"},
	{"listEvaluations", "MUST NOT show an evaluation in another account's list"},
	{"updateEvaluation", "MUST NOT let another account update an evaluation"},
	{"startEvaluation", "MUST NOT let another account start an evaluation"},
	{"runRagasEvaluation", "MUST NOT let another account run RAGAS on an evaluation"},
	{"deleteEvaluation", "MUST NOT let another account delete an evaluation"},
	{"createEvaluation", "MUST NOT let another account evaluate a model"},
}

// isolationExempt are the operations with no isolation check, each with
// the reason.
var isolationExempt = map[string]string{
	"createDataset": "names no resource: a dataset is made from the caller's own files and URLs, so there is nothing of another account to reach",
	"checkEvaluationName": "names no resource; that another account's evaluation names do not count as taken is D-19's " +
		"(availability within the account), a decided rule no check tests yet",
}

// isolationJudge is how the second account's answer is judged.
type isolationJudge int

const (
	// isoRefused: a foreign id is refused (404, D-17).
	isoRefused isolationJudge = iota
	// isoRefusedAndKept: refused, and the first account still reads the
	// resource afterwards (a delete).
	isoRefusedAndKept
	// isoUnlisted: refused, or a list without the first account's resource.
	isoUnlisted
	// isoCreateRefused: a creation naming a foreign resource is refused (and
	// what it made removed if it was not).
	isoCreateRefused
	// isoStreamRefused: an answer that may be a stream, read as one, refused.
	isoStreamRefused
)

// isolationJudgeOf is how op's isolation check judges, from op's place in
// c, and op's resource (nil for none).
func isolationJudgeOf(c *spec.Contract, op spec.Operation) (isolationJudge, *spec.Resource) {
	role, r := c.Place(op)
	switch {
	case role == spec.RoleList:
		return isoUnlisted, r
	case role == spec.RoleDelete:
		return isoRefusedAndKept, r
	case role == spec.RoleCreate:
		return isoCreateRefused, r
	case streams(c, op):
		return isoStreamRefused, r
	}
	return isoRefused, r
}

// isolationNeeds are the resources op's check needs made, by id
// parameter: those its request must name and, for a list, the listed one.
func isolationNeeds(c *spec.Contract, op spec.Operation) []string {
	var out []string
	for _, ref := range c.References(op) {
		if ref.Required && !slices.Contains(out, ref.Resource.Param) {
			out = append(out, ref.Resource.Param)
		}
	}
	if j, r := isolationJudgeOf(c, op); j == isoUnlisted && !slices.Contains(out, r.Param) {
		out = append(out, r.Param)
	}
	return out
}

// keptRead is how the first account reads r back: the GET of the item,
// else the first GET under it (a conversation is read by its messages).
func keptRead(c *spec.Contract, r *spec.Resource) (spec.Operation, bool) {
	var under []spec.Operation
	for _, op := range c.Operations {
		if !strings.EqualFold(op.Method, "GET") {
			continue
		}
		switch {
		case op.Path == r.Item:
			return op, true
		case strings.HasPrefix(op.Path, r.Item+"/"):
			under = append(under, op)
		}
	}
	if len(under) == 0 {
		return spec.Operation{}, false
	}
	return under[0], true
}

// streams reports whether op's success may be an event stream.
func streams(c *spec.Contract, op spec.Operation) bool {
	kin, err := c.KinOperation(op.ID)
	if err != nil {
		return false
	}
	ok := kin.Responses.Status(200)
	return ok != nil && ok.Value != nil && ok.Value.Content.Get("text/event-stream") != nil
}

// isolationSpecs registers the Isolation area. It is Ordered only to share
// the first account's resources, made once in BeforeAll; the checks do not
// depend on each other (ContinueOnFailure).
func (e *env) isolationSpecs() {
	e.describe("Isolation", Label("isolation"), Ordered, ContinueOnFailure, costs(spec.CostKinds()...), needsModel, func() {
		// made holds the first account's resources by id parameter.
		var made map[string]created
		BeforeAll(func(ctx SpecContext) {
			if e.cfg.APIKey2 == "" {
				return // every check skips, with the reason
			}
			made = e.oneOfEach(ctx)
		})

		BeforeEach(func() {
			if e.cfg.APIKey2 == "" {
				Skip("the isolation checks need a second account: run with --api-key-2")
			}
		})

		for _, row := range isolationChecks {
			op, ok := spec.Strict().Operation(row.op)
			if !ok {
				panic("conformance: an isolation check names no operation " + row.op)
			}
			e.check(row.behaviour, declared("4.1.1", op.Clause, "D-17"), func(ctx SpecContext) {
				ids := map[string]string{}
				for _, param := range isolationNeeds(spec.Strict(), op) {
					what := strings.TrimSuffix(param, "_id")
					c, ok := made[param]
					if !ok {
						Skip("the " + what + " this check needs could not be made: its create operation names a resource that was not made")
					}
					ids[param] = e.ownedInstead(op, param, e.need(c, what))
				}
				e.judgeIsolation(ctx, op, e.sampleRequest(op, ids), ids)
			})
		}
	})
}

// oneOfEach makes one resource of every kind of the contract in the first
// account, by id parameter: the shared dataset and ready model (made once
// per run), and one of each other kind by its create operation's sample
// request, naming those made before it. Ids are read tolerantly: the
// create answers are judged by each resource's area; a check whose
// resource has no id skips (need). A kind whose create names a kind that
// was not made is left out.
func (e *env) oneOfEach(ctx SpecContext) map[string]created {
	GinkgoHelper()
	made := map[string]created{
		"model_id":   {id: e.readyModel(ctx)},
		"dataset_id": {id: e.sharedDataset(ctx)},
	}
	for progress := true; progress; {
		progress = false
		for _, r := range spec.Strict().Resources() {
			if _, done := made[r.Param]; done {
				continue
			}
			create, ok := createOf(spec.Strict(), r)
			if !ok {
				continue
			}
			ids, ready := map[string]string{}, true
			for _, ref := range spec.Strict().References(create) {
				if ref.Required {
					ids[ref.Name] = made[ref.Name].id
					ready = ready && ids[ref.Name] != ""
				}
			}
			if ready {
				made[r.Param] = e.create(ctx, e.sampleRequest(create, ids), r.Collection)
				progress = true
			}
		}
	}
	return made
}

// ownedInstead is the id a write of op names for param: id, or, when id
// is the model of --reuse-model, which the run never writes to (refusals
// included), the model the Models area trains, which BeforeSuite started
// (early.go): the second account's write is refused either way, and a
// server that wrongly accepts it breaks only what the run made.
func (e *env) ownedInstead(op spec.Operation, param, id string) string {
	own := e.early.lifeModel.id
	if strings.EqualFold(op.Method, http.MethodGet) || param != "model_id" || own == "" || !e.spend.ledger.Reused(spec.CostModels, id) {
		return id
	}
	return own
}

// createOf is the operation of c that creates r.
func createOf(c *spec.Contract, r *spec.Resource) (spec.Operation, bool) {
	for _, op := range c.Operations {
		if role, of := c.Place(op); role == spec.RoleCreate && of == r {
			return op, true
		}
	}
	return spec.Operation{}, false
}

// judgeIsolation sends r, op's request naming the first account's
// resources ids, as the second account, and judges the answer.
func (e *env) judgeIsolation(ctx SpecContext, op spec.Operation, r client.Request, ids map[string]string) {
	GinkgoHelper()
	r.Auth = client.AuthKey2
	how, res := isolationJudgeOf(spec.Strict(), op)
	// Another account's resource is refused: the request spends no
	// budget, and what a server that wrongly accepts it makes is removed
	// (the ledger's refusal, D-40).
	r.Refusal = how != isoUnlisted
	switch how {
	case isoRefused:
		e.expectNotFound(e.do(ctx, r))
	case isoRefusedAndKept:
		e.expectNotFound(e.do(ctx, r))
		read, ok := keptRead(spec.Strict(), res)
		if !ok {
			Fail("conformance: nothing reads a " + res.Word() + " back")
		}
		e.expectSuccess(e.do(ctx, e.sampleRequest(read, ids)))
	case isoUnlisted:
		x := e.do(ctx, r)
		if x.Status/100 != 2 {
			e.expectNotFound(x)
			return
		}
		id := ids[res.Param]
		listed := judge.IDs(judge.Records(e.expectSuccess(x)))
		e.want(x, !slices.Contains(listed, id), "/data", "the second account's list without "+id, "listed")
	case isoCreateRefused:
		e.expectNotFound(e.create(ctx, r, res.Collection).x)
	case isoStreamRefused:
		x, _ := e.infer(ctx, r)
		e.expectNotFound(x)
	}
}
