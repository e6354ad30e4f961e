package coverage

import (
	"encoding/json"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// markIn marks exactly the fields jsonFields finds, whatever the document
// and the documented paths: the walk along the tree only spares naming the
// paths nobody documents.
func TestMarkInMarksWhatJSONFieldsFinds(t *testing.T) {
	names := []string{"data", "id", "items", "", "a.b", "x[]", "status", "z"}
	rapid.Check(t, func(rt *rapid.T) {
		var gen func(depth int) any
		gen = func(depth int) any {
			switch k := rapid.IntRange(0, 4).Draw(rt, "kind"); {
			case depth > 4 || k == 0:
				return rapid.SampledFrom([]any{nil, 1.0, "s", true}).Draw(rt, "scalar")
			case k <= 2:
				m := map[string]any{}
				for range rapid.IntRange(0, 3).Draw(rt, "keys") {
					m[rapid.SampledFrom(names).Draw(rt, "key")] = gen(depth + 1)
				}
				return m
			default:
				var a []any
				for range rapid.IntRange(0, 2).Draw(rt, "items") {
					a = append(a, gen(depth+1))
				}
				return a
			}
		}
		doc := gen(0)
		body, _ := json.Marshal(doc)
		// Documented paths: some the document has, some made up.
		all := jsonFields(body)
		var fields []string
		for f := range maps.Keys(all) {
			if rapid.Bool().Draw(rt, "documented") {
				fields = append(fields, f)
			}
		}
		for range rapid.IntRange(0, 4).Draw(rt, "invented") {
			fields = append(fields, rapid.SampledFrom([]string{"", ".id", "data.", "data..id", "[]", "[].id", "data[]", "items[][]", "a]b", "data.items[].id", "z.a.b"}).Draw(rt, "field"))
		}
		old := &mediaState{fields: fields, observed: map[string]bool{}}
		old.mark(all)
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			rt.Fatal(err)
		}
		tree := &mediaState{fields: fields, observed: map[string]bool{}, tree: fieldTree(fields)}
		tree.markIn(v)
		if !maps.Equal(old.observed, tree.observed) {
			rt.Fatalf("%s with fields %q: jsonFields marks %v, markIn %v", body, fields, old.observed, tree.observed)
		}
	})
}

// Past maxDepth neither walk names a field.
func TestMarkInStopsWhereJSONFieldsStops(t *testing.T) {
	var doc any = 1.0
	for range maxDepth + 6 {
		doc = map[string]any{"a": []any{doc}}
	}
	body, _ := json.Marshal(doc)
	var fields []string
	path := "a"
	for range maxDepth + 6 {
		fields = append(fields, path, path+"[]")
		path += "[].a"
	}
	old := &mediaState{fields: fields, observed: map[string]bool{}}
	old.mark(jsonFields(body))
	var v any
	_ = json.Unmarshal(body, &v)
	tree := &mediaState{fields: fields, observed: map[string]bool{}, tree: fieldTree(fields)}
	tree.markIn(v)
	if !maps.Equal(old.observed, tree.observed) || len(old.observed) == len(fields) {
		t.Fatalf("jsonFields marks %d of %d, markIn %d", len(old.observed), len(fields), len(tree.observed))
	}
}

// A body seen before is not read again, which changes nothing of the
// report; what the Recorder remembers of bodies stays within its bound.
func TestRememberedBodiesChangeNothingAndAreBounded(t *testing.T) {
	once, twice := New(smallContract(t)), New(smallContract(t))
	a := []byte(`{"status":"success","data":[{"id":"1","owner":{"name":"a"}}]}`)
	b := []byte(`{"status":"success","data":[{"id":"2","tags":["x"]}]}`)
	once.Observe("GET", "/things", 200, "application/json", a)
	once.Observe("GET", "/things", 200, "application/json", b)
	for range 3 {
		twice.Observe("GET", "/things", 200, "application/json", a)
		twice.ObserveParsed("listThings", "GET", "/things", 200, "application/json", b, nil, false)
	}
	ro, rt := once.Report(), twice.Report()
	for i := range ro.Operations {
		ro.Operations[i].Calls, rt.Operations[i].Calls = 0, 0
		for j := range ro.Operations[i].Statuses {
			ro.Operations[i].Statuses[j].Seen, rt.Operations[i].Statuses[j].Seen = 0, 0
		}
	}
	ro.Totals, rt.Totals = Totals{}, Totals{}
	if !reflect.DeepEqual(ro, rt) {
		t.Fatalf("seen once:\n%+v\nseen three times:\n%+v", ro, rt)
	}
	r := New(smallContract(t))
	for i := range 2 * maxRememberedBytes / maxRememberedBody {
		big := []byte(`{"status":"success","data":[{"id":"` + strings.Repeat("x", maxRememberedBody-60) + strconv.Itoa(i) + `"}]}`)
		r.Observe("GET", "/things", 200, "application/json", big)
	}
	if r.remembered > maxRememberedBytes {
		t.Fatalf("remembered %d bytes, bound %d", r.remembered, maxRememberedBytes)
	}
}
