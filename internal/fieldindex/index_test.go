package fieldindex

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/conformance/refmodel"
	"contractkit/spec"
)

// need is one thing every field of every answer needs.
type need int

const (
	// marked: its x-predict mark (or a marked field above it) rests on a
	// clause of the reference (seed: declared) or a row of DECISIONS.md
	// (decision: decided).
	marked need = iota
	// served: the mock serves it in at least one answer of the run, or the
	// contract says why it never does (x-unserved).
	served
	// predicted: the reference model predicts it (refmodel.Gaps names no
	// gap at its pointer).
	predicted
)

// lack is one field and what it lacks.
type lack struct {
	f       *field
	missing []need
	gap     string // the model's gap, when predicted is missing
}

// String renders the lack on one line: the field's pointer, the answers
// that carry it, and each thing it lacks with what to do.
func (l lack) String() string {
	where := l.f.answers[0]
	if n := len(l.f.answers) - 1; n > 0 {
		where += fmt.Sprintf(" and %d more", n)
	}
	var what []string
	for _, m := range l.missing {
		switch m {
		case marked:
			what = append(what, "no declared or decided mark (give its x-predict a seed clause or a decision row)")
		case served:
			what = append(what, "never served by the mock (serve it, or say why not with x-unserved)")
		case predicted:
			what = append(what, "not predicted by the model ("+l.gap+")")
		}
	}
	return fmt.Sprintf("%s (in %s): %s", l.f.ptr, where, strings.Join(what, "; "))
}

// lacks lists, field by field, what each field of doc's answers lacks:
// a basis, a serving by the mock (servedPtrs: the pointers it served),
// a prediction by the model.
func lacks(doc *openapi3.T, servedPtrs map[string]bool) []lack {
	gaps := map[string]string{}
	for _, g := range refmodel.Gaps(doc) {
		if _, dup := gaps[g.Pointer]; !dup {
			gaps[g.Pointer] = g.Problem
		}
	}
	var out []lack
	for _, f := range answerFields(doc) {
		l := lack{f: f}
		gap, hasGap := gaps[f.ptr]
		switch {
		case f.container && !f.marked:
			// An envelope's data: its properties carry the marks.
		case !f.marked && hasGap, f.basis == "":
			l.missing = append(l.missing, marked)
		}
		if !servedPtrs[f.ptr] && f.unserved == "" {
			l.missing = append(l.missing, served)
		}
		if hasGap {
			l.missing, l.gap = append(l.missing, predicted), gap
		}
		if len(l.missing) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// Every field of every answer is marked, served and predicted: adding an
// optional field to an answer in the contract fails here until the mock
// serves it, the model predicts it and its mark says what it rests on.
func TestEveryFieldIsMarkedServedAndPredicted(t *testing.T) {
	doc := spec.Strict().Kin
	fields := answerFields(doc)
	if len(fields) < 150 {
		t.Fatalf("the walk found %d fields: it did not reach the answers", len(fields))
	}
	for _, l := range lacks(doc, servedFields(t, doc)) {
		t.Error(l)
	}
}

// withField is the contract with one line added after anchor, loaded as
// the model loads one (kin-openapi, references resolved, validated).
func withField(t *testing.T, anchor, line string) *openapi3.T {
	t.Helper()
	raw := strings.Replace(string(spec.Document), anchor, anchor+line, 1)
	if raw == string(spec.Document) {
		t.Fatal("the contract no longer has the line this test extends")
	}
	doc, err := openapi3.NewLoader().LoadFromData([]byte(raw))
	if err == nil {
		err = doc.Validate(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestAnAddedFieldListsTheWork: an optional field added to the Dataset,
// as a developer writes it first (a type, nothing else), is named once,
// lacking exactly the three things; nothing else is named. Each part of
// the work, once done, takes its part off the line.
func TestAnAddedFieldListsTheWork(t *testing.T) {
	const anchor = "        file_count: { type: integer, x-predict: { rule: count, of: files, decision: D-33 } }\n"
	const ptr = "/components/schemas/Dataset/properties/owner"
	check := func(doc *openapi3.T, want ...need) []string {
		t.Helper()
		ls := lacks(doc, servedFields(t, doc))
		var lines []string
		for _, l := range ls {
			lines = append(lines, l.String())
		}
		if len(ls) != 1 || ls[0].f.ptr != ptr || !slices.Equal(ls[0].missing, want) {
			t.Errorf("the work listed:\n%s\nwant one line for %s lacking %v", strings.Join(lines, "\n"), ptr, want)
		}
		return lines
	}
	lines := check(withField(t, anchor, "        owner: { type: string, nullable: true }\n"), marked, served, predicted)
	// The contributor guide's "Adding a field to an answer" shows a developer the line.
	readme, err := os.ReadFile("../../docs/contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if !strings.Contains(string(readme), "\n"+l+"\n") {
			t.Errorf("docs/contributing.md (For contributors, Adding a field to an answer) does not show the line\n%s", l)
		}
	}
	// Marked as the model reads it (a rule and a decision): served is left.
	check(withField(t, anchor, "        owner: { type: string, nullable: true, x-predict: { rule: latitude, reason: no request sets it, decision: D-34 } }\n"), served)
	// Exempt from serving with a reason, but its mark rests on nothing.
	check(withField(t, anchor, "        owner: { type: string, nullable: true, x-unserved: 'the mock has no owners', x-predict: { rule: latitude, reason: no request sets it } }\n"), marked)
}
