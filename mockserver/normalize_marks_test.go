package mockserver

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"contractkit/spec"
)

// The mock's rewrites (normalize.go) are its implementation of the
// lenient readings the contract decides (x-lenient marks, D-21), which
// the suite, its explore phase and the proxy read from the contract: the
// two must name the same readings, operation by operation.
func TestRewritesAreTheContractsReadings(t *testing.T) {
	var fromMock, fromContract []spec.Reading
	for op, rules := range rewrites {
		for _, r := range rules {
			switch {
			case r.From != "":
				fromMock = append(fromMock, spec.Reading{Operation: op, Field: r.To, Alias: r.From, Decision: "D-21"})
			case reflect.ValueOf(r.Convert).Pointer() == reflect.ValueOf(integerToString).Pointer():
				fromMock = append(fromMock, spec.Reading{Operation: op, Field: r.Field, Type: "integer", Decision: "D-21"})
			case reflect.ValueOf(r.Convert).Pointer() == reflect.ValueOf(stringToInteger).Pointer():
				fromMock = append(fromMock, spec.Reading{Operation: op, Field: r.Field, Type: "string", Decision: "D-21"})
			default:
				t.Errorf("%s: a rewrite of %q the test does not know", op, r.Field)
			}
		}
	}
	for _, op := range spec.Strict().Operations {
		fromContract = append(fromContract, spec.Strict().Readings(op.ID)...)
	}
	order := func(a, b spec.Reading) int {
		return strings.Compare(a.Operation+a.Field+a.Alias+a.Type, b.Operation+b.Field+b.Alias+b.Type)
	}
	slices.SortFunc(fromMock, order)
	slices.SortFunc(fromContract, order)
	if !slices.Equal(fromMock, fromContract) {
		t.Errorf("the mock rewrites\n  %+v\nthe contract's x-lenient marks read\n  %+v", fromMock, fromContract)
	}
}
