package spec

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// contractWords are what an app developer should not have to read first:
// the reference's sections, decision rows, marks, the suite's words.
var contractWords = regexp.MustCompile(`(?i)\bseed\b|§|\bD-\d\d\b|\bx-[a-z]+|--strict|\bdeclared\b|\bdecided\b|\bconformance\b|\bthis contract\b`)

// TestDescriptionsOpenWithPlainWords: every description of the document
// (but the document's own, which the docs page puts under an introduction)
// opens with plain words, its contract notes after NotesMark; an
// operation's says what it does and what a client gets.
func TestDescriptionsOpenWithPlainWords(t *testing.T) {
	var root yaml.Node
	if err := yaml.Unmarshal(Document, &root); err != nil {
		t.Fatal(err)
	}
	seen, ops := 0, 0
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, path+"/"+strconv.Itoa(i))
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, n.Content[i+1]
				switch {
				case k == "example" || k == "examples" || k == "x-named":
					continue // data, not descriptions
				case k == "description" && v.Kind == yaml.ScalarNode && path != "/info":
					seen++
					lead, _ := SplitNotes(v.Value)
					if lead == "" {
						t.Errorf("%s (line %d): the description opens with its contract notes, no plain words first", path, v.Line)
					} else if w := contractWords.FindString(lead); w != "" {
						t.Errorf("%s (line %d): %q in the plain words; move it after %q: %q", path, v.Line, w, NotesMark, lead)
					}
					if isOperation(path) {
						ops++
						if !strings.Contains(lead, "You get") {
							t.Errorf("%s: the description does not say what a client gets (\"You get ...\"): %q", path, lead)
						}
					}
				}
				walk(v, path+"/"+k)
			}
		}
	}
	walk(&root, "")
	if seen < 150 || ops != len(Strict().Operations) {
		t.Errorf("checked %d descriptions, %d of operations; want every one (%d operations)", seen, ops, len(Strict().Operations))
	}
}

func isOperation(path string) bool {
	for _, m := range []string{"/get", "/post", "/put", "/patch", "/delete"} {
		if strings.HasPrefix(path, "/paths/") && strings.HasSuffix(path, m) {
			return true
		}
	}
	return false
}

func TestSplitNotes(t *testing.T) {
	lead, notes := SplitNotes("Lists the models. You get data.\n\nContract notes: seed §4.1 (D-01).")
	if lead != "Lists the models. You get data." || notes != "seed §4.1 (D-01)." {
		t.Errorf("SplitNotes got %q, %q", lead, notes)
	}
	if lead, notes := SplitNotes("Plain only."); lead != "Plain only." || notes != "" {
		t.Errorf("SplitNotes of a plain description got %q, %q", lead, notes)
	}
}
