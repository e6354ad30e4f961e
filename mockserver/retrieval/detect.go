package retrieval

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

const pdfMagic = "%PDF-" // first bytes of every PDF file

// detect picks the kind from the extension, letting content win where the
// two disagree in a way that can be told from the first bytes: a PDF is a
// PDF whatever it is called, and binary content is refused before parsing.
// lines reports JSON Lines; comma is the CSV field separator.
func detect(name string, head []byte) (kind string, lines bool, comma rune, err error) {
	comma = ','
	if bytes.HasPrefix(head, []byte(pdfMagic)) {
		return KindPDF, false, comma, nil
	}
	ext := strings.ToLower(path.Ext(strings.ReplaceAll(name, `\`, "/")))
	switch ext {
	case ".pdf":
		// Not a PDF header: the PDF parser reports it as malformed.
		return KindPDF, false, comma, nil
	case ".csv":
		kind = KindCSV
	case ".tsv", ".tab":
		kind, comma = KindCSV, '\t'
	case ".json":
		kind = KindJSON
	case ".jsonl", ".ndjson":
		kind, lines = KindJSON, true
	case ".md", ".markdown", ".mdown", ".mkd":
		kind = KindMarkdown
	case ".txt", ".text", ".log":
		kind = KindText
	}
	if looksBinary(head) {
		return kind, lines, comma, fmt.Errorf("%w: %s looks like binary data", ErrUnsupported, name)
	}
	if kind != "" {
		return kind, lines, comma, nil
	}
	// Unknown extension: text-like content is accepted as text, with JSON
	// recognised by its first byte so that its structure is kept.
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte(bomUTF8)), " \t\r\n")
	switch {
	case len(trimmed) > 0 && trimmed[0] == '{' && (bytes.Contains(trimmed, []byte("}\n{")) || bytes.Contains(trimmed, []byte("}\r\n{"))):
		return KindJSON, true, comma, nil
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		return KindJSON, false, comma, nil
	}
	return KindText, false, comma, nil
}

// looksBinary reports whether the first bytes of a file cannot be UTF-8
// text: a NUL byte, or invalid UTF-8 other than a rune cut by the sniff
// window.
func looksBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	return !utf8.Valid(head[:completeRunes(head)])
}
