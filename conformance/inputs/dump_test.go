package inputs

import (
	"fmt"
	"testing"

	"contractkit/spec"
)

func TestDump(t *testing.T) {
	c := Read(spec.Strict(), spec.Declared())
	n := map[Family]int{}
	for _, d := range c.Derive() {
		n[d.Family]++
		fmt.Println(d.Key())
	}
	fmt.Println(n)
	for _, k := range c.Kinds {
		fmt.Printf("%s %s colls=%v machine=%v refs=%d scope=%s\n", k.Param, k.IDForm, k.Colls, k.Machine, len(k.Refs), k.Scope)
	}
}
