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
	"errors"
	"fmt"
	"io"
	"time"
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
	// DefaultMaxDuration is the work one file may cost: far more than any
	// honest file of the size limit needs, short enough that a crafted
	// one (a compressed stream that inflates without end) cannot hold a
	// request.
	DefaultMaxDuration = 2 * time.Second
	// MaxJSONDepth is the deepest JSON nesting accepted; deeper documents
	// are reported as ErrMalformed rather than risk unbounded recursion.
	MaxJSONDepth = 32
)

const (
	sniffLen   = 512      // bytes inspected to detect the kind, as net/http does
	readBuffer = 32 << 10 // read-ahead of the stream, bounded
	minSpan    = 1 << 20  // smallest limit on one CSV record / JSON token / JSONL line
	bomUTF8    = "\uFEFF" // byte order mark some editors prepend to UTF-8 files
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
	// ErrTimeBudget reports a file whose extraction took longer than
	// Limits.MaxDuration.
	ErrTimeBudget = errors.New("retrieval: time budget exceeded")
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
	// MaxDuration is the time one file's extraction may work, not
	// counting the time spent waiting for the upload's bytes (a slow
	// client is not a costly file). Past it the file fails with
	// ErrTimeBudget.
	MaxDuration time.Duration

	now func() time.Time // tests inject a fake clock; nil: time.Now
}

func (l Limits) normalized() Limits {
	if l.MaxTextBytes <= 0 {
		l.MaxTextBytes = DefaultMaxTextBytes
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxDuration <= 0 {
		l.MaxDuration = DefaultMaxDuration
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
	now := lim.now
	if now == nil {
		now = time.Now
	}
	clock := &workClock{now: now, start: now(), max: lim.MaxDuration}
	x := &extractor{
		doc:   Doc{Name: name},
		lim:   lim,
		clock: clock,
		src:   &countingReader{r: r, max: lim.MaxFileBytes, clock: clock},
		out:   &textBuf{max: int(min(lim.MaxTextBytes, int64(maxInt)))},
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
	clock *workClock
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
	case err == nil && !x.clock.over:
		return nil
	case x.clock.over:
		return fmt.Errorf("%w: %s took more than %s to read", ErrTimeBudget, x.doc.Name, x.lim.MaxDuration)
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

// workClock measures the work of one extraction: the time since it started
// less the time spent waiting for the upload's bytes.
type workClock struct {
	now    func() time.Time
	start  time.Time
	waited time.Duration
	max    time.Duration
	over   bool
}

// expired reports (and remembers) whether the work is past its budget.
func (c *workClock) expired() bool {
	if !c.over && c.now().Sub(c.start)-c.waited > c.max {
		c.over = true
	}
	return c.over
}
