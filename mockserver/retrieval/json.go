package retrieval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

const recordLine = 380 // flattened records are wrapped at this many bytes so a line fits one passage

// readJSON flattens one JSON document into "path: value" records: one per
// element of a top-level array, else one for the whole value.
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

// readJSONLines flattens every non-empty line as a JSON value of its own,
// holding at most one line (bounded by spanLimit) at a time.
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
