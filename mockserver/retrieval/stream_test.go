package retrieval

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"
)

// TestTextGuardErrors covers content refused after the sniff window, by the
// guard on the stream.
func TestTextGuardErrors(t *testing.T) {
	long := strings.Repeat("a", 2000)
	checkErrors(t, []errorCase{
		{"invalid UTF-8 after sniff window", "a.md", long + "\xc3\x28 tail\n", ErrUnsupported},
		{"NUL after sniff window", "a.json", `["` + long + "\x00" + `"]`, ErrUnsupported},
		{"truncated rune at end", "a.txt", long + "\xe2\x82", ErrUnsupported},
	})
}

// TestExtractUTF8AcrossReads feeds one byte per Read so that every
// multi-byte rune is split across reads: valid text must pass and an
// invalid sequence must still be caught.
func TestExtractUTF8AcrossReads(t *testing.T) {
	pad := strings.Repeat("x", 600) // past the sniff window, so the guard decides
	tests := []struct {
		name    string
		content string
		want    error
	}{
		{"valid multi-byte", pad + "héllo ✓ 𝄞 end\n", nil},
		{"invalid continuation", pad + "\xe2\x28\xa1\n", ErrUnsupported},
		{"surrogate", pad + "\xed\xa0\x80\n", ErrUnsupported},
		{"overlong", pad + "\xc0\xaf\n", ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Extract("a.txt", iotest.OneByteReader(strings.NewReader(tt.content)), Limits{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("error: got %v, want %v", err, tt.want)
			}
			if err == nil && doc.Text != strings.TrimSpace(tt.content) {
				t.Errorf("Text: got %q, want %q", doc.Text, strings.TrimSpace(tt.content))
			}
		})
	}
}

func TestExtractTextCap(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		max     int64
		want    string
		rows    int
	}{
		{"cut at rune boundary", "a.txt", "ééééééééé\n", 9, "éééé", 1},
		{"exact fit", "a.txt", "abc", 3, "abc", 1},
		{"rows counted past the cap", "a.txt", strings.Repeat("line\n", 1000), 10, "line\nline", 1000},
		{"csv rows counted past the cap", "a.csv", "k\n" + strings.Repeat("v\n", 500), 9, "k: v\nk: v", 500},
		{"json rows counted past the cap", "a.json", "[" + strings.Repeat(`"v",`, 300) + `"v"]`, 4, "v\nv", 301},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := extractString(t, tt.file, tt.content, Limits{MaxTextBytes: tt.max})
			if err != nil {
				t.Fatalf("Extract error: %v", err)
			}
			if doc.Text != tt.want {
				t.Errorf("Text: got %q, want %q", doc.Text, tt.want)
			}
			if int64(len(doc.Text)) > tt.max || !utf8.ValidString(doc.Text) {
				t.Errorf("Text %q: %d bytes (max %d), valid UTF-8 %v", doc.Text, len(doc.Text), tt.max, utf8.ValidString(doc.Text))
			}
			if doc.Rows != tt.rows {
				t.Errorf("Rows: got %d, want %d", doc.Rows, tt.rows)
			}
		})
	}
}

// endless is an infinite reader that records how much it served, to prove
// that Extract stops reading early.
type endless struct {
	prefix string
	line   string
	served int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		var src string
		if e.served < int64(len(e.prefix)) {
			src = e.prefix[e.served:]
		} else {
			off := (e.served - int64(len(e.prefix))) % int64(len(e.line))
			src = e.line[off:]
		}
		c := copy(p[n:], src)
		n += c
		e.served += int64(c)
	}
	return n, nil
}

func TestExtractTooLarge(t *testing.T) {
	const maxFile = 1 << 20
	tests := []struct {
		name, file string
		src        *endless
		lim        Limits
		maxServed  int64 // generous bound on what may be read before stopping
	}{
		{"text", "big.txt", &endless{line: "all work and no play\n"}, Limits{MaxFileBytes: maxFile}, maxFile + 1},
		{"csv", "big.csv", &endless{prefix: "a,b\n", line: "1,2\n"}, Limits{MaxFileBytes: maxFile}, maxFile + 1},
		{"json", "big.json", &endless{prefix: "[", line: `{"k":"v"},`}, Limits{MaxFileBytes: maxFile}, maxFile + 1},
		{"pdf", "big.pdf", &endless{prefix: "%PDF-1.4\n", line: "0 0 0 RG\n"}, Limits{MaxFileBytes: maxFile}, maxFile + 1},
		{"one huge CSV record", "rec.csv", &endless{prefix: "a\n\"", line: "xxxxxxxx"},
			Limits{MaxFileBytes: 64 << 20, MaxTextBytes: 1024}, minSpan + 4*readBuffer},
		{"one huge JSON string", "s.json", &endless{prefix: `["`, line: "yyyyyyyy"},
			Limits{MaxFileBytes: 64 << 20, MaxTextBytes: 1024}, minSpan + 4*readBuffer},
		{"one huge JSON line", "s.jsonl", &endless{prefix: `{"k":"`, line: "zzzzzzzz"},
			Limits{MaxFileBytes: 64 << 20, MaxTextBytes: 1024}, minSpan + 4*readBuffer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			r := io.LimitReader(tt.src, 1<<40) // a terabyte: only stopping early can pass
			// A clock that never moves: the size bound is judged, never the
			// time budget a loaded machine could reach first.
			frozen := time.Unix(0, 0)
			tt.lim.now = func() time.Time { return frozen }
			doc, err := Extract(tt.file, r, tt.lim)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error: got %v, want %v", err, ErrTooLarge)
			}
			if tt.src.served > tt.maxServed {
				t.Errorf("read %d bytes before stopping, want <= %d", tt.src.served, tt.maxServed)
			}
			if doc.Size != tt.src.served {
				t.Errorf("Size: got %d, want %d (bytes read)", doc.Size, tt.src.served)
			}
			assertEmptyDir(t, os.Getenv("TMPDIR"))
		})
	}
}

func TestExtractFileLimitBoundary(t *testing.T) {
	content := strings.Repeat("z", 100)
	tests := []struct {
		max  int64
		want error
	}{{100, nil}, {99, ErrTooLarge}, {10, ErrTooLarge}}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			_, err := extractString(t, "z.txt", content, Limits{MaxFileBytes: tt.max})
			if !errors.Is(err, tt.want) {
				t.Errorf("MaxFileBytes %d: got %v, want %v", tt.max, err, tt.want)
			}
		})
	}
}

// failingReader delivers some data and then fails, like a broken upload.
type failingReader struct {
	data string
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.data == "" {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestExtractReadErrorIsNotAContentError(t *testing.T) {
	boom := errors.New("connection reset")
	tests := []struct{ file, data string }{
		{"a.txt", strings.Repeat("words\n", 1000)},
		{"a.csv", "a,b\n" + strings.Repeat("1,2\n", 1000)},
		{"a.json", "[" + strings.Repeat(`{"k":1},`, 1000)},
		{"a.jsonl", strings.Repeat("{\"k\":1}\n", 1000)},
		{"a.pdf", "%PDF-1.4\n" + strings.Repeat("% filler\n", 1000)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			_, err := Extract(tt.file, &failingReader{data: tt.data, err: boom}, Limits{})
			if !errors.Is(err, boom) {
				t.Fatalf("error: got %v, want %v", err, boom)
			}
			for _, sentinel := range []error{ErrTooLarge, ErrUnsupported, ErrMalformed} {
				if errors.Is(err, sentinel) {
					t.Errorf("error %v also matches %v", err, sentinel)
				}
			}
		})
	}
}
