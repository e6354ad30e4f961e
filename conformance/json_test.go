package conformance

import (
	"reflect"
	"testing"
)

func TestJSONPathAccess(t *testing.T) {
	j, err := ParseJSON([]byte(`{"data":[{"id":7,"name":"n","tags":["a"]}],"x.y":{"z":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string
		ok   bool
	}{
		{"$.data[0].id", "7", true},
		{"$.data[0].tags[0]", `"a"`, true},
		{"$['x.y'].z", "true", true},
		{"$.data[1]", "", false},
		{"$.nope", "", false},
	}
	for _, tt := range tests {
		v, ok := j.Path(tt.path)
		if ok != tt.ok || (ok && v.String() != tt.want) {
			t.Errorf("Path(%s) = %s, %v; want %s, %v", tt.path, v, ok, tt.want, tt.ok)
		}
	}
	if id := j.Get("data", 0, "id").ID(); id != "7" {
		t.Errorf("ID() = %q, want 7", id)
	}
	if recs := records(j.Get("data")); len(recs) != 1 {
		t.Errorf("records(array) = %d, want 1", len(recs))
	}
	wrapped, _ := ParseJSON([]byte(`{"models":[{"id":1},{"id":2}],"total":2}`))
	if ids := idsOf(records(wrapped)); !reflect.DeepEqual(ids, []string{"1", "2"}) {
		t.Errorf("records(wrapped) ids = %v", ids)
	}
}
