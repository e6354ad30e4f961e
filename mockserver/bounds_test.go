package mockserver

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"contractkit/mockserver/store"
	"contractkit/spec"
)

// bound is a length or count the contract states on one request field.
type bound struct{ min, max int }

// statedBounds lists every length and count the contract states on a
// request field: the top-level fields of every request body (JSON and
// multipart), with minLength/maxLength, minItems/maxItems or an x-split
// mark, and every query parameter with a length. Keys are "operationId
// field", "operationId ?param" for a query parameter. Value bounds
// (minimum, maximum) are not lengths: the validator applies them straight
// from the document.
func statedBounds(t *testing.T, c *spec.Contract) map[string]bound {
	t.Helper()
	out := map[string]bound{}
	for _, o := range c.Operations {
		op, err := c.KinOperation(o.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range op.Parameters {
			if p.Value == nil || p.Value.In != "query" || p.Value.Schema == nil || p.Value.Schema.Value.MaxLength == nil {
				continue
			}
			s := p.Value.Schema.Value
			out[o.ID+" ?"+p.Value.Name] = bound{int(s.MinLength), int(*s.MaxLength)}
		}
		if op.RequestBody == nil {
			continue
		}
		for _, media := range op.RequestBody.Value.Content {
			for name, ref := range media.Schema.Value.Properties {
				s := ref.Value
				sp, split, err := spec.SplitOf(s)
				switch {
				case err != nil:
					t.Fatal(err)
				case split:
					out[o.ID+" "+name] = bound{0, sp.MaxItems}
				case s.MaxLength != nil:
					out[o.ID+" "+name] = bound{int(s.MinLength), int(*s.MaxLength)}
				case s.MaxItems != nil:
					out[o.ID+" "+name] = bound{int(s.MinItems), int(*s.MaxItems)}
				}
			}
		}
	}
	return out
}

// boundCase sends one request whose field holds n characters or items.
type boundCase struct {
	key  string // "operationId field" as statedBounds names it
	over int    // the status a request over the bound gets (422, or 413 for file parts)
	send func(t *testing.T, n int) *apiResponse
}

// TestTheMockEnforcesTheContractsBoundsExactly drives every length and count
// the contract states on a request field at its bound (accepted) and one
// past it (refused, the error naming the field), and at the lower bound and
// one under it when there is one. A bound the mock retypes tighter, looser
// or not at all fails here, and so does a bound the contract gains without a
// case below.
func TestTheMockEnforcesTheContractsBoundsExactly(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	md := fixtureFile(t, "release-notes.txt")
	model := c.readyModel("bounds", md)
	conv := c.createConversation(model.ID, "bounds")
	ds := c.createDataset("bounds", md)
	ev := c.createEvaluation(model.ID, "bounds")

	text := func(prefix string, n int) string {
		// A letter beyond the BMP (MATHEMATICAL BOLD CAPITAL A) counts as
		// one character but four bytes: a byte cap under the contract's
		// length, or a count of UTF-16 units, would show.
		if n == 0 {
			return ""
		}
		return prefix + strings.Repeat("\U0001D400", n-1)
	}
	files := func(n int) []filePart {
		out := make([]filePart, n)
		for i := range out {
			out[i] = filePart{name: fmt.Sprintf("note-%03d.txt", i), data: []byte("Note number " + strconv.Itoa(i) + ".\n")}
		}
		return out
	}
	list := func(n int, item func(int) string, sep string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = item(i)
		}
		return strings.Join(items, sep)
	}
	form := func(fields [][2]string, parts ...filePart) *apiResponse {
		ct, body := multipartBody(t, fields, parts...)
		return c.do(http.MethodPost, "/api/v1/user/dataset", withBody(ct, body))
	}
	evaluationPath := fmt.Sprintf("/api/v1/evaluations/%d", ev.ID)
	samples := func(n int) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"question": fmt.Sprintf("What changed in release %d?", i), "answer": "Bug fixes."}
		}
		return out
	}
	cases := []boundCase{
		{"createModel model_name", 422, func(t *testing.T, n int) *apiResponse {
			return c.post("/api/v1/user/model", map[string]any{"model_name": text("m", n), "dataset_id": strconv.FormatInt(ds.ID, 10)})
		}},
		{"createModel description", 422, func(t *testing.T, n int) *apiResponse {
			return c.post("/api/v1/user/model", map[string]any{"model_name": "m", "dataset_id": strconv.FormatInt(ds.ID, 10), "description": text("d", n)})
		}},
		{"createConversation title", 422, func(t *testing.T, n int) *apiResponse {
			return c.post("/api/v1/user/conversations", map[string]any{"model_id": model.ID, "title": text("t", n)})
		}},
		{"renameConversation title", 422, func(t *testing.T, n int) *apiResponse {
			return c.do(http.MethodPatch, "/api/v1/user/conversations/"+conv.ID, withJSON(map[string]any{"title": text("t", n)}))
		}},
		{"renameConversation ?title", 422, func(t *testing.T, n int) *apiResponse {
			return c.do(http.MethodPatch, "/api/v1/user/conversations/"+conv.ID+"?title="+url.QueryEscape(text("t", n)))
		}},
		{"createDataset dataset_name", 422, func(t *testing.T, n int) *apiResponse {
			return form([][2]string{{"dataset_name", text("n", n)}}, md)
		}},
		{"createDataset description", 422, func(t *testing.T, n int) *apiResponse {
			return form([][2]string{{"dataset_name", "d"}, {"description", text("d", n)}}, md)
		}},
		{"createDataset files", http.StatusRequestEntityTooLarge, func(t *testing.T, n int) *apiResponse {
			return form([][2]string{{"dataset_name", "files"}}, files(n)...)
		}},
		{"createDataset tags", 422, func(t *testing.T, n int) *apiResponse {
			return form([][2]string{{"dataset_name", "tags"}, {"tags", list(n, func(i int) string { return "tag" + strconv.Itoa(i) }, ",")}}, md)
		}},
		{"createDataset urls", 422, func(t *testing.T, n int) *apiResponse {
			return form([][2]string{{"dataset_name", "urls"}, {"urls", list(n, func(i int) string { return "https://docs.example/" + strconv.Itoa(i) }, " ")}}, md)
		}},
		{"uploadDatasetFiles files", http.StatusRequestEntityTooLarge, func(t *testing.T, n int) *apiResponse {
			return c.uploadFiles(ds.ID, files(n)...)
		}},
		{"runInference query", 422, func(t *testing.T, n int) *apiResponse {
			return c.post("/api/v1/user/inference", map[string]any{"model_id": model.ID, "query": text("q", n)}, withHeader("Accept", "application/json"))
		}},
		{"createEvaluation name", 422, func(t *testing.T, n int) *apiResponse {
			return c.post("/api/v1/evaluations", map[string]any{"model_id": model.ID, "name": text("n", n)})
		}},
		{"createEvaluation description", 422, func(t *testing.T, n int) *apiResponse {
			return c.post("/api/v1/evaluations", map[string]any{"model_id": model.ID, "name": "described " + strconv.Itoa(n), "description": text("d", n)})
		}},
		{"updateEvaluation name", 422, func(t *testing.T, n int) *apiResponse {
			return c.do(http.MethodPut, evaluationPath, withJSON(map[string]any{"name": text("u", n)}))
		}},
		{"updateEvaluation description", 422, func(t *testing.T, n int) *apiResponse {
			return c.do(http.MethodPut, evaluationPath, withJSON(map[string]any{"description": text("d", n)}))
		}},
		{"runRagasEvaluation samples", 422, func(t *testing.T, n int) *apiResponse {
			return c.post(evaluationPath+"/run-ragas", map[string]any{"samples": samples(n)})
		}},
		{"runRagasEvaluation selected_questions", 422, func(t *testing.T, n int) *apiResponse {
			s := samples(n)
			selected := make([]string, n)
			for i := range s {
				selected[i] = s[i]["question"].(string)
			}
			return c.post(evaluationPath+"/run-ragas", map[string]any{"samples": s[:min(n, 500)], "selected_questions": selected})
		}},
	}

	stated := statedBounds(t, spec.Strict())
	for key := range stated {
		if !slices.ContainsFunc(cases, func(bc boundCase) bool { return bc.key == key }) {
			t.Errorf("the contract bounds %s (%+v) and this test has no case driving it", key, stated[key])
		}
	}
	for _, bc := range cases {
		b, ok := stated[bc.key]
		if !ok {
			t.Errorf("%s: a case for a bound the contract does not state", bc.key)
			continue
		}
		field := strings.TrimPrefix(bc.key[strings.Index(bc.key, " ")+1:], "?")
		t.Run(bc.key, func(t *testing.T) {
			bc.send(t, b.max).want(t, 200)
			bc.send(t, b.max+1).wantError(t, bc.over, field)
			if b.min > 0 {
				bc.send(t, b.min).want(t, 200)
				bc.send(t, b.min-1).wantError(t, 422, field)
			}
		})
	}

	// check-name answers (rather than refuses) a name past the bound, which
	// the contract states on the create's name (D-19).
	name := stated["createEvaluation name"].max
	for n, valid := range map[int]bool{name: true, name + 1: false} {
		if nc := checkName(t, c, text("c", n)); nc.Valid != valid {
			t.Errorf("check-name of %d characters: %+v, want valid %v", n, nc, valid)
		}
	}
}

// TestAContractWithoutABoundStopsTheStart: a bound the handlers check and
// the document no longer states is a start-up error naming it.
func TestAContractWithoutABoundStopsTheStart(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"x-split: { separators: \",\\n\", maxItems: 50 }", "", "createDataset: tags has no x-split mark"},
		{"x-split: { separators: \",\\n\", maxItems: 50 }", "x-split: { separators: \",\\n\" }", "createDataset: tags: contract: x-split"},
		{"          maxLength: 255\n          x-stored: { as: name }\n          x-decision: { row: D-15, class: decided, relax: [minLength, maxLength] }\n          x-lenient: { row: D-21, class: decided, names: [name] }\n        description:\n          type: string\n          maxLength: 4000\n          x-decision: { row: D-15, class: decided, relax: [maxLength] }\n        tags:",
			"          x-stored: { as: name }\n          x-decision: { row: D-15, class: decided, relax: [minLength] }\n          x-lenient: { row: D-21, class: decided, names: [name] }\n        description:\n          type: string\n          maxLength: 4000\n          x-decision: { row: D-15, class: decided, relax: [maxLength] }\n        tags:",
			"createDataset: dataset_name states no maxLength"},
	} {
		raw := strings.Replace(string(spec.Document), tc.from, tc.to, 1)
		if raw == string(spec.Document) {
			t.Fatalf("the contract no longer holds %q as this test expects", tc.from)
		}
		c, err := spec.Build([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := readBounds(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error naming %q", err, tc.want)
		}
	}
	b, err := readBounds(spec.Strict())
	if err != nil {
		t.Fatal(err)
	}
	if want := (store.Length{Min: 1, Max: 500}); b.files["uploadDatasetFiles"] != want {
		t.Errorf("upload files %+v, want %+v", b.files["uploadDatasetFiles"], want)
	}
}

// TestD15StatesTheLimitsNoSchemaCan: the limits no schema keyword states
// (the body sizes and the nesting of the contract's x-request-limits mark,
// the form field's bytes and the part count the mock keeps as constants)
// are written in DECISIONS.md D-15, the row that decides them; a mark or a
// constant changed without its row fails here.
func TestD15StatesTheLimitsNoSchemaCan(t *testing.T) {
	md, err := os.ReadFile("../spec/DECISIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "| D-15 |") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("DECISIONS.md has no row D-15")
	}
	for _, want := range []string{
		fmt.Sprintf("Multipart bodies at most %d MiB (413)", spec.RequestLimits().MultipartBodyBytes>>20),
		fmt.Sprintf("JSON bodies at most %d MiB", spec.RequestLimits().JSONBodyBytes>>20),
		fmt.Sprintf("JSON nesting at most %d levels", spec.RequestLimits().JSONDepth),
		fmt.Sprintf("A multipart text field at most %d KiB (422)", spec.RequestLimits().FormFieldBytes>>10),
		fmt.Sprintf("a multipart body at most %d parts (413)", spec.RequestLimits().MultipartParts),
	} {
		if !strings.Contains(row, want) {
			t.Errorf("D-15 does not say %q", want)
		}
	}
}
