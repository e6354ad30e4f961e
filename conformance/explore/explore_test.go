package explore

import (
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"

	"contractkit/judge"
	"contractkit/spec"
)

func exploreCatalog(t *testing.T) *catalog {
	t.Helper()
	return newCatalog(spec.Strict(), spec.Declared())
}

func catalogOp(t *testing.T, c *catalog, id string) *exploreOp {
	t.Helper()
	for _, op := range c.ops {
		if op.ID == id {
			return op
		}
	}
	t.Fatalf("no operation %s in the catalog", id)
	return nil
}

// The catalog is read from the contract: its resources, the role of each
// operation, and the x- marks.
func TestCatalogReadsTheContract(t *testing.T) {
	c := exploreCatalog(t)
	var params []string
	for _, k := range c.kinds {
		params = append(params, k.param)
	}
	if got, want := strings.Join(params, " "), "evaluation_id conversation_id dataset_id model_id"; got != want {
		t.Errorf("resource kinds %q, want %q", got, want)
	}
	roles := map[string]opRole{
		"createModel": roleCreate, "listConversations": roleList, "getEvaluation": roleGet,
		"renameConversation": roleUpdate, "deleteDataset": roleDelete, "startEvaluation": roleChild,
		"listMessages": roleChild, "runInference": roleOther, "uploadDatasetFiles": roleOther, "checkEvaluationName": roleOther,
	}
	for id, want := range roles {
		if got := catalogOp(t, c, id).role; got != want {
			t.Errorf("%s: role %d, want %d", id, got, want)
		}
	}
	conv, ds, ev, model := c.byParam["conversation_id"], c.byParam["dataset_id"], c.byParam["evaluation_id"], c.byParam["model_id"]
	if conv.scope != "model_id" || ds.scope != "" {
		t.Errorf("scopes: conversations %q, datasets %q; want model_id and none", conv.scope, ds.scope)
	}
	if ds.gone != "D-07" || model.gone != "" || ev.gone != "" {
		t.Errorf("gone after delete: datasets %q, models %q, evaluations %q; want D-07 (soft delete is decided), declared, declared", ds.gone, model.gone, ev.gone)
	}
	if ev.states == nil || !ev.states.initial["pending"] || !ev.states.initialSeed || ev.states.decision != "D-12" {
		t.Errorf("evaluation states: %+v, want initial pending (the seed's) and moves of D-12", ev.states)
	}
	if model.states == nil || model.states.initialSeed {
		t.Errorf("model states: %+v, want a machine whose initial state is decided", model.states)
	}
	if p := catalogOp(t, c, "listEvaluations").paging; p["page"] != "page" || p["per_page"] != "size" {
		t.Errorf("listEvaluations paging %v", p)
	}
	if p := catalogOp(t, c, "listConversations").paging; p["limit"] != "size" || p["offset"] != "offset" {
		t.Errorf("listConversations paging %v", p)
	}
	x := &explorer{cat: c, judge: judge.New(spec.Strict(), spec.Declared())}
	for _, s := range []struct {
		op, field string
		want      storage
	}{
		{"createModel", "model_name", storage{field: "name"}},
		{"createModel", "persona_id", storage{field: "personaId"}},
		{"createModel", "description", storage{field: "description"}},
		{"createDataset", "urls", storage{}},
		{"createEvaluation", "type", storage{field: "type", decision: "D-11"}},
	} {
		if got := x.storageOf(catalogOp(t, c, s.op), s.field); got != s.want {
			t.Errorf("%s.%s stored as %+v, want %+v", s.op, s.field, got, s.want)
		}
	}
}

func TestTransitionsReach(t *testing.T) {
	ev := exploreCatalog(t).byParam["evaluation_id"].states
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"pending", "running", true}, {"pending", "completed", true}, {"running", "running", true},
		{"completed", "running", true}, {"completed", "pending", false}, {"failed", "pending", false},
	} {
		if got := ev.reachable(c.from, c.to); got != c.want {
			t.Errorf("reachable(%s, %s) = %t, want %t", c.from, c.to, got, c.want)
		}
	}
}

func TestSameValue(t *testing.T) {
	parse := func(s string) judge.J {
		j, err := judge.ParseJSON([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	for _, c := range []struct {
		got  string
		want any
		same bool
	}{
		{`"Příliš"`, "Příliš", true},
		{`"  trimmed "`, "trimmed", true},
		{`"café"`, "cafe\u0301", true}, // the same text, normalised
		{`"Prilis"`, "Příliš", false},
		{`12`, "12", true}, // an id sent as a string, read as a number
		{`"12"`, int64(12), true},
		{`13`, int64(12), false},
		{`0.5`, 0.5, true},
		{`true`, true, true},
		{`null`, "x", false},
		{`[1,"a"]`, []any{int64(1), "a"}, true},
	} {
		if got := sameValue(parse(c.got), c.want); got != c.same {
			t.Errorf("sameValue(%s, %#v) = %t, want %t", c.got, c.want, got, c.same)
		}
	}
}

// What the generator sends as valid is valid under both views of the
// contract, and what it breaks is refused by the declared view: the phase
// never calls a server wrong for refusing what is not valid, or for
// accepting what is.
func TestGeneratedBodiesKeepTheContract(t *testing.T) {
	c := exploreCatalog(t)
	x := &explorer{cat: c, judge: judge.New(spec.Strict(), spec.Declared())}
	for _, op := range c.ops {
		if op.media != "application/json" {
			continue
		}
		t.Run(op.ID, rapid.MakeCheck(func(rt *rapid.T) {
			g := gen{rt}
			body := g.object(op.body, "body", nil)
			x.distinguish(op.body, body)
			for _, view := range []*spec.Contract{spec.Strict(), spec.Declared()} {
				if errs := requestProblems(view, op, body); errs != "" {
					rt.Fatalf("a generated body %s is refused: %s", show(body), errs)
				}
			}
			if broken, what := x.breakBody(g, op, body); what != "" && !x.declaredInvalid(op, broken) {
				rt.Fatalf("a body that %s is valid: %s", what, show(broken))
			}
		}))
	}
}

func requestProblems(view *spec.Contract, op *exploreOp, body map[string]any) string {
	req, err := bodyRequest(op, body)
	if err != nil {
		return err.Error()
	}
	if ok, errs := view.Request(op.ID).Validate(req); !ok {
		return strings.Join(spec.Describe(errs), "; ")
	}
	return ""
}

// distinguish keeps a text within its length and pattern while making it
// differ from every text sent before.
func TestDistinguishKeepsTheBounds(t *testing.T) {
	c := exploreCatalog(t)
	op := catalogOp(t, c, "createEvaluation")
	x := &explorer{cat: c, judge: judge.New(spec.Strict(), spec.Declared())}
	seen := map[string]bool{}
	for _, name := range []string{"ž", "ok", strings.Repeat("ř", 255), "Dotazník školení"} {
		body := map[string]any{"name": name, "model_id": int64(1)}
		x.distinguish(op.body, body)
		got := body["name"].(string)
		if n := utf8.RuneCountInString(got); n < 1 || n > 255 || seen[got] {
			t.Errorf("%q became %q (%d characters, seen before %t)", name, got, n, seen[got])
		}
		if !patternOf(flatten(op.body.Properties["name"].Value).Pattern).MatchString(got) {
			t.Errorf("%q became %q, outside the name pattern", name, got)
		}
		seen[got] = true
	}
}
