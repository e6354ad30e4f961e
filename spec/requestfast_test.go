package spec

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestFastRequestCheckAgreesWithTheFullValidator: with the fast checks in
// front (requestfast.go), Validate and ValidateBody give the verdict and
// problems of the library's ValidateHttpRequestSync on path ids, queries,
// bodies and content types of every operation, in both views; every part
// the fast check passes, the validator's own check of that part passes;
// and the fast check does pass each kind of part at least once, so these
// comparisons reach it.
func TestFastRequestCheckAgreesWithTheFullValidator(t *testing.T) {
	ids := []string{"7", "abc", "-1", "%20x", "a%2Fb", "%25zz", "a.b;c=1", "caf%C3%A9", "3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77"}
	queries := []string{"", "limit=abc", "limit=5", "offset=-1", "status=ready", "status=paused", "title=x", "permanent=maybe",
		"page=0&per_page=20", "name=", "x=1", "model_id=7"}
	types := []string{"application/json", "application/json; charset=utf-8", "Application/JSON", "text/plain", ""}
	generic := []string{"", "{}", "null", "[1]", `{"a":1} {"b":2}`, "{", "1e400", `"text"`, `{"model_id":"7"}`, `{"model_id":7,"title":"t"}`}
	for _, view := range []struct {
		name string
		c    *Contract
	}{{"strict", Strict()}, {"declared", Declared()}} {
		passed := map[string]int{}
		for _, op := range view.c.Operations {
			rc := view.c.Request(op.ID)
			compare := func(target, ct, body string) {
				t.Helper()
				newReq := func() *http.Request {
					r := httptest.NewRequest(op.Method, target, strings.NewReader(body))
					if ct != "" {
						r.Header.Set("Content-Type", ct)
					}
					return r
				}
				wantOK, wantErrs := view.c.Validator.ValidateHttpRequestSync(newReq())
				want := messages(wantErrs)
				for _, way := range []string{"Validate", "ValidateBody"} {
					var gotOK bool
					var gotErrs = wantErrs[:0:0]
					if way == "Validate" {
						gotOK, gotErrs = rc.Validate(newReq())
					} else {
						gotOK, gotErrs = rc.ValidateBody(newReq(), []byte(body))
					}
					if gotOK != wantOK || !slices.Equal(messages(gotErrs), want) {
						t.Errorf("%s %s %s %s (%s) body %q:\n got  %v %q\n want %v %q", view.name, way, op.Method, target, ct, body,
							gotOK, messages(gotErrs), wantOK, want)
					}
				}
				// Each part the fast check passes, the validator's check
				// of that part passes.
				r := newReq()
				for _, pc := range rc.params {
					if pc.passes != nil && pc.passes(&rc.fast, r) {
						passed[pc.in]++
						if ok, errs := pc.check(newReq(), rc.pathItem, rc.path); !ok {
							t.Errorf("%s %s %s: the fast check passed a part the validator refuses: %q", view.name, op.Method, target, messages(errs))
						}
					}
				}
				if rc.body != nil && rc.fast.bodyPasses(r, []byte(body)) {
					passed["body"]++
					if ok, errs := rc.body(newReq(), rc.pathItem, rc.path); !ok {
						t.Errorf("%s %s %s (%s) body %q: the fast check passed a body the validator refuses: %q", view.name, op.Method, target, ct, body, messages(errs))
					}
				}
			}
			for _, id := range ids {
				path := fillPath(op.Path, id)
				for _, q := range queries {
					target := path
					if q != "" {
						target += "?" + q
					}
					compare(target, "", "")
				}
			}
			bodies := append(slices.Clone(generic), requestExamples(t, view.c, op)...)
			for _, body := range bodies {
				for _, ct := range types {
					compare(fillPath(op.Path, "7"), ct, body)
				}
			}
		}
		for _, part := range []string{"path", "query", "body"} {
			if passed[part] == 0 {
				t.Errorf("%s: the fast check passed no %s: the comparisons above do not reach it", view.name, part)
			}
		}
	}
}

// fillPath puts id in every parameter of the path template.
func fillPath(path, id string) string {
	for strings.Contains(path, "{") {
		i, j := strings.Index(path, "{"), strings.Index(path, "}")
		path = path[:i] + id + path[j+1:]
	}
	return path
}

// requestExamples are op's JSON request body examples, each also with an
// unknown field, without its first field, and with each field set to a
// value of another type.
func requestExamples(t *testing.T, c *Contract, op Operation) []string {
	t.Helper()
	kin := c.Kin.Paths.Find(op.Path).GetOperation(op.Method)
	if kin.RequestBody == nil || kin.RequestBody.Value == nil {
		return nil
	}
	m := kin.RequestBody.Value.Content.Get("application/json")
	if m == nil {
		return nil
	}
	var out []string
	for _, ex := range m.Examples {
		b := exampleBytes(t, ex.Value.Value)
		out = append(out, string(b))
		var obj map[string]any
		if json.Unmarshal(b, &obj) != nil {
			continue
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		variant := func(change func(map[string]any)) {
			cp := map[string]any{}
			for k, v := range obj {
				cp[k] = v
			}
			change(cp)
			vb, _ := json.Marshal(cp)
			out = append(out, string(vb))
		}
		variant(func(o map[string]any) { o["unexpected_field"] = 1 })
		for _, k := range keys {
			variant(func(o map[string]any) { delete(o, k) })
			variant(func(o map[string]any) {
				if _, isString := o[k].(string); isString {
					o[k] = 12
				} else {
					o[k] = "x"
				}
			})
		}
	}
	return out
}
