package spec

import "strings"

// NotesMark starts the part of a description that speaks the contract's
// own language — the reference's sections, the decisions of DECISIONS.md,
// the marks. Every description of the document opens with plain words for
// an app developer (what an operation does and what a client gets, what a
// field holds) and keeps its notes after this mark: the generated
// TypeScript comments read plain words first, and the docs page folds the
// notes away (mockserver/docsexamples.go).
const NotesMark = "Contract notes:"

// SplitNotes returns a description's plain words and its contract notes
// (without the mark); notes is empty when it has none.
func SplitNotes(desc string) (lead, notes string) {
	lead, notes, _ = strings.Cut(desc, NotesMark)
	return strings.TrimSpace(lead), strings.TrimSpace(notes)
}
