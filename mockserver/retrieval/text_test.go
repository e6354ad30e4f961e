package retrieval

import (
	"strings"
	"testing"
)

func TestExtractText(t *testing.T) {
	checkKinds(t, []kindCase{
		{name: "text", file: "notes.txt", content: "first line\n\n   \nsecond line\nthird", kind: KindText, rows: 3,
			contains: []string{"first line", "second line\nthird"}},
		{name: "text crlf", file: "a.TXT", content: "alpha\r\nbeta\r\n", kind: KindText, rows: 2,
			contains: []string{"alpha\nbeta"}, excludes: []string{"\r"}},
		{name: "text unicode", file: "u.txt", content: "héllo wörld ✓ 日本\n", kind: KindText, rows: 1,
			contains: []string{"héllo wörld ✓ 日本"}},
		{name: "empty text", file: "empty.txt", content: "", kind: KindText, rows: 0},
		{name: "text with BOM", file: "bom.txt", content: "\uFEFFhello\n", kind: KindText, rows: 1,
			contains: []string{"hello"}, excludes: []string{"\uFEFF"}},
		{name: "markdown", file: "handbook.md",
			content: "# Handbook\n\nThe **warranty** period is `24` months.\n\n| a | b |\n|---|:-:|\n```\ncode stays\n```\n> quoted\n",
			kind:    KindMarkdown, rows: 8,
			contains: []string{"Handbook\n", "The warranty period is 24 months.", "code stays", "quoted"},
			excludes: []string{"#", "**", "`", "---", "> "}},
	})
}

func TestMarkdownListItemsLoseTheirMarkers(t *testing.T) {
	doc, err := Extract("notes.md", strings.NewReader("# Leave\n\n- Employees receive 27 days of paid leave.\n* Carry-over ends in March.\n3. Ask HR first.\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, marker := range []string{"- Employees", "* Carry", "3. Ask"} {
		if strings.Contains(doc.Text, marker) {
			t.Errorf("text keeps the list marker of %q: %q", marker, doc.Text)
		}
	}
	if !strings.Contains(doc.Text, "Employees receive 27 days of paid leave.") {
		t.Errorf("text lost the item: %q", doc.Text)
	}
}
