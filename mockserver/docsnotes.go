package mockserver

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"contractkit/spec"
)

// foldNotes gives the docs page the contract's descriptions as an app
// developer reads them: each opens with its plain words, and its contract
// notes (after spec.NotesMark: the reference's sections, the decisions,
// the marks) sit in a folded <details> below, opened on demand. Run it
// before introduce, whose own summary names contract notes.
func foldNotes(root *yaml.Node) {
	walk(root, func(n *yaml.Node) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value != "description" || v.Kind != yaml.ScalarNode || !strings.Contains(v.Value, spec.NotesMark) {
				continue
			}
			lead, notes := spec.SplitNotes(v.Value)
			v.Value = lead + "\n\n<details class=\"contract-notes\">\n<summary>Contract notes</summary>\n\n" + notes + "\n\n</details>\n"
			v.Style = yaml.LiteralStyle
		}
	})
}
