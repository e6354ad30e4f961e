package judge

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
	if recs := Records(j.Get("data")); len(recs) != 1 {
		t.Errorf("Records(array) = %d, want 1", len(recs))
	}
	wrapped, _ := ParseJSON([]byte(`{"models":[{"id":1},{"id":2}],"total":2}`))
	if ids := IDs(Records(wrapped)); !reflect.DeepEqual(ids, []string{"1", "2"}) {
		t.Errorf("Records(wrapped) ids = %v", ids)
	}
}

func TestPointers(t *testing.T) {
	j, err := ParseJSON([]byte(`{"data":[{"id":7,"a/b":{"~":1}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p, want string
		ok      bool
	}{
		{"", `{"data":[{"a/b":{"~":1},"id":7}]}`, true},
		{"/data/0/id", "7", true},
		{"/data/0/a~1b/~0", "1", true},
		{"/data/1", "", false},
		{"/data/x", "", false},
	} {
		v, ok := j.Pointer(c.p)
		if ok != c.ok || ok && v.String() != c.want {
			t.Errorf("Pointer(%q) = %s, %v; want %s, %v", c.p, v, ok, c.want, c.ok)
		}
	}
	if got := Pointer("data", "a/b", "~"); got != "/data/a~1b/~0" {
		t.Errorf("Pointer = %q", got)
	}
	if got := jsonPathPointer("$.data[0]['x.y'].id"); got != "/data/0/x.y/id" {
		t.Errorf("jsonPathPointer = %q", got)
	}
}
