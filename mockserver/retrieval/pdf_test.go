package retrieval

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestExtractPDFErrors(t *testing.T) {
	checkErrors(t, []errorCase{
		{"pdf extension, text content", "a.pdf", "hello", ErrMalformed},
		{"pdf garbage", "a.pdf", "%PDF-1.4\ngarbage without structure", ErrMalformed},
		{"password-protected pdf", "secret.pdf", encryptedPDF(), ErrUnsupported},
	})
}

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
