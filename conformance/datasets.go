package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"

	. "github.com/onsi/ginkgo/v2"
)

// datasetSpecs registers the Datasets area: a dataset's life (an Ordered
// flow) and the creation and deletion rules (seed §4.3, §2.6, §2.7, §3.3).
func (e *env) datasetSpecs() {
	e.describe("Datasets", Label("datasets"), costs(spec.CostDatasets), func() {
		e.describe("a dataset's life", Ordered, ContinueOnFailure, func() {
			var (
				name    string
				created created
			)
			BeforeAll(func(ctx SpecContext) {
				name = e.name("data")
				created = e.create(ctx, client.Request{Method: http.MethodPost, Path: pathDatasets,
					Form: datasetForm(name, "employee-handbook.md", "product-catalog.csv")}, pathDatasets)
			})

			e.check("MUST create a dataset from a multipart form with dataset_name and files parts and answer {status: success, data: Dataset}",
				declared("4.3.3", "2.6", "1.1", "1.3"), func(ctx SpecContext) {
					data := e.expectSuccess(created.x)
					e.want(created.x, created.id != "", "/data/id", "an id", "none")
					e.want(created.x, data.Get("name").Str() == name, "/data/name", strconv.Quote(name), data.Get("name"))
					if n, ok := data.Get("file_count").Int(); ok {
						e.want(created.x, n == 2, "/data/file_count", "2 (two files uploaded)", n)
					}
				})

			e.check("MUST return the dataset by id",
				declared("4.3.2", "2.6"), func(ctx SpecContext) {
					e.need(created, "dataset")
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathDatasets, created.id)})
					data := e.expectSuccess(x)
					e.want(x, data.Get("id").ID() == created.id, "/data/id", created.id, data.Get("id"))
					e.want(x, data.Get("name").Str() == name, "/data/name", strconv.Quote(name), data.Get("name"))
				})

			e.check("MUST list the dataset",
				declared("4.3.1", "2.6"), func(ctx SpecContext) {
					e.need(created, "dataset")
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: pathDatasets})
					ids := judge.IDs(e.expectSuccess(x).Items())
					e.want(x, slices.Contains(ids, created.id), "/data", "dataset "+created.id+" listed", fmt.Sprintf("ids %v", ids))
				})

			e.check("MUST add files to the dataset (multipart dataset_id and files) and count them in the upload result",
				declared("4.3.4", "2.7", "1.3"), func(ctx SpecContext) {
					e.need(created, "dataset")
					files := []exchange.FormFile{fixtureFile("support-faq.jsonl"), fixtureFile("release-notes.txt")}
					x := e.do(ctx, client.Request{Method: http.MethodPost, Path: pathUpload, Form: &exchange.Form{
						Fields: []exchange.FormField{{Name: "dataset_id", Value: created.id}}, Files: files}})
					data := e.expectSuccess(x)
					var p judge.Findings
					if got := data.Get("dataset_id").ID(); got != created.id {
						p = append(p, finding("/data/dataset_id", created.id, data.Get("dataset_id")))
					}
					if n, _ := data.Get("files_uploaded").Int(); n != int64(len(files)) {
						p = append(p, finding("/data/files_uploaded", fmt.Sprintf("%d (every file sent is readable)", len(files)), data.Get("files_uploaded")))
					}
					if n, _ := data.Get("files_failed").Int(); n != 0 {
						p = append(p, finding("/data/files_failed", "0", data.Get("files_failed")))
					}
					if f := data.Get("failed_files"); f.Exists() && len(f.Items()) != 0 {
						p = append(p, finding("/data/failed_files", "none", f))
					}
					if ok, isBool := data.Get("success").Bool(); isBool && !ok {
						p = append(p, finding("/data/success", "true", "false"))
					}
					e.expect(x, "the upload result does not account for the files", p)
				})

			e.check("MUST account for every file part of an upload, as uploaded or as failed; files that cannot be read are failed (D-16)",
				declared("4.3.4", "2.7", "D-16"), func(ctx SpecContext) {
					e.need(created, "dataset")
					good := fixtureFile("pricing.json")
					x := e.do(ctx, client.Request{Method: http.MethodPost, Path: pathUpload, Form: &exchange.Form{
						Fields: []exchange.FormField{{Name: "dataset_id", Value: created.id}},
						Files:  []exchange.FormFile{good, fixtureFile("bad/empty.txt"), fixtureFile("bad/binary.bin")},
					}})
					data := e.expectSuccess(x)
					e.want(x, data.Get("dataset_id").ID() == created.id, "/data/dataset_id", created.id, data.Get("dataset_id"))
					up, _ := data.Get("files_uploaded").Int()
					down, _ := data.Get("files_failed").Int()
					e.want(x, up+down == 3, "/data/files_uploaded", "files_uploaded + files_failed = the 3 files sent",
						fmt.Sprintf("%s + %s = %d", data.Get("files_uploaded"), data.Get("files_failed"), up+down))
					e.decided("D-16", func() {
						var p judge.Findings
						uploaded, _ := data.Get("files_uploaded").Int()
						failed, _ := data.Get("files_failed").Int()
						size, _ := data.Get("total_size").Int()
						ok, _ := data.Get("success").Bool()
						var names []string
						for _, f := range data.Get("failed_files").Items() {
							names = append(names, f.Str())
						}
						if uploaded != 1 {
							p = append(p, finding("/data/files_uploaded", "1 (pricing.json)", data.Get("files_uploaded")))
						}
						if failed != 2 {
							p = append(p, finding("/data/files_failed", "2 (empty.txt, binary.bin)", data.Get("files_failed")))
						}
						if !slices.Contains(names, "empty.txt") || !slices.Contains(names, "binary.bin") {
							p = append(p, finding("/data/failed_files", "empty.txt and binary.bin", quoteList(names)))
						}
						if size != int64(len(good.Content)) {
							p = append(p, finding("/data/total_size", fmt.Sprintf("%d (the bytes of pricing.json)", len(good.Content)), data.Get("total_size")))
						}
						if !ok {
							p = append(p, finding("/data/success", "true (a file was added)", data.Get("success")))
						}
						e.expect(x, "the upload result's accounting differs", p)
					})
				})

			e.check("SHOULD count the added files in the dataset's file_count",
				decidedBy("D-16", "2.6", "4.3.4"), func(ctx SpecContext) {
					e.need(created, "dataset")
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathDatasets, created.id)})
					n, ok := e.expectSuccess(x).Get("file_count").Int()
					e.want(x, ok && n == 5, "/data/file_count", "5 (two created with, two and one added)", n)
				})

			e.deletionSpecs(deletion{
				of: "dataset_id", res: &created,
				gone: []goneCheck{
					{"SHOULD no longer return or list a soft-deleted dataset (404)",
						decidedBy("D-07", "3.3", "4.3.5"), func(ctx SpecContext, id string) {
							e.expectError(e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathDatasets, id)}),
								refusal{statuses: []int{http.StatusNotFound}})
							e.notListed("dataset_id", nil)(ctx, id)
						}},
				},
			})
		})

		e.describe("creation and deletion rules", func() {
			e.check("SHOULD delete a dataset permanently with ?permanent=true",
				decidedBy("D-07", "3.3", "4.3.5"), func(ctx SpecContext) {
					c := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathDatasets,
						Form: datasetForm(e.name("data"), "release-notes.txt")}, pathDatasets)
					e.need(c, "dataset")
					x := e.do(ctx, client.Request{Method: http.MethodDelete, Path: at(pathDatasets, c.id), Query: url.Values{"permanent": {"true"}}})
					data := e.expectSuccess(x)
					e.want(x, data.Get("permanent").Value() == true, "/data/permanent", "true", data.Get("permanent"))
					e.expectError(e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathDatasets, c.id)}),
						refusal{statuses: []int{http.StatusNotFound}})
				})

			// The seed's own form first (§4.3: "from files and/or URLs",
			// `urls` a string): one URL and no file part is a create the
			// seed declares, whatever a server decides for several URLs
			// (D-08's lists, the check after this one).
			e.check("MUST create a dataset from one URL alone (no file part) and answer {status: success, data: Dataset}",
				declared("4.3.3", "2.6", "1.1"), func(ctx SpecContext) {
					name := e.name("data")
					form := &exchange.Form{Fields: []exchange.FormField{
						{Name: "dataset_name", Value: name},
						{Name: "urls", Value: "https://docs.northwind.example/handbook"},
					}}
					c := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathDatasets, Form: form}, pathDatasets)
					data := e.expectSuccess(c.x)
					e.want(c.x, c.id != "", "/data/id", "an id", "none")
					e.want(c.x, data.Get("name").Str() == name, "/data/name", strconv.Quote(name), data.Get("name"))
				})

			e.check("SHOULD create a dataset from URLs alone",
				decidedBy("D-08", "4.3.3"), func(ctx SpecContext) {
					form := &exchange.Form{Fields: []exchange.FormField{
						{Name: "dataset_name", Value: e.name("data")},
						{Name: "urls", Value: "https://docs.northwind.example/handbook, https://docs.northwind.example/warranty"},
					}}
					c := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathDatasets, Form: form}, pathDatasets)
					e.expectSuccess(c.x)
				})

			e.check("SHOULD refuse a dataset without dataset_name (422)",
				decidedBy("D-08", "4.3.3"), func(ctx SpecContext) {
					form := &exchange.Form{Files: []exchange.FormFile{fixtureFile("release-notes.txt")}}
					x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathDatasets, Form: form, Refusal: true}, pathDatasets).x
					e.expectError(x, refusal{statuses: []int{http.StatusUnprocessableEntity}})
				})

			e.check("SHOULD refuse a dataset with neither files nor URLs (422)",
				decidedBy("D-08", "4.3.3"), func(ctx SpecContext) {
					form := &exchange.Form{Fields: []exchange.FormField{{Name: "dataset_name", Value: e.name("data")}}}
					x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathDatasets, Form: form, Refusal: true}, pathDatasets).x
					e.expectError(x, refusal{statuses: []int{http.StatusUnprocessableEntity}})
				})

			e.check("SHOULD refuse a dataset whose every file fails (422)",
				decidedBy("D-16", "4.3.3"), func(ctx SpecContext) {
					x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathDatasets,
						Form: datasetForm(e.name("data"), "bad/empty.txt", "bad/malformed.json"), Refusal: true}, pathDatasets).x
					e.expectError(x, refusal{statuses: []int{http.StatusUnprocessableEntity}})
				})

			e.check("SHOULD keep or name every file part of a dataset create: a file that cannot be read is listed in failed_files",
				decidedBy("D-27", "4.3.3", "2.6"), func(ctx SpecContext) {
					c := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathDatasets,
						Form: datasetForm(e.name("data"), "release-notes.txt", "bad/malformed.json")}, pathDatasets)
					data := e.expectSuccess(c.x)
					n, _ := data.Get("file_count").Int()
					var failed []string
					for _, f := range data.Get("failed_files").Items() {
						failed = append(failed, f.Str())
					}
					e.want(c.x, n == 1 && slices.Contains(failed, "malformed.json"), "/data", "release-notes.txt kept (file_count 1) and malformed.json named in failed_files",
						fmt.Sprintf("file_count %d, failed_files %s", n, quoteList(failed)))
				})

			e.check("MUST refuse an upload without files with the error envelope (422)",
				declared("4.3.4", "1.2", "D-17"), func(ctx SpecContext) {
					x := e.do(ctx, client.Request{Method: http.MethodPost, Path: pathUpload,
						Form: &exchange.Form{Fields: []exchange.FormField{{Name: "dataset_id", Value: e.sharedDataset(ctx)}}}, Refusal: true})
					e.expectRefused(x, "D-17", http.StatusUnprocessableEntity)
				})
		})
	})
}
