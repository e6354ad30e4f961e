package retrieval

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// readCSV writes each data record as one line of "header: value" pairs; the
// first record is the header.
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
