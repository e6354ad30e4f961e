package gotree

import (
	"slices"
	"testing"
	"testing/fstest"
)

// TestFilesSkipsWhatGoSkips: every .go file, in order, but none under a
// directory Go skips or one the caller names.
func TestFilesSkipsWhatGoSkips(t *testing.T) {
	f := &fstest.MapFile{Data: []byte("package a\n")}
	fsys := fstest.MapFS{
		"a/a.go": f, "a/a_test.go": f, "b/c/d.go": f, "a/x.txt": f,
		".git/x.go": f, "_old/x.go": f, "a/testdata/x.go": f, "npm/node_modules/y/x.go": f, "vendor/x/x.go": f,
		"spec/x.go": f,
	}
	var got []string
	err := Files(fsys, func(dir string) bool { return dir == "spec" }, func(p string, _ []byte) error {
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/a.go", "a/a_test.go", "b/c/d.go"}; !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
}
