package textcut

import "testing"

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"Příliš žluťoučký", 4, "Příl…"}, // characters, not bytes: no rune is split
		{"数据集", 1, "数…"},
		{"", 0, ""},
	} {
		if got := Shorten(c.in, c.n); got != c.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
