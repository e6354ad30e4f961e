package retrieval

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

const (
	maxPDFTree = 20000  // page-tree nodes visited: bounds work on huge or cyclic page trees
	maxPDFNest = 64     // page-tree depth visited
	tdNewLine  = 0.5    // vertical text movement (in text space units) treated as a new line
	tjSpace    = -200.0 // TJ kerning (thousandths of an em) wide enough to be a word gap
	tmpPattern = "upload-*.pdf"
)

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
	rd, err := pdf.NewReader(&timedReaderAt{r: f, clock: x.clock}, n)
	if errors.Is(err, pdf.ErrInvalidPassword) {
		// Well-formed, but its text cannot be read without the password.
		return fmt.Errorf("%w: %s is password-protected", ErrUnsupported, x.doc.Name)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrMalformed, x.doc.Name, err)
	}
	pages, err := pdfText(rd, x.out, x.clock)
	x.doc.Rows = pages
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrMalformed, x.doc.Name, err)
	}
	if pages == 0 {
		return fmt.Errorf("%w: %s: no pages", ErrMalformed, x.doc.Name)
	}
	return nil
}

// checkEvery is how many content-stream operators run between two looks at
// the clock.
const checkEvery = 256

// timedReaderAt fails every read once the extraction is past its time
// budget, which stops the PDF reader even inside a compressed stream that
// inflates to no operator at all.
type timedReaderAt struct {
	r     io.ReaderAt
	clock *workClock
}

func (t *timedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if t.clock.expired() {
		return 0, ErrTimeBudget
	}
	return t.r.ReadAt(p, off)
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
func pdfText(r *pdf.Reader, out *textBuf, clock *workClock) (pages int, err error) {
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
		if budget <= 0 || depth > maxPDFNest || pages >= limit || clock.expired() {
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
				if err := pageText(pdf.Page{V: node}, out, clock); err != nil && pageErr == nil {
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
func pageText(p pdf.Page, out *textBuf, clock *workClock) (err error) {
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
	ops := 0
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		if ops++; ops%checkEvery == 0 && clock.expired() {
			panic(errTextFull) // stop here; Extract reports the time budget
		}
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
