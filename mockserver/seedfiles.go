package mockserver

import (
	"bytes"
	"io/fs"
	"time"
)

// seedFiles are a seed's inline files as the fs.FS a fixture bundle reads
// them from: opened by name, read, stat'ed as regular files. (The standard
// library's map file system lives in a testing package, which the mock
// does not link.)
type seedFiles map[string][]byte

// Open opens the file called name.
func (m seedFiles) Open(name string) (fs.File, error) {
	b, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{info: memInfo{name: name, size: int64(len(b))}, r: bytes.NewReader(b)}, nil
}

type memFile struct {
	info memInfo
	r    *bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }

// memInfo describes a regular file of seedFiles.
type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
