package drive

import (
	"testing"
	"unicode/utf8"
)

// A fresh unique text of an accepted one's shape is no longer than it
// where its number leaves room: a server that took "name 8" took no text
// longer than that, so a longer one's refusal would be the text's.
func TestRestampKeepsTheAcceptedLength(t *testing.T) {
	g := &gen{n: 495}
	for _, c := range []struct{ in, want string }{
		{"  Žluťoučký kůň name 8 ", "  Žluťoučký kůň nam496 "},
		{"Warranty name 120", "Warranty name 497"},
		{"Catalog", "Cata498"},
		{"a1", "a499"}, // no room: the words keep a character, the number is longer
	} {
		got := g.restamp(c.in)
		if got != c.want {
			t.Errorf("restamp(%q) = %q, want %q", c.in, got, c.want)
		}
		if c.in != "a1" && utf8.RuneCountInString(got) > utf8.RuneCountInString(c.in) {
			t.Errorf("restamp(%q) = %q is longer", c.in, got)
		}
	}
}
