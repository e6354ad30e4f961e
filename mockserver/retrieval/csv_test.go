package retrieval

import (
	"fmt"
	"strings"
	"testing"
)

func TestExtractCSV(t *testing.T) {
	checkKinds(t, []kindCase{
		{name: "csv", file: "prices.csv",
			content: "item,price,warranty\nWidget,12.50,24 months\nGadget,\"3,000\",\n",
			kind:    KindCSV, rows: 2,
			contains: []string{"item: Widget; price: 12.50; warranty: 24 months\n", "item: Gadget; price: 3,000"}},
		{name: "csv quoted newline and blank header", file: "notes.csv",
			content: "name,\nAda,\"line one\nline two\"\n", kind: KindCSV, rows: 1,
			contains: []string{"name: Ada; column 2: line one line two"}},
		{name: "csv with BOM", file: "bom.csv", content: "\uFEFFname,age\nAlice,30\n", kind: KindCSV, rows: 1,
			contains: []string{"name: Alice; age: 30"}, excludes: []string{"\uFEFF"}},
		{name: "csv header only", file: "h.csv", content: "a,b\n", kind: KindCSV, rows: 0},
		{name: "csv empty", file: "e.csv", content: "", kind: KindCSV, rows: 0},
		{name: "tsv", file: "t.tsv", content: "a\tb\n1\t2 \"in\" quotes\n", kind: KindCSV, rows: 1,
			contains: []string{`a: 1; b: 2 "in" quotes`}},
	})
}

func TestExtractCSVErrors(t *testing.T) {
	checkErrors(t, []errorCase{
		{"csv bare quote", "a.csv", "a,b\n1,\"x\"y\n", ErrMalformed},
		{"csv field count", "a.csv", "a,b\n1,2\n3,4,5\n", ErrMalformed},
	})
}

func BenchmarkExtractCSV(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("id,item,price,warranty,notes\n")
	for i := range 10000 {
		fmt.Fprintf(&sb, "%d,Widget %d,%d.99,%d months,\"ships in %d days, tracked\"\n", i, i, i%100, 12+i%24, 1+i%9)
	}
	data := sb.String()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		doc, err := Extract("items.csv", strings.NewReader(data), Limits{})
		if err != nil || doc.Rows != 10000 {
			b.Fatalf("Extract: rows %d, err %v", doc.Rows, err)
		}
	}
}
