package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The frontend guide (docs/frontend.md, which the README links) shows a
// journal entry "exactly as GET /admin/requests lists it"; a frontend developer writes assertions against that shape. This
// keeps it true: the README's entry has the keys, the value types and the
// header form of a real entry of the same call, and the README names
// every key an entry can carry.

var readmeJournalEntry = regexp.MustCompile("(?s)<!-- journal-entry:start -->\\s*```json\\n(.*?)```\\s*<!-- journal-entry:end -->")

func TestREADMEShowsTheJournalEntryAsItIs(t *testing.T) {
	md, err := os.ReadFile("../docs/frontend.md")
	if err != nil {
		t.Fatal(err)
	}
	m := readmeJournalEntry.FindSubmatch(md)
	if m == nil {
		t.Fatal("docs/frontend.md has no JSON block between <!-- journal-entry:start --> and <!-- journal-entry:end -->")
	}
	var shown map[string]any
	if err := json.Unmarshal(m[1], &shown); err != nil {
		t.Fatalf("the README's journal entry is not JSON: %v", err)
	}

	// The same call: an override answers a GET of a model, from a page on
	// another origin.
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	model := c.models()[0]
	setOverride(t, c, map[string]any{
		"match":   map[string]any{"method": "GET", "path": modelTemplate},
		"respond": map[string]any{"status": 503, "message": "The model service is down"}, "times": 1,
	})
	offContract(t, ts, testKey1).get(fmt.Sprintf("/api/v1/user/model/%d", model.ID), withHeader("Origin", "http://127.0.0.1:5173"), withHeader("Accept", "*/*")).wantError(t, http.StatusServiceUnavailable)
	entries := journalOf(t, c, "?method=GET&path=/api/v1/user/model/")
	real := entries[len(entries)-1]

	var diffs []string
	compareShape("", shown, real, &diffs)
	for _, d := range diffs {
		t.Errorf("the README's journal entry differs from a real one: %s", d)
	}
	if shown["path"] != real["path"] || shown["status"] != real["status"] ||
		shown["response"].(map[string]any)["body"] != real["response"].(map[string]any)["body"] {
		t.Errorf("the README's entry is not this call: %v %v %v", shown["path"], shown["status"], shown["response"].(map[string]any)["body"])
	}

	// Every key an entry can carry is named in the README.
	for _, key := range jsonKeys(reflect.TypeOf(journalEntry{})) {
		if !strings.Contains(string(md), "`"+key+"`") && !strings.Contains(string(md), `"`+key+`"`) {
			t.Errorf("the README never names the journal key %q", key)
		}
	}
}

// compareShape records where a (the README) and b (real) differ in keys or
// value types; header maps are compared by form (names to lists of
// strings), a's names among b's.
func compareShape(path string, a, b any, diffs *[]string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: an object, the real entry has %T", path, b))
			return
		}
		if strings.HasSuffix(path, "/headers") {
			for name, v := range av {
				if _, ok := bv[name]; !ok {
					*diffs = append(*diffs, fmt.Sprintf("%s: header %s, the real entry has %v", path, name, sortedKeys(bv)))
				}
				if l, ok := v.([]any); !ok || len(l) == 0 {
					*diffs = append(*diffs, fmt.Sprintf("%s/%s: not a list of values", path, name))
				}
			}
			return
		}
		if ak, bk := sortedKeys(av), sortedKeys(bv); !slices.Equal(ak, bk) {
			*diffs = append(*diffs, fmt.Sprintf("%s: keys %v, the real entry has %v", path, ak, bk))
		}
		for k, v := range av {
			if w, ok := bv[k]; ok {
				compareShape(path+"/"+k, v, w, diffs)
			}
		}
	default:
		if reflect.TypeOf(a) != reflect.TypeOf(b) {
			*diffs = append(*diffs, fmt.Sprintf("%s: %T (%v), the real entry has %T (%v)", path, a, a, b, b))
		}
	}
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// jsonKeys lists the JSON names of t's fields and of the structs inside.
func jsonKeys(t reflect.Type) []string {
	seen := map[reflect.Type]bool{}
	var out []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || name == "" {
				continue
			}
			out = append(out, name)
			walk(f.Type)
		}
	}
	walk(t)
	return out
}
