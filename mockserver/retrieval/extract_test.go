package retrieval

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
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

func TestExtractKindsAndRows(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		content  string
		kind     string
		rows     int
		contains []string
		excludes []string
	}{
		{name: "text", file: "notes.txt", content: "first line\n\n   \nsecond line\nthird", kind: KindText, rows: 3,
			contains: []string{"first line", "second line\nthird"}},
		{name: "text crlf", file: "a.TXT", content: "alpha\r\nbeta\r\n", kind: KindText, rows: 2,
			contains: []string{"alpha\nbeta"}, excludes: []string{"\r"}},
		{name: "text unicode", file: "u.txt", content: "héllo wörld ✓ 日本\n", kind: KindText, rows: 1,
			contains: []string{"héllo wörld ✓ 日本"}},
		{name: "empty text", file: "empty.txt", content: "", kind: KindText, rows: 0},
		{name: "text with BOM", file: "bom.txt", content: "\uFEFFhello\n", kind: KindText, rows: 1,
			contains: []string{"hello"}, excludes: []string{"\uFEFF"}},
		{name: "markdown", file: "handbook.md",
			content: "# Handbook\n\nThe **warranty** period is `24` months.\n\n| a | b |\n|---|:-:|\n```\ncode stays\n```\n> quoted\n",
			kind:    KindMarkdown, rows: 8,
			contains: []string{"Handbook\n", "The warranty period is 24 months.", "code stays", "quoted"},
			excludes: []string{"#", "**", "`", "---", "> "}},
		{name: "csv", file: "prices.csv",
			content: "item,price,warranty\nWidget,12.50,24 months\nGadget,\"3,000\",\n",
			kind:    KindCSV, rows: 2,
			contains: []string{"item: Widget; price: 12.50; warranty: 24 months\n", "item: Gadget; price: 3,000"}},
		{name: "csv quoted newline and blank header", file: "notes.csv",
			content: "name,\nAda,\"line one\nline two\"\n", kind: KindCSV, rows: 1,
			contains: []string{"name: Ada; column 2: line one line two"}},
		{name: "csv with BOM", file: "bom.csv", content: "\uFEFFname,age\nAlice,30\n", kind: KindCSV, rows: 1,
			contains: []string{"name: Alice; age: 30"}, excludes: []string{"\uFEFF"}},
		{name: "csv header only", file: "h.csv", content: "a,b\n", kind: KindCSV, rows: 0},
		{name: "csv empty", file: "e.csv", content: "", kind: KindCSV, rows: 0},
		{name: "tsv", file: "t.tsv", content: "a\tb\n1\t2 \"in\" quotes\n", kind: KindCSV, rows: 1,
			contains: []string{`a: 1; b: 2 "in" quotes`}},
		{name: "json array", file: "people.json",
			content: `[{"name":"Alice","age":30,"address":{"city":"Paris"},"tags":["a","b"],"x":null,"ok":true},{"name":"Bob"},3]`,
			kind:    KindJSON, rows: 3,
			contains: []string{"name: Alice; age: 30; address.city: Paris; tags[0]: a; tags[1]: b; x: null; ok: true\n", "name: Bob\n3"}},
		{name: "json object", file: "cfg.json", content: `{"warranty": {"months": 24, "note": "two\nlines"}}`, kind: KindJSON, rows: 1,
			contains: []string{"warranty.months: 24; warranty.note: two lines"}},
		{name: "json scalar", file: "s.json", content: ` "hello" `, kind: KindJSON, rows: 1, contains: []string{"hello"}},
		{name: "json empty array", file: "a.json", content: `[]`, kind: KindJSON, rows: 0},
		{name: "json depth 32 accepted", file: "deep.json",
			content: strings.Repeat("[", 32) + "1" + strings.Repeat("]", 32), kind: KindJSON, rows: 1},
		{name: "jsonl", file: "events.jsonl", content: "{\"a\":1}\n\n{\"a\":2}\r\n{\"a\":3}", kind: KindJSON, rows: 3,
			contains: []string{"a: 1\na: 2\na: 3"}},
		{name: "ndjson", file: "x.ndjson", content: "[1,2]\n\"s\"\n", kind: KindJSON, rows: 2, contains: []string{"[0]: 1; [1]: 2\ns"}},
		{name: "sniffed json", file: "data", content: `{"k":"v"}`, kind: KindJSON, rows: 1, contains: []string{"k: v"}},
		{name: "sniffed json lines", file: "data.out", content: "{\"k\":1}\n{\"k\":2}\n", kind: KindJSON, rows: 2},
		{name: "sniffed text", file: "README", content: "hello world\n", kind: KindText, rows: 1, contains: []string{"hello world"}},
		{name: "name is only a label", file: "../../etc/passwd", content: "root\n", kind: KindText, rows: 1},
	}
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

func TestExtractErrors(t *testing.T) {
	long := strings.Repeat("a", 2000)
	tests := []struct {
		name    string
		file    string
		content string
		want    error
	}{
		{"csv bare quote", "a.csv", "a,b\n1,\"x\"y\n", ErrMalformed},
		{"csv field count", "a.csv", "a,b\n1,2\n3,4,5\n", ErrMalformed},
		{"json truncated", "a.json", `{"a": [1, 2`, ErrMalformed},
		{"json invalid", "a.json", `{a: 1}`, ErrMalformed},
		{"json trailing value", "a.json", `{"a":1} {"b":2}`, ErrMalformed},
		{"json empty", "a.json", "", ErrMalformed},
		{"json too deep", "a.json", strings.Repeat("[", 33) + strings.Repeat("]", 33), ErrMalformed},
		{"json object too deep", "a.json", strings.Repeat(`{"k":`, 40) + "1" + strings.Repeat("}", 40), ErrMalformed},
		{"jsonl bad line", "a.jsonl", "{\"a\":1}\n{oops}\n", ErrMalformed},
		{"jsonl two values on a line", "a.jsonl", "{\"a\":1} 2\n", ErrMalformed},
		{"pdf extension, text content", "a.pdf", "hello", ErrMalformed},
		{"pdf garbage", "a.pdf", "%PDF-1.4\ngarbage without structure", ErrMalformed},
		{"password-protected pdf", "secret.pdf", encryptedPDF(), ErrUnsupported},
		{"NUL in text", "a.txt", "abc\x00def", ErrUnsupported},
		{"invalid UTF-8 in csv head", "a.csv", "a,b\n\xff,1\n", ErrUnsupported},
		{"invalid UTF-8 after sniff window", "a.md", long + "\xc3\x28 tail\n", ErrUnsupported},
		{"NUL after sniff window", "a.json", `["` + long + "\x00" + `"]`, ErrUnsupported},
		{"truncated rune at end", "a.txt", long + "\xe2\x82", ErrUnsupported},
		{"png with unknown extension", "image.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ErrUnsupported},
		{"zip without extension", "archive", "PK\x03\x04\x14\x00\x00\x00", ErrUnsupported},
		{"utf-16 text", "u16.txt", "\xff\xfeh\x00i\x00", ErrUnsupported},
	}
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

// ---- PDF ----

// encryptedPDF is a PDF whose Standard security handler rejects the empty
// password (40-bit RC4, O and U that match no password).
func encryptedPDF() string {
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	xref := b.Len()
	b.WriteString("xref\n0 1\n0000000000 65535 f \n")
	fmt.Fprintf(&b, "trailer\n<< /Size 1 /ID [(%s)] /Encrypt << /Filter /Standard /V 1 /R 2 /Length 40 /O (%s) /U (%s) /P 0 >> >>\n",
		strings.Repeat("I", 16), strings.Repeat("O", 32), strings.Repeat("U", 32))
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", xref)
	return b.String()
}

// pdfFile assembles a PDF from object bodies (object i+1 is objs[i]) with a
// correct cross-reference table: every offset is the byte position of its
// "N 0 obj" line, which is what the reader seeks to. Object 1 must be the
// catalog.
func pdfFile(t *testing.T, objs []string) []byte {
	t.Helper()
	var b bytes.Buffer
	// The second line of binary bytes marks the file as binary, as the
	// PDF specification recommends; the reader only needs "%PDF-1.x\n".
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off) // each entry is exactly 20 bytes
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// pdfStream renders a stream object, optionally Flate-compressed as real
// PDF writers do.
func pdfStream(t *testing.T, content string, compress bool) string {
	t.Helper()
	data, filter := []byte(content), ""
	if compress {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data, filter = z.Bytes(), " /Filter /FlateDecode"
	}
	return fmt.Sprintf("<< /Length %d%s >>\nstream\n%s\nendstream", len(data), filter, data)
}

// buildPDF makes a PDF with one page per content stream, all using the
// standard Helvetica font (no embedding needed).
func buildPDF(t *testing.T, compress bool, pages ...string) []byte {
	t.Helper()
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
	var kids []string
	for i, content := range pages {
		pageObj, contentObj := 4+2*i, 5+2*i
		kids = append(kids, fmt.Sprintf("%d 0 R", pageObj))
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", contentObj),
			pdfStream(t, content, compress))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages))
	return pdfFile(t, objs)
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

func TestExtractPDF(t *testing.T) {
	fact := "BT /F1 12 Tf 72 720 Td (The warranty period is 24 months.) Tj ET"
	tests := []struct {
		name     string
		file     string
		pdf      func(t *testing.T) []byte
		rows     int
		contains []string
		lim      Limits
	}{
		{name: "one page", file: "handbook.pdf", pdf: func(t *testing.T) []byte { return buildPDF(t, false, fact) },
			rows: 1, contains: []string{"The warranty period is 24 months."}},
		{name: "compressed pages", file: "report.PDF", pdf: func(t *testing.T) []byte {
			return buildPDF(t, true, fact, "BT /F1 12 Tf 72 720 Td (Returns are accepted within 30 days.) Tj ET")
		}, rows: 2, contains: []string{"The warranty period is 24 months.", "Returns are accepted within 30 days."}},
		{name: "lines and kerned words", file: "k.pdf", pdf: func(t *testing.T) []byte {
			return buildPDF(t, false, "BT /F1 12 Tf 72 720 Td [(Support)-300(hours)] TJ 0 -14 Td (are 9 to 5.) Tj ET")
		}, rows: 1, contains: []string{"Support hours\nare 9 to 5."}},
		{name: "sniffed without extension", file: "upload", pdf: func(t *testing.T) []byte { return buildPDF(t, false, fact) },
			rows: 1, contains: []string{"24 months"}},
		{name: "hostile name", file: "../../../../tmp/evil.pdf", pdf: func(t *testing.T) []byte { return buildPDF(t, false, fact) },
			rows: 1, contains: []string{"24 months"}},
		{name: "page without contents", file: "blank.pdf", pdf: func(t *testing.T) []byte {
			return pdfFile(t, []string{
				"<< /Type /Catalog /Pages 2 0 R >>",
				"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
				"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
			})
		}, rows: 1},
		{name: "page tree that contains itself", file: "loop.pdf", pdf: func(t *testing.T) []byte {
			return pdfFile(t, []string{
				"<< /Type /Catalog /Pages 2 0 R >>",
				"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1 >>",
				"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
				pdfStream(t, fact, false),
				"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
			})
		}, rows: 1, contains: []string{"The warranty period is 24 months."}},
		{name: "unreadable page is skipped", file: "partial.pdf", pdf: func(t *testing.T) []byte {
			return pdfFile(t, []string{
				"<< /Type /Catalog /Pages 2 0 R >>",
				"<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 >>",
				"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
				"<< /Length 3 /Filter /NoSuchFilter >>\nstream\nabc\nendstream",
				"<< /Type /Page /Parent 2 0 R /Contents 6 0 R >>",
				pdfStream(t, fact, false),
			})
		}, rows: 2, contains: []string{"The warranty period is 24 months."}},
		{name: "text cap stops interpretation", file: "cap.pdf", pdf: func(t *testing.T) []byte {
			return buildPDF(t, true, "BT /F1 12 Tf "+strings.Repeat("(0123456789) Tj ", 10000)+"ET")
		}, rows: 1, contains: []string{"0123456789"}, lim: Limits{MaxTextBytes: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir) // os.CreateTemp("") spools here
			data := tt.pdf(t)
			doc, err := Extract(tt.file, bytes.NewReader(data), tt.lim)
			if err != nil {
				t.Fatalf("Extract error: %v", err)
			}
			if doc.Kind != KindPDF {
				t.Errorf("Kind: got %q, want %q", doc.Kind, KindPDF)
			}
			if doc.Rows != tt.rows {
				t.Errorf("Rows (pages): got %d, want %d", doc.Rows, tt.rows)
			}
			if doc.Size != int64(len(data)) {
				t.Errorf("Size: got %d, want %d", doc.Size, len(data))
			}
			mustContain(t, doc.Text, tt.contains...)
			if tt.lim.MaxTextBytes > 0 && int64(len(doc.Text)) > tt.lim.MaxTextBytes {
				t.Errorf("Text is %d bytes, want <= %d", len(doc.Text), tt.lim.MaxTextBytes)
			}
			assertEmptyDir(t, dir)
		})
	}
}

func TestExtractPDFMalformedCleansUp(t *testing.T) {
	good := buildPDF(t, false, "BT (x) Tj ET")
	tests := []struct {
		name string
		data []byte
	}{
		{"truncated", good[:len(good)/2]},
		{"catalog offset points elsewhere", corruptFirstXrefEntry(t, good)},
		{"missing catalog", bytes.Replace(good, []byte("/Root 1 0 R"), []byte("/Root 9 0 R"), 1)},
		{"header only", []byte("%PDF-1.4\n")},
		{"only page unreadable", pdfFile(t, []string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
			"<< /Length 3 /Filter /NoSuchFilter >>\nstream\nabc\nendstream",
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			_, err := Extract("bad.pdf", bytes.NewReader(tt.data), Limits{})
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("error: got %v, want %v", err, ErrMalformed)
			}
			assertEmptyDir(t, dir)
		})
	}
}

// corruptFirstXrefEntry points object 1 at the wrong byte offset.
func corruptFirstXrefEntry(t *testing.T, pdf []byte) []byte {
	t.Helper()
	free := []byte("0000000000 65535 f \n")
	i := bytes.Index(pdf, free)
	if i < 0 {
		t.Fatal("no xref table")
	}
	out := bytes.Clone(pdf)
	copy(out[i+len(free):], "0000000003")
	return out
}

func BenchmarkExtractCSV(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("id,item,price,warranty,notes\n")
	for i := range 10000 {
		fmt.Fprintf(&sb, "%d,Widget %d,%d.99,%d months,\"ships in %d days, tracked\"\n", i, i, i%100, 12+i%24, 1+i%9)
	}
	data := sb.String()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		doc, err := Extract("items.csv", strings.NewReader(data), Limits{})
		if err != nil || doc.Rows != 10000 {
			b.Fatalf("Extract: rows %d, err %v", doc.Rows, err)
		}
	}
}

func TestMarkdownListItemsLoseTheirMarkers(t *testing.T) {
	doc, err := Extract("notes.md", strings.NewReader("# Leave\n\n- Employees receive 27 days of paid leave.\n* Carry-over ends in March.\n3. Ask HR first.\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, marker := range []string{"- Employees", "* Carry", "3. Ask"} {
		if strings.Contains(doc.Text, marker) {
			t.Errorf("text keeps the list marker of %q: %q", marker, doc.Text)
		}
	}
	if !strings.Contains(doc.Text, "Employees receive 27 days of paid leave.") {
		t.Errorf("text lost the item: %q", doc.Text)
	}
}
