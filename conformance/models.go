package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/judge"
	"contractkit/spec"
)

// modelDefaultFields are the Model fields a creation without them leaves
// alone; a field present in a new model must hold its default (absent
// means the default too).
var modelDefaultFields = []string{
	"category", "file_path", "has_image", "personaId",
	"use_case_id", "use_case_name", "use_case_label", "use_case_description", "use_case_custom",
	"onboarding_goal", "onboarding_role",
	"token_speed", "response_time", "success_rate",
	"team_ids", "team_names", "is_shared", "shared_user_count", "pending_dataset_access_requests",
}

// fieldDefault is a field and the default a new model must hold.
type fieldDefault struct {
	field string
	value any
}

// modelDefaults are the seed's defaults (§2.1) of modelDefaultFields, as
// the contract's Model schema states them, numbers as json.Number (as
// ParseJSON reads a body).
func modelDefaults() []fieldDefault {
	model := spec.Strict().Kin.Components.Schemas["Model"].Value
	out := make([]fieldDefault, 0, len(modelDefaultFields))
	for _, f := range modelDefaultFields {
		p := model.Properties[f]
		if p == nil {
			panic("conformance: the Model schema has no field " + f)
		}
		b, err := json.Marshal(p.Value.Default)
		if err != nil {
			panic(fmt.Sprintf("conformance: the default of Model.%s: %v", f, err))
		}
		v, _ := judge.ParseJSON(b)
		out = append(out, fieldDefault{f, v.Value()})
	}
	return out
}

// sameJSON compares a parsed value with a default; numbers by value.
func sameJSON(got, want any) bool {
	if gn, ok := got.(json.Number); ok {
		wn, ok := want.(json.Number)
		if !ok {
			return false
		}
		g, err1 := gn.Float64()
		w, err2 := wn.Float64()
		return err1 == nil && err2 == nil && g == w
	}
	return got == want
}

// lifeDatasetRequest is the create request of the dataset the Models
// area's own model is trained on.
func lifeDatasetRequest(name string) client.Request {
	return client.Request{Method: http.MethodPost, Path: pathDatasets, Form: datasetForm(name, "product-catalog.csv", "release-notes.txt")}
}

// lifeModelRequest is the create request of the Models area's own model.
func lifeModelRequest(name, dataset string) client.Request {
	return client.Request{Method: http.MethodPost, Path: pathModels, JSON: map[string]any{"model_name": name, "dataset_id": dataset}}
}

// modelSpecs registers the Models area: a model's life from creation to
// deletion (an Ordered flow: each step needs the one before) and the
// creation input rules (seed §4.1, §2.1, §3.2).
func (e *env) modelSpecs() {
	defaults := modelDefaults()
	// SpecPriority(-2): its training, started by BeforeSuite, is judged
	// after every other written check, the evaluation run's wait
	// included (early.go).
	e.describe("Models", Label("models"), SpecPriority(-2), func() {
		e.describe("a model's life", Ordered, ContinueOnFailure, costs(spec.CostModels, spec.CostDatasets, spec.CostConversations, spec.CostEvaluations), Label(labelTrains), func() {
			var (
				name             string
				created, dataset created
				others           related
			)
			BeforeAll(func(ctx SpecContext) {
				if early := e.early.lifeModel; early.x != nil {
					// BeforeSuite started it (early.go): judged here.
					created, name, dataset = early, e.early.lifeName, e.early.lifeData
					return
				}
				dataset = e.early.lifeData
				if dataset.id == "" {
					dataset = e.create(ctx, lifeDatasetRequest(e.name("model-data")), pathDatasets)
				}
				e.need(dataset, "dataset") // its answer is the Datasets area's to judge
				name = e.name("model")
				created = e.create(ctx, lifeModelRequest(name, dataset.id), pathModels)
			})

			e.check("MUST create a model from the declared body {model_name, dataset_id (a string)} and answer {status: success, data: Model} with its id and name",
				declared("4.1.3", "2.1", "1.1"), func(ctx SpecContext) {
					data := e.expectSuccess(created.x)
					e.want(created.x, created.id != "", "/data/id", "an id", "none")
					e.want(created.x, data.Get("name").Str() == name, "/data/name", strconv.Quote(name), data.Get("name"))
				})

			e.check("MUST give a new model the seed's defaults for the fields the creation did not set",
				declared("2.1"), func(ctx SpecContext) {
					e.need(created, "model")
					var p judge.Findings
					for _, d := range defaults {
						v := created.data.Get(d.field)
						if _, present := created.data.Path("$." + d.field); !present {
							continue
						}
						if !sameJSON(v.Value(), d.value) {
							p = append(p, finding(judge.Pointer("data", d.field), "the default "+judge.Of(d.value).String(), v))
						}
					}
					e.expect(created.x, "a new model's fields differ from their defaults", p)
				})

			e.check("MUST return the model by id with {status: success, data: Model}",
				declared("4.1.2", "2.1", "1.1"), func(ctx SpecContext) {
					e.need(created, "model")
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathModels, created.id)})
					data := e.expectSuccess(x)
					e.want(x, data.Get("id").ID() == created.id, "/data/id", created.id, data.Get("id"))
					e.want(x, data.Get("name").Str() == name, "/data/name", strconv.Quote(name), data.Get("name"))
				})

			e.check("SHOULD become ready within --timeout: status ready, graph_status ready at 100, fine_tuning_status true, metrics, dataset_info and trained_at set",
				decidedBy("D-12", "3.2", "2.2", "2.3"), func(ctx SpecContext) {
					e.need(created, "model")
					m := e.waitModelReady(ctx, created.id)
					var p judge.Findings
					want := func(ok bool, field, expected string) {
						if !ok {
							p = append(p, finding(judge.Pointer("data", field), expected, m.Get(field)))
						}
					}
					progress, _ := m.Get("graph_build_progress").Int()
					fine, _ := m.Get("fine_tuning_status").Bool()
					want(m.Get("status").Str() == "ready", "status", `"ready"`)
					want(m.Get("graph_status").Str() == "ready", "graph_status", `"ready"`)
					want(progress == 100, "graph_build_progress", "100")
					want(fine, "fine_tuning_status", "true")
					want(m.Get("metrics").Exists(), "metrics", "the training metrics")
					want(m.Get("dataset_info").Exists(), "dataset_info", "the dataset's description")
					want(m.Get("trained_at").Exists(), "trained_at", "the training time")
					e.expect(nil, "model "+created.id+" is ready but differs from D-12", p)
				})

			e.check("MUST list the model among the account's models (as data: [Model], D-01)",
				declared("4.1.1", "D-01"), func(ctx SpecContext) {
					e.need(created, "model")
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: pathModels})
					data := e.expectSuccess(x)
					ids := judge.IDs(judge.Records(data))
					e.want(x, slices.Contains(ids, created.id), "/data", "model "+created.id+" listed", fmt.Sprintf("ids %v", ids))
					e.decided("D-01", func() {
						e.want(x, data.IsArray(), "/data", "an array of Model", "a "+data.Kind())
					})
				})

			// Relations before the deletes (relations.go): the dataset the
			// model was built from is deleted, then the model with a
			// conversation and an evaluation of it.
			e.datasetUnderModelSpecs(&created, &dataset)
			e.relatedCleanup(&others)
			e.deletionSpecs(deletion{
				of: "model_id", res: &created,
				before: func(ctx SpecContext) { e.relate(ctx, created.id, &others) },
				gone: append([]goneCheck{
					{"MUST NOT return a deleted model: the error envelope (404)",
						declared("4.1.4", "4.1.2", "1.2", "D-17"), e.notReturned("model_id")},
					{"MUST NOT list a deleted model",
						declared("4.1.4", "4.1.1"), e.notListed("model_id", nil)},
				}, e.relatedGone(&others)...),
			})
		})

		e.describe("creation input", costs(spec.CostModels, spec.CostDatasets), func() {
			invalid := []struct {
				behaviour string
				body      func(ds string) map[string]any
			}{
				{"MUST refuse a creation without model_name with 400 or 422 and the error envelope",
					func(ds string) map[string]any { return map[string]any{"dataset_id": ds} }},
				{"MUST refuse a creation without dataset_id with 400 or 422 and the error envelope",
					func(string) map[string]any { return map[string]any{"model_name": e.name("model")} }},
				{"MUST refuse a creation whose model_name is not a string with 400 or 422 and the error envelope",
					func(ds string) map[string]any { return map[string]any{"model_name": 42, "dataset_id": ds} }},
				{"MUST refuse a creation whose base_model_id is not an integer with 400 or 422 and the error envelope",
					func(ds string) map[string]any {
						return map[string]any{"model_name": e.name("model"), "dataset_id": ds, "base_model_id": "three"}
					}},
			}
			for _, c := range invalid {
				e.check(c.behaviour, declared("4.1.3", "7.2", "1.2", "D-17"), func(ctx SpecContext) {
					ds := e.sharedDataset(ctx)
					x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathModels, JSON: c.body(ds)}, pathModels).x
					e.expectInvalid(x)
				})
			}

			e.check("SHOULD accept the seed's alternative spelling {name, dataset}",
				decidedBy("D-21", "4.1.3"), func(ctx SpecContext) {
					name := e.name("model")
					c := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathModels,
						JSON: map[string]any{"name": name, "dataset": e.sharedDataset(ctx)}}, pathModels)
					data := e.expectSuccess(c.x)
					e.want(c.x, data.Get("name").Str() == name, "/data/name", strconv.Quote(name), data.Get("name"))
				})

			e.check("SHOULD accept dataset_id as an integer",
				decidedBy("D-21", "4.1.3"), func(ctx SpecContext) {
					c := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathModels,
						JSON: map[string]any{"model_name": e.name("model"), "dataset_id": jsonInt(e.sharedDataset(ctx))}}, pathModels)
					e.expectSuccess(c.x)
				})
		})
	})
}
