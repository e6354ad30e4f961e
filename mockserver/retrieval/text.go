package retrieval

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"strings"
)

// readText keeps plain text and Markdown line by line, counting the
// non-empty lines as rows; Markdown lines lose their markup (markdownLine).
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

// listMarker is a Markdown list item's marker: "- ", "* ", "+ ", "1. ", "2) ".
var listMarker = regexp.MustCompile(`^(?:[-*+]|\d{1,3}[.)])\s+`)

// markdownLine strips the markup that would read badly when a line is quoted
// in an answer: heading and quote markers, code fences, table rules and
// emphasis. Only the start of a line is inspected for block markers.
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
