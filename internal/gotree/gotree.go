// Package gotree walks the Go files of a module tree as the go command
// sees it, for the tests that hold a rule over the whole tree (no quoted
// operation id, no faker seeded from randomness).
package gotree

import (
	"io/fs"
	"path"
	"strings"
)

// Skipped reports whether the go command skips the directory called name:
// hidden ones, those starting with "_", testdata, node_modules and vendor.
func Skipped(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
		name == "testdata" || name == "node_modules" || name == "vendor"
}

// Files calls fn with the path and text of every .go file of fsys, in
// lexical order, outside the directories Go skips and those skip names
// (skip may be nil).
func Files(fsys fs.FS, skip func(dir string) bool, fn func(p string, src []byte) error) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (Skipped(d.Name()) || skip != nil && skip(p)) {
				return fs.SkipDir
			}
			return nil
		}
		if path.Ext(p) != ".go" {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return fn(p, src)
	})
}
