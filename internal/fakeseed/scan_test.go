package fakeseed

import (
	"contractkit/internal/gotree"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// TestEveryFakerIsSeeded: no Go file of the tree but this package's calls
// gofakeit.New: a seed of 0 there would draw from crypto randomness.
func TestEveryFakerIsSeeded(t *testing.T) {
	got, err := unseeded(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		t.Error(p)
	}
}

// TestUnseededIsFound: the scan finds gofakeit.New under any import name,
// in test files too, and skips this package, testdata and what Go skips.
func TestUnseededIsFound(t *testing.T) {
	file := func(src string) *fstest.MapFile { return &fstest.MapFile{Data: []byte("package a\n\n" + src + "\n")} }
	const imp = "import \"github.com/brianvoe/gofakeit/v7\"\n\n"
	fsys := fstest.MapFS{
		"a/new.go":                file(imp + "var f = gofakeit.New(0)"),
		"a/new_test.go":           file(imp + "var f = gofakeit.New(7)"),
		"b/named.go":              file("import fk \"github.com/brianvoe/gofakeit/v7\"\n\nvar f = fk.New(1)"),
		"a/other.go":              file("import \"math/rand/v2\"\n\nvar f = rand.New(nil)"),
		"a/name.go":               file(imp + "var f = gofakeit.Name()"),
		"internal/fakeseed/x.go":  file(imp + "var f = gofakeit.New(0)"),
		"a/testdata/x.go":         file(imp + "var f = gofakeit.New(0)"),
		"npm/node_modules/x/y.go": file(imp + "var f = gofakeit.New(0)"),
		"a/notgo.txt":             file(imp + "var f = gofakeit.New(0)"),
		"a/comment.go":            file("// gofakeit.New(0) is random"),
	}
	got, err := unseeded(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a/new.go:5: gofakeit.New: make the faker with fakeseed.Faker (a seed of 0 would be crypto randomness)",
		"a/new_test.go:5: gofakeit.New: make the faker with fakeseed.Faker (a seed of 0 would be crypto randomness)",
		"b/named.go:5: gofakeit.New: make the faker with fakeseed.Faker (a seed of 0 would be crypto randomness)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

const gofakeitPath = "github.com/brianvoe/gofakeit/v7"

// unseeded lists the calls of gofakeit.New in the Go files of fsys.
func unseeded(fsys fs.FS) ([]string, error) {
	var out []string
	err := gotree.Files(fsys, func(dir string) bool { return dir == "internal/fakeseed" }, func(p string, src []byte) error {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return nil // not Go the toolchain builds; vet reports it
		}
		local := ""
		for _, im := range f.Imports {
			if v, _ := strconv.Unquote(im.Path.Value); v == gofakeitPath {
				local = "gofakeit"
				if im.Name != nil {
					local = im.Name.Name
				}
			}
		}
		if local == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "New" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
					out = append(out, p+":"+strconv.Itoa(fset.Position(call.Pos()).Line)+
						": gofakeit.New: make the faker with fakeseed.Faker (a seed of 0 would be crypto randomness)")
				}
			}
			return true
		})
		return nil
	})
	return out, err
}
