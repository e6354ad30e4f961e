package retrieval

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// extractString runs Extract over an in-memory file.
func extractString(t *testing.T, name, content string, lim Limits) (Doc, error) {
	t.Helper()
	return Extract(name, strings.NewReader(content), lim)
}

// mustContain fails unless every want string occurs in got.
func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("text %q does not contain %q", got, w)
		}
	}
}

// assertEmptyDir fails if dir holds any file: the PDF spool must be removed.
func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind in temp dir: %s", e.Name())
	}
}

// kindCase is a file Extract reads: the kind, rows and text it must report.
type kindCase struct {
	name     string
	file     string
	content  string
	kind     string
	rows     int
	contains []string
	excludes []string
}

// checkKinds extracts every case and checks Doc field by field.
func checkKinds(t *testing.T, tests []kindCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractString(t, tt.file, tt.content, Limits{})
			if err != nil {
				t.Fatalf("Extract(%q) error: %v", tt.file, err)
			}
			if got.Kind != tt.kind {
				t.Errorf("Kind: got %q, want %q", got.Kind, tt.kind)
			}
			if got.Rows != tt.rows {
				t.Errorf("Rows: got %d, want %d", got.Rows, tt.rows)
			}
			if got.Size != int64(len(tt.content)) {
				t.Errorf("Size: got %d, want %d", got.Size, len(tt.content))
			}
			if got.Name != tt.file {
				t.Errorf("Name: got %q, want %q", got.Name, tt.file)
			}
			mustContain(t, got.Text, tt.contains...)
			for _, x := range tt.excludes {
				if strings.Contains(got.Text, x) {
					t.Errorf("text %q contains %q", got.Text, x)
				}
			}
		})
	}
}

// errorCase is a file Extract refuses with an error matching want.
type errorCase struct {
	name    string
	file    string
	content string
	want    error
}

// checkErrors extracts every case, checks the error and that no spooled
// file is left behind.
func checkErrors(t *testing.T, tests []errorCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			doc, err := extractString(t, tt.file, tt.content, Limits{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Extract(%q) error: got %v, want %v", tt.file, err, tt.want)
			}
			if doc.Name != tt.file {
				t.Errorf("Name: got %q, want %q", doc.Name, tt.file)
			}
			assertEmptyDir(t, dir)
		})
	}
}

func TestExtractKindReportedOnError(t *testing.T) {
	tests := []struct {
		file, content, kind string
	}{
		{"a.csv", "a,b\n1\n", KindCSV},
		{"a.jsonl", "{oops}\n", KindJSON},
		{"a.md", "x\x00", KindMarkdown},
		{"image.png", "\x89PNG\r\n\x1a\n\x00", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			doc, err := extractString(t, tt.file, tt.content, Limits{})
			if err == nil {
				t.Fatal("Extract: got nil error, want one")
			}
			if doc.Kind != tt.kind || doc.Size != int64(len(tt.content)) || doc.Text != "" || doc.Rows != 0 {
				t.Errorf("Doc on error: got %+v, want Kind %q, Size %d, no text or rows", doc, tt.kind, len(tt.content))
			}
		})
	}
}
