// Package retrieval lets the mock server answer inference questions from the
// files a user uploaded to a dataset.
//
// The interface document (section 4.4) only says that a query is answered by a
// model, optionally bypassing retrieval with base_model. A mock that answered
// with random text would make it impossible to test the one behaviour clients
// care about most: a question about a fact in an uploaded file gets an answer
// that states that fact. This package provides the three pieces needed for
// that, each bounded so that an upload cannot exhaust the server:
//
//   - Extract turns one uploaded file part into text while streaming it.
//   - Index is a BM25 index over passages of that text.
//   - Compose turns the best passages into an answer and its stream tokens.
package retrieval

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Kinds reported in Doc.Kind. JSON Lines files are reported as KindJSON:
// the dataset resource has no separate type for them and they are parsed by
// the same flattener, one document per line.
const (
	KindText     = "text"
	KindMarkdown = "markdown"
	KindCSV      = "csv"
	KindJSON     = "json"
	KindPDF      = "pdf"
)

// Default limits, used when a Limits field is zero or negative so that a
// zero Limits never means "unbounded".
const (
	// DefaultMaxTextBytes is the extracted text kept per file: enough for a
	// handbook or a few thousand CSV rows, small enough that a dataset of
	// many files stays in memory.
	DefaultMaxTextBytes = 2 << 20
	// DefaultMaxFileBytes is the largest upload accepted per file.
	DefaultMaxFileBytes = 32 << 20
	// MaxJSONDepth is the deepest JSON nesting accepted; deeper documents
	// are reported as ErrMalformed rather than risk unbounded recursion.
	MaxJSONDepth = 32
)

const (
	sniffLen   = 512      // bytes inspected to detect the kind, as net/http does
	readBuffer = 32 << 10 // read-ahead of the stream, bounded
	minSpan    = 1 << 20  // smallest limit on one CSV record / JSON token / JSONL line
	recordLine = 380      // flattened records are wrapped at this many bytes so a line fits one passage
	maxPDFTree = 20000    // page-tree nodes visited: bounds work on huge or cyclic page trees
	maxPDFNest = 64       // page-tree depth visited
	tdNewLine  = 0.5      // vertical text movement (in text space units) treated as a new line
	tjSpace    = -200.0   // TJ kerning (thousandths of an em) wide enough to be a word gap
	bomUTF8    = "\uFEFF" // byte order mark some editors prepend to UTF-8 files
	pdfMagic   = "%PDF-"  // first bytes of every PDF file
	tmpPattern = "upload-*.pdf"
)

// Sentinel errors returned (wrapped with detail) by Extract. The server maps
// each one to a per-file failure in the upload result (section 2.7).
var (
	// ErrTooLarge reports a file larger than Limits.MaxFileBytes, or a
	// single record/value too large to hold while parsing it.
	ErrTooLarge = errors.New("retrieval: file too large")
	// ErrUnsupported reports content that is not text of a supported kind:
	// binary data, NUL bytes or invalid UTF-8.
	ErrUnsupported = errors.New("retrieval: unsupported file content")
	// ErrMalformed reports a file of a supported kind that does not parse:
	// bad CSV quoting or field counts, invalid JSON, an unreadable PDF.
	ErrMalformed = errors.New("retrieval: malformed file")
)

// Limits bound what one file may cost. Zero or negative fields select the
// defaults (DefaultMaxTextBytes, DefaultMaxFileBytes).
type Limits struct {
	// MaxTextBytes is the extracted text kept for answering. Reading goes
	// on past it (to count rows and validate the file) but nothing more is
	// kept. It also bounds one CSV record or JSON value, with a floor of
	// 1 MiB, because the parsers must hold a whole record at once.
	MaxTextBytes int64
	// MaxFileBytes is the largest file accepted; reading stops as soon as
	// the stream exceeds it.
	MaxFileBytes int64
}

func (l Limits) normalized() Limits {
	if l.MaxTextBytes <= 0 {
		l.MaxTextBytes = DefaultMaxTextBytes
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	return l
}

// Doc is the text extracted from one uploaded file, with the counts the
// dataset resource reports (size, rows).
type Doc struct {
	// Name is the file name as given. It is only a label (for answers and
	// upload results) and is never used as a file-system path.
	Name string
	// Kind is one of the Kind constants, detected from the extension and
	// by sniffing the first bytes.
	Kind string
	// Size is the number of bytes actually read from the stream.
	Size int64
	// Rows is, for text and markdown, the non-empty lines; for CSV, the
	// data records (header excluded); for JSON, the elements of a
	// top-level array (1 for any other value); for JSON Lines, the
	// non-empty lines; for PDF, the pages.
	Rows int
	// Text is the extracted text, capped at Limits.MaxTextBytes on a rune
	// boundary.
	Text string
}

// Extract reads one uploaded file from r and returns its text.
//
// The stream is read once and never held in memory beyond the capped text
// (plus one record while it is parsed): r may be a multipart.Part of an
// arbitrarily large request. PDFs need random access, so they are spooled to
// a temporary file (bounded by MaxFileBytes) that is removed before Extract
// returns.
//
// Errors wrap ErrTooLarge, ErrUnsupported or ErrMalformed; any other error
// is a failure to read r. On error the returned Doc still carries Name, the
// detected Kind (empty for unrecognised binary content) and the Size read so
// far, so the caller can report them.
func Extract(name string, r io.Reader, lim Limits) (Doc, error) {
	lim = lim.normalized()
	x := &extractor{
		doc: Doc{Name: name},
		lim: lim,
		src: &countingReader{r: r, max: lim.MaxFileBytes},
		out: &textBuf{max: int(min(lim.MaxTextBytes, int64(maxInt)))},
	}
	err := x.run()
	x.doc.Size = x.src.n
	if err != nil {
		x.doc.Rows = 0
		return x.doc, err
	}
	x.doc.Text = x.out.String()
	return x.doc, nil
}

const maxInt = int(^uint(0) >> 1)

// extractor holds the state of one Extract call.
type extractor struct {
	doc   Doc
	lim   Limits
	src   *countingReader
	guard *textGuard // set for text kinds; nil for PDF
	out   *textBuf
}

func (x *extractor) run() error {
	br := bufio.NewReaderSize(x.src, readBuffer)
	head, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return x.fail(err)
	}
	kind, lines, comma, err := detect(x.doc.Name, head)
	x.doc.Kind = kind
	if err != nil {
		return err
	}
	if kind == KindPDF {
		return x.fail(x.readPDF(br))
	}
	if bytes.HasPrefix(head, []byte(bomUTF8)) {
		_, _ = br.Discard(len(bomUTF8))
	}
	x.guard = &textGuard{r: br}
	switch {
	case kind == KindCSV:
		err = x.readCSV(x.guard, comma)
	case kind == KindJSON && lines:
		err = x.readJSONLines(x.guard)
	case kind == KindJSON:
		err = x.readJSON(x.guard)
	default:
		err = x.readText(x.guard, kind == KindMarkdown)
	}
	return x.fail(err)
}

// fail turns whatever error a parser saw into the error Extract reports.
// The stream wrappers record why they stopped, so their verdict wins over
// the parser's: a CSV parser that sees the "too large" read error would
// otherwise describe it as a parse error.
func (x *extractor) fail(err error) error {
	switch {
	case err == nil:
		return nil
	case x.src.tooLarge:
		return fmt.Errorf("%w: %s is larger than %d bytes", ErrTooLarge, x.doc.Name, x.src.max)
	case x.src.spanErr != nil:
		return x.src.spanErr
	case x.guard != nil && x.guard.err != nil:
		return x.guard.err
	case x.src.readErr != nil:
		return fmt.Errorf("retrieval: reading %s: %w", x.doc.Name, x.src.readErr)
	case errors.Is(err, ErrTooLarge), errors.Is(err, ErrUnsupported), errors.Is(err, ErrMalformed):
		return err
	default:
		return fmt.Errorf("%w: %s: %v", ErrMalformed, x.doc.Name, err)
	}
}

// spanLimit bounds one record, token or line that a parser must hold whole.
func (x *extractor) spanLimit() int64 {
	return max(x.lim.MaxTextBytes, minSpan)
}

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

// completeRunes returns the length of b without a trailing incomplete (but
// so far valid) UTF-8 sequence.
func completeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

// ---- text and markdown ----

func (x *extractor) readText(r io.Reader, markdown bool) error {
	br := bufio.NewReaderSize(r, readBuffer)
	lineStart, content, inFence := true, false, false
	for {
		frag, err := br.ReadSlice('\n')
		if len(frag) > 0 {
			body := bytes.TrimRight(frag, "\r\n")
			if !content && len(bytes.TrimSpace(body)) > 0 {
				content = true
			}
			s := string(body)
			if markdown {
				s, inFence = markdownLine(s, lineStart, inFence)
			}
			x.out.WriteString(s)
			lineStart = frag[len(frag)-1] == '\n'
			if lineStart {
				x.out.WriteString("\n")
				if content {
					x.doc.Rows++
				}
				content = false
			}
		}
		switch err {
		case nil, bufio.ErrBufferFull:
			// A line longer than the buffer arrives in fragments; it
			// is processed as it comes instead of being held whole.
		case io.EOF:
			if content {
				x.doc.Rows++
			}
			return nil
		default:
			return err
		}
	}
}

// markdownLine strips the markup that would read badly when a line is quoted
// in an answer: heading and quote markers, code fences, table rules and
// emphasis. Only the start of a line is inspected for block markers.
// listMarker is a Markdown list item's marker: "- ", "* ", "+ ", "1. ", "2) ".
var listMarker = regexp.MustCompile(`^(?:[-*+]|\d{1,3}[.)])\s+`)

func markdownLine(s string, lineStart, inFence bool) (string, bool) {
	if lineStart {
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			return "", !inFence
		}
		if inFence {
			return s, inFence
		}
		if isTableRule(t) {
			return "", inFence
		}
		t = strings.TrimLeft(t, "#")
		switch {
		case len(t) < len(strings.TrimSpace(s)):
			s = strings.TrimSpace(t)
		case strings.HasPrefix(t, "> "):
			s = t[2:]
		case listMarker.MatchString(t):
			// A list item reads as a sentence of its own in an answer.
			s = listMarker.ReplaceAllString(t, "")
		}
	}
	if inFence {
		return s, inFence
	}
	s = strings.ReplaceAll(s, "**", "")
	s = strings.ReplaceAll(s, "`", "")
	return s, inFence
}

// isTableRule reports a markdown table separator such as |---|:--:|.
func isTableRule(t string) bool {
	if !strings.Contains(t, "-") {
		return false
	}
	return strings.Trim(t, "|-: ") == ""
}

// ---- CSV ----

func (x *extractor) readCSV(r io.Reader, comma rune) error {
	cr := csv.NewReader(r)
	cr.Comma = comma
	cr.ReuseRecord = true
	cr.LazyQuotes = comma == '\t' // TSV exports rarely quote, and stray quotes are data there
	x.src.startSpan(x.spanLimit())
	rec, err := cr.Read()
	if err == io.EOF {
		return nil // an empty file has no header and no rows
	}
	if err != nil {
		return csvError(err)
	}
	header := make([]string, len(rec))
	for i, h := range rec {
		h = oneLine(h)
		if i == 0 {
			h = strings.TrimPrefix(h, bomUTF8)
		}
		if h == "" {
			h = "column " + strconv.Itoa(i+1)
		}
		header[i] = h
	}
	for {
		x.src.markSpan()
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvError(err)
		}
		x.doc.Rows++
		if x.out.full {
			continue // still parsed: the file must be valid and its rows counted
		}
		wrote := false
		for i, v := range rec {
			if v = oneLine(v); v == "" {
				continue
			}
			if wrote {
				x.out.WriteString("; ")
			}
			x.out.WriteString(header[i])
			x.out.WriteString(": ")
			x.out.WriteString(v)
			wrote = true
		}
		if wrote {
			x.out.WriteString("\n")
		}
	}
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%w: csv line %d, column %d: %v", ErrMalformed, pe.Line, pe.Column, pe.Err)
	}
	return err
}

// oneLine folds whitespace runs (including newlines inside quoted values)
// into single spaces, because a record must stay on one line of text.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

// ---- JSON and JSON Lines ----

func (x *extractor) readJSON(r io.Reader) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	x.src.startSpan(x.spanLimit())
	f := &flattener{dec: dec, src: x.src}
	tok, err := f.token()
	if err == io.EOF {
		return fmt.Errorf("%w: %s: empty JSON document", ErrMalformed, x.doc.Name)
	}
	if err != nil {
		return jsonError(err)
	}
	if d, ok := tok.(json.Delim); ok && d == '[' {
		// A top-level array is a table: one record per element.
		for dec.More() {
			el, err := f.token()
			if err != nil {
				return jsonError(err)
			}
			rec := recordWriter{out: x.out}
			if err := f.value(el, "", 2, &rec); err != nil {
				return jsonError(err)
			}
			rec.end()
			x.doc.Rows++
		}
		if _, err := f.token(); err != nil { // the closing ]
			return jsonError(err)
		}
	} else {
		rec := recordWriter{out: x.out}
		if err := f.value(tok, "", 1, &rec); err != nil {
			return jsonError(err)
		}
		rec.end()
		x.doc.Rows = 1
	}
	if _, err := f.token(); err != io.EOF {
		return fmt.Errorf("%w: %s: data after the top-level JSON value", ErrMalformed, x.doc.Name)
	}
	return nil
}

func (x *extractor) readJSONLines(r io.Reader) error {
	br := bufio.NewReaderSize(r, readBuffer)
	limit := x.spanLimit()
	var line []byte
	lineNo := 0
	for {
		frag, err := br.ReadSlice('\n')
		if int64(len(line)+len(frag)) > limit {
			return fmt.Errorf("%w: %s: JSON line %d is longer than %d bytes", ErrTooLarge, x.doc.Name, lineNo+1, limit)
		}
		line = append(line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		if len(line) > 0 {
			lineNo++
			if len(bytes.TrimSpace(line)) > 0 {
				if perr := x.jsonLine(line); perr != nil {
					return fmt.Errorf("%w: %s: JSON line %d: %v", ErrMalformed, x.doc.Name, lineNo, perr)
				}
				x.doc.Rows++
			}
			line = line[:0]
		}
		if err == io.EOF {
			return nil
		}
	}
}

func (x *extractor) jsonLine(line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	f := &flattener{dec: dec}
	tok, err := f.token()
	if err != nil {
		return err
	}
	rec := recordWriter{out: x.out}
	if err := f.value(tok, "", 1, &rec); err != nil {
		return err
	}
	rec.end()
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

func jsonError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w: json at byte %d: %v", ErrMalformed, se.Offset, se)
	}
	if err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: json: unexpected end of input", ErrMalformed)
	}
	return err
}

// flattener walks a JSON value token by token. Token streaming is used
// instead of decoding into interface{} because a decoder holds the whole
// value in memory; with tokens only one scalar is held at a time.
type flattener struct {
	dec *json.Decoder
	src *countingReader // nil when the input is already in memory
}

func (f *flattener) token() (json.Token, error) {
	if f.src != nil {
		f.src.markSpan()
	}
	return f.dec.Token()
}

// value flattens tok (already read) into "path: value" pairs. depth is the
// nesting level of tok (1 for a top-level value).
func (f *flattener) value(tok json.Token, key string, depth int, rec *recordWriter) error {
	d, ok := tok.(json.Delim)
	if !ok {
		rec.pair(key, scalar(tok))
		return nil
	}
	if depth > MaxJSONDepth {
		return fmt.Errorf("%w: JSON nested deeper than %d levels", ErrMalformed, MaxJSONDepth)
	}
	switch d {
	case '{':
		for f.dec.More() {
			kt, err := f.token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			vt, err := f.token()
			if err != nil {
				return err
			}
			if err := f.value(vt, joinKey(key, oneLine(k)), depth+1, rec); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; f.dec.More(); i++ {
			vt, err := f.token()
			if err != nil {
				return err
			}
			if err := f.value(vt, key+"["+strconv.Itoa(i)+"]", depth+1, rec); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: unexpected JSON delimiter %q", ErrMalformed, d)
	}
	_, err := f.token() // the closing delimiter
	return err
}

func joinKey(parent, k string) string {
	if parent == "" {
		return k
	}
	return parent + "." + k
}

func scalar(tok json.Token) string {
	switch v := tok.(type) {
	case string:
		return oneLine(v)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	default:
		return fmt.Sprint(v)
	}
}

// recordWriter writes the pairs of one record joined by "; ", wrapping at
// recordLine bytes so that every line fits one passage of the index and the
// fields of a small record stay together.
type recordWriter struct {
	out     *textBuf
	lineLen int
}

func (w *recordWriter) pair(key, val string) {
	if w.out.full {
		return
	}
	s := val
	if key != "" {
		s = key + ": " + val
	}
	if w.lineLen > 0 && w.lineLen+2+len(s) > recordLine {
		w.out.WriteString("\n")
		w.lineLen = 0
	}
	if w.lineLen > 0 {
		w.out.WriteString("; ")
		w.lineLen += 2
	}
	w.out.WriteString(s)
	w.lineLen += len(s)
}

func (w *recordWriter) end() {
	if w.lineLen > 0 {
		w.out.WriteString("\n")
	}
	w.lineLen = 0
}

// ---- PDF ----

// readPDF spools the stream to a temporary file, because the PDF reader needs
// random access (io.ReaderAt). The file name comes from os.CreateTemp, never
// from the upload's name, so a hostile name cannot choose where data lands.
func (x *extractor) readPDF(r io.Reader) (err error) {
	f, err := os.CreateTemp("", tmpPattern)
	if err != nil {
		return fmt.Errorf("retrieval: spooling %s: %w", x.doc.Name, err)
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	n, err := io.Copy(f, r) // bounded by the counting reader's MaxFileBytes
	if err != nil {
		return err
	}
	rd, err := pdf.NewReader(f, n)
	if errors.Is(err, pdf.ErrInvalidPassword) {
		// Well-formed, but its text cannot be read without the password.
		return fmt.Errorf("%w: %s is password-protected", ErrUnsupported, x.doc.Name)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrMalformed, x.doc.Name, err)
	}
	pages, err := pdfText(rd, x.out)
	x.doc.Rows = pages
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrMalformed, x.doc.Name, err)
	}
	if pages == 0 {
		return fmt.Errorf("%w: %s: no pages", ErrMalformed, x.doc.Name)
	}
	return nil
}

// errTextFull aborts content-stream interpretation once the text cap is
// reached, so that a compressed stream that inflates to gigabytes is not
// decompressed past the point where its text would be discarded anyway.
var errTextFull = errors.New("text cap reached")

// pdfText appends the text of every page to out and returns the page count.
// A page whose content stream does not parse is skipped, as a viewer would;
// the document is malformed only if no text could be read at all.
//
// It walks the page tree itself, with a node budget, rather than calling
// Reader.NumPage/Page: those trust the /Count entries and loop forever on a
// page tree that contains itself. It interprets content streams itself, with
// pdf.Interpret, rather than calling Reader.GetPlainText, which builds all the
// text of the document in memory with no bound.
func pdfText(r *pdf.Reader, out *textBuf) (pages int, err error) {
	defer func() {
		// The pdf package reports malformed input by panicking.
		if v := recover(); v != nil {
			err = fmt.Errorf("%v", v)
		}
	}()
	root := r.Trailer().Key("Root").Key("Pages")
	if root.Kind() != pdf.Dict {
		return 0, errors.New("no page tree")
	}
	// /Count is trusted only as an upper bound: walking stops once that
	// many pages were seen, which also ends a page tree that loops back
	// on itself without repeating its pages.
	limit := int(root.Key("Count").Int64())
	if limit <= 0 || limit > maxPDFTree {
		limit = maxPDFTree
	}
	budget := maxPDFTree
	var pageErr error
	var walk func(node pdf.Value, depth int)
	walk = func(node pdf.Value, depth int) {
		if budget <= 0 || depth > maxPDFNest || pages >= limit {
			return
		}
		budget--
		switch node.Key("Type").Name() {
		case "Pages":
			kids := node.Key("Kids")
			for i := 0; i < kids.Len(); i++ {
				walk(kids.Index(i), depth+1)
			}
		case "Page":
			pages++
			if !out.full {
				if err := pageText(pdf.Page{V: node}, out); err != nil && pageErr == nil {
					pageErr = fmt.Errorf("page %d: %v", pages, err)
				}
			}
		}
	}
	walk(root, 0)
	if pageErr != nil && len(out.b) == 0 {
		return pages, pageErr
	}
	return pages, nil
}

// pageText writes the text shown by one page's content stream, with line
// breaks where the text moves vertically and spaces at word-sized gaps, so
// that words positioned separately do not run together.
func pageText(p pdf.Page, out *textBuf) (err error) {
	contents := p.V.Key("Contents")
	if contents.IsNull() {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			if v == errTextFull {
				err = nil
				return
			}
			err = fmt.Errorf("%v", v)
		}
	}()
	encoders := map[string]pdf.TextEncoding{}
	var enc pdf.TextEncoding
	write := func(s string) {
		out.WriteString(s)
		if out.full {
			panic(errTextFull)
		}
	}
	show := func(raw string) {
		s := raw
		if enc != nil {
			s = enc.Decode(raw)
		}
		write(cleanPDFText(s))
	}
	lastY, haveY := 0.0, false
	out.separate('\n')
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT", "T*":
			out.separate('\n')
		case "Td", "TD":
			if n == 2 && math.Abs(args[1].Float64()) > tdNewLine {
				out.separate('\n')
			} else {
				out.separate(' ')
			}
		case "Tm":
			if n == 6 {
				y := args[5].Float64()
				if haveY && math.Abs(y-lastY) > tdNewLine {
					out.separate('\n')
				} else {
					out.separate(' ')
				}
				lastY, haveY = y, true
			}
		case "Tf":
			if n == 2 {
				name := args[0].Name()
				e, ok := encoders[name]
				if !ok {
					font := p.Font(name)
					e = font.Encoder()
					encoders[name] = e
				}
				enc = e
			}
		case "Tj", "'", "\"":
			if op != "Tj" {
				out.separate('\n')
			}
			if n > 0 {
				show(args[n-1].RawString())
			}
		case "TJ":
			if n == 1 {
				a := args[0]
				for i := 0; i < a.Len(); i++ {
					v := a.Index(i)
					switch v.Kind() {
					case pdf.String:
						show(v.RawString())
					case pdf.Integer, pdf.Real:
						if v.Float64() < tjSpace {
							out.separate(' ')
						}
					}
				}
			}
		}
	})
	return nil
}

// cleanPDFText keeps decoded PDF text valid, printable UTF-8: fonts without
// a usable encoding yield raw bytes.
func cleanPDFText(s string) string {
	s = strings.ToValidUTF8(s, "")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
}

// ---- stream plumbing ----

// countingReader counts the bytes read from the upload and refuses to read
// past max, so that an oversized upload is rejected after max+1 bytes rather
// than after it has been read to the end.
//
// It also enforces a span limit: the bytes read since the last markSpan call
// may not exceed spanMax. Parsers that must hold a whole record (the CSV
// reader) or token (the JSON decoder) mark after each one, which bounds the
// memory a single enormous record can take.
type countingReader struct {
	r        io.Reader
	n, max   int64
	tooLarge bool
	readErr  error // a failure of r itself, not of the content

	spanMax, mark int64
	spanErr       error
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.tooLarge {
		return 0, ErrTooLarge
	}
	if c.spanErr != nil {
		return 0, c.spanErr
	}
	if c.spanMax > 0 && c.n-c.mark > c.spanMax {
		c.spanErr = fmt.Errorf("%w: a single record or value is larger than %d bytes", ErrTooLarge, c.spanMax)
		return 0, c.spanErr
	}
	// Never ask for more than can be accepted, so that one large Read
	// (the JSON decoder doubles its buffer) cannot overshoot a limit.
	if rest := c.max + 1 - c.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	if c.spanMax > 0 {
		if rest := c.spanMax + 1 - (c.n - c.mark); int64(len(p)) > rest {
			p = p[:rest]
		}
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		c.tooLarge = true
		return n, ErrTooLarge
	}
	if err != nil && err != io.EOF {
		c.readErr = err
	}
	return n, err
}

func (c *countingReader) startSpan(limit int64) {
	c.spanMax = limit
	c.mark = c.n
}

func (c *countingReader) markSpan() { c.mark = c.n }

// textGuard passes bytes through while checking that they are text: no NUL
// bytes and valid UTF-8, including sequences split across reads. The CSV and
// JSON parsers would otherwise accept (or silently replace) binary data.
type textGuard struct {
	r     io.Reader
	carry [utf8.UTFMax]byte // an incomplete rune at the end of the last read
	nc    int
	off   int64
	err   error
}

func (g *textGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	if n > 0 {
		if cerr := g.check(p[:n]); cerr != nil {
			g.err = cerr
			return 0, cerr
		}
		g.off += int64(n)
	}
	if err == io.EOF && g.nc > 0 {
		g.err = fmt.Errorf("%w: truncated UTF-8 sequence at end of file", ErrUnsupported)
		return 0, g.err
	}
	return n, err
}

func (g *textGuard) check(b []byte) error {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return fmt.Errorf("%w: NUL byte at offset %d (binary data)", ErrUnsupported, g.off+int64(i))
	}
	if g.nc > 0 {
		need := runeLen(g.carry[0])
		take := min(need-g.nc, len(b))
		copy(g.carry[g.nc:], b[:take])
		g.nc += take
		b = b[take:]
		if g.nc < need {
			return nil
		}
		if !utf8.Valid(g.carry[:need]) {
			return fmt.Errorf("%w: invalid UTF-8 near offset %d", ErrUnsupported, g.off)
		}
		g.nc = 0
	}
	end := completeRunes(b)
	if !utf8.Valid(b[:end]) {
		return fmt.Errorf("%w: invalid UTF-8 near offset %d", ErrUnsupported, g.off)
	}
	g.nc = copy(g.carry[:], b[end:])
	return nil
}

// runeLen is the length of the UTF-8 sequence that lead byte b starts.
func runeLen(b byte) int {
	switch {
	case b < 0xE0:
		return 2
	case b < 0xF0:
		return 3
	default:
		return 4
	}
}

// textBuf accumulates extracted text up to max bytes, cutting at a rune
// boundary. Once full it ignores further writes, so callers can keep
// streaming (to count rows) without growing memory.
type textBuf struct {
	b    []byte
	max  int
	full bool
}

// WriteString appends s, or as much of it as fits.
func (t *textBuf) WriteString(s string) {
	if t.full || s == "" {
		return
	}
	room := t.max - len(t.b)
	if len(s) <= room {
		t.b = append(t.b, s...)
		return
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	t.b = append(t.b, s[:cut]...)
	t.full = true
}

// separate writes sep unless the text is empty or already ends in
// whitespace; a newline upgrades a trailing space.
func (t *textBuf) separate(sep byte) {
	if t.full || len(t.b) == 0 {
		return
	}
	last := t.b[len(t.b)-1]
	switch {
	case last == '\n':
	case last == ' ' && sep == '\n':
		t.b[len(t.b)-1] = '\n'
	case last == ' ':
	default:
		t.WriteString(string(sep))
	}
}

// String returns the text, trimmed of surrounding whitespace and of any
// incomplete rune a fragmented write left at the cut.
func (t *textBuf) String() string {
	b := t.b[:completeRunes(t.b)]
	return strings.TrimSpace(string(b))
}
