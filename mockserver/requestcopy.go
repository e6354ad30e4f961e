package mockserver

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
)

// journalBody copies what the handler reads of a request body: the first
// journalBodyBytes of a plain body; of a multipart body only a summary of
// its parts (names, file names, types, sizes, short field values), parsed as
// the bytes pass, because uploads are large and their files are not ours to
// keep.
type journalBody struct {
	io.ReadCloser
	n         int64
	buf       strings.Builder
	truncated bool

	// multipart: the copy goes through a pipe to a parser goroutine.
	pw    *io.PipeWriter
	done  chan struct{}
	parts []journalPart
	more  bool // parts beyond journalParts
	bad   string
}

type journalPart struct {
	Name, FileName, ContentType, Value string
	Size                               int64
}

func newJournalBody(r *http.Request) *journalBody {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b := &journalBody{ReadCloser: r.Body}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" && params["boundary"] != "" {
		pr, pw := io.Pipe()
		b.pw, b.done = pw, make(chan struct{})
		go b.parse(multipart.NewReader(pr, params["boundary"]), pr)
	}
	return b
}

func (b *journalBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	switch {
	case b.pw != nil:
		_, _ = b.pw.Write(p[:n]) // the parser drains everything, even after an error
	case b.buf.Len() < journalBodyBytes:
		keep := min(n, journalBodyBytes-b.buf.Len())
		b.buf.Write(p[:keep])
		b.truncated = b.truncated || keep < n
	case n > 0:
		b.truncated = true
	}
	return n, err
}

func (b *journalBody) parse(mr *multipart.Reader, pr *io.PipeReader) {
	defer close(b.done)
	defer func() { _, _ = io.Copy(io.Discard, pr) }()
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return
		}
		if err != nil {
			b.bad = "the body is not complete multipart"
			return
		}
		jp := journalPart{Name: part.FormName(), FileName: part.FileName(), ContentType: part.Header.Get("Content-Type")}
		if jp.FileName == "" {
			var v bytes.Buffer
			n, _ := io.Copy(&v, io.LimitReader(part, journalPartValue))
			rest, _ := io.Copy(io.Discard, part)
			jp.Size, jp.Value = n+rest, v.String()
		} else {
			jp.Size, _ = io.Copy(io.Discard, part)
		}
		if len(b.parts) < journalParts {
			b.parts = append(b.parts, jp)
		} else {
			b.more = true
		}
	}
}

// finish reads what the handler left of a small body (a request refused
// before its body was read, such as a 422 on a query parameter), so the
// journal shows what was sent; then it ends the multipart parser.
func (b *journalBody) finish(r *http.Request) {
	if r.ContentLength > 0 && r.ContentLength <= journalBodyBytes && b.n < r.ContentLength {
		_, _ = io.Copy(io.Discard, io.LimitReader(b, r.ContentLength-b.n))
	}
	if b.pw != nil {
		_ = b.pw.Close()
		<-b.done
	}
	if r.ContentLength > b.n {
		b.n = r.ContentLength
		b.truncated = b.truncated || b.pw == nil
	}
}

// summary returns the body as the journal shows it.
func (b *journalBody) summary() (string, int64, bool) {
	if b.pw == nil {
		return b.buf.String(), b.n, b.truncated
	}
	var s strings.Builder
	fmt.Fprintf(&s, "multipart/form-data, %d part(s) (summary: the raw body is not recorded)\n", len(b.parts))
	for _, p := range b.parts {
		if p.FileName != "" {
			fmt.Fprintf(&s, "%s: file %q (%s, %d bytes)\n", p.Name, p.FileName, orDefault(p.ContentType, "no type"), p.Size)
		} else {
			fmt.Fprintf(&s, "%s = %q\n", p.Name, p.Value+ifTrue(p.Size > int64(len(p.Value)), "…"))
		}
	}
	if b.more {
		fmt.Fprintf(&s, "… more than %d parts\n", journalParts)
	}
	if b.bad != "" {
		s.WriteString(b.bad + "\n")
	}
	return s.String(), b.n, true
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func ifTrue(c bool, s string) string {
	if c {
		return s
	}
	return ""
}
