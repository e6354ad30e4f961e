package recording

import (
	"reflect"
	"strings"
	"testing"

	"contractkit/wire"
)

// jsonNames are the JSON names of a struct type's fields.
func jsonNames(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
}

// The recorder reads a model's answer leniently (an id as a number or a
// string, a field of the wrong type left unknown), so it keeps its own
// reading of the fields a fixture keeps; every one of them is a field of
// the Model's one Go type (wire.Model, held to the contract by its test),
// so a field the contract renames is renamed here or this fails.
func TestTheRecordersModelReadsTheModelsFields(t *testing.T) {
	model := jsonNames(reflect.TypeFor[wire.Model]())
	read := jsonNames(reflect.TypeFor[modelWire]())
	if len(read) < 5 {
		t.Fatalf("modelWire names %d fields", len(read))
	}
	for name := range read {
		if !model[name] {
			t.Errorf("recording reads a model's %q, which is no field of wire.Model", name)
		}
	}
}
