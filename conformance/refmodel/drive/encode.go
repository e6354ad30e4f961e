package drive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// Encodings real clients send: a charset on the media type, another case,
// Accept lists, a JSON type on a call without a body, a form field in two
// parts, text outside ASCII, file text an answer will quote, JSON written
// with \u escapes.

// quotingText is a file's text with what a JSON answer quoting it must
// escape: quotes, backslashes, a tab, line breaks.
const quotingText = "Warranty label: the sticker reads \"24 months\" under C:\\robots\\arm\\ and\tthe tab before it.\n" +
	"Warranty label, line two: \"return\\refund\" is printed in bold.\r\nWarranty label, line three: done.\n" +
	"Warranty label, line four: 𝐌𝐚𝐭𝐡 😀 👩‍💻 Cafe\u0301 שלום مرحبا 𠮷 (text from every Unicode plane).\n"

// quotingQuestion asks what the quoting text answers.
const quotingQuestion = "What does the warranty label sticker read?"

// nonASCII is form and query text outside ASCII: Czech, Japanese, a mark
// and an emoji beyond the BMP.
func (g *gen) nonASCII(what string) string {
	g.n++
	return fmt.Sprintf("Příručka údržby %s — 日本語 ✓ 😀 %d", what, g.n)
}

// encode changes the call as the encoding dimension e says; false when the
// call has nothing it applies to.
func (g *gen) encode(op *inputs.Op, c *refmodel.Call, e *inputs.Encoding) bool {
	switch e.Header {
	case "Content-Type":
		if c.Body == nil {
			return false
		}
		c.ContentType = e.Text
		return true
	case "Accept":
		c.Accept = e.Text
		return true
	}
	switch e.Trick {
	case inputs.TrickNoBody:
		c.ContentType = "application/json"
		return true
	case inputs.TrickTwoParts:
		_, name, _ := strings.Cut(e.Field, ":")
		if c.Form == nil || len(c.Form.Fields[name]) == 0 {
			return false
		}
		f := *c.Form
		f.Fields = cloneFields(c.Form.Fields)
		second := f.Fields[name][0]
		if field := op.Field(e.Field); field != nil && field.Kind == nil {
			second = g.formText(op, field)
		}
		f.Fields[name] = append(f.Fields[name], second)
		c.Form = &f
		return true
	case inputs.TrickNonASCII:
		if _, name, ok := strings.Cut(e.Field, ":"); ok && strings.HasPrefix(e.Field, "query:") {
			if c.Query == nil {
				c.Query = query()
			}
			c.Query.Set(name, g.nonASCII(name))
			return true
		}
		if c.Form == nil {
			return false
		}
		f := *c.Form
		f.Fields = cloneFields(c.Form.Fields)
		for _, field := range topFields(op) {
			if field != op.Files && field.Split == nil && field.Type() == "string" {
				f.Fields[field.Name] = []string{g.nonASCII(field.Name)}
			}
		}
		c.Form = &f
		return true
	case inputs.TrickQuoting, inputs.TrickFileName:
		if op.Files == nil {
			return false
		}
		if c.Form == nil {
			c.Form = &refmodel.Form{Fields: map[string][]string{}}
		}
		f := *c.Form
		name, text := "warranty-label.txt", quotingText
		if e.Trick == inputs.TrickFileName {
			name, text = "Příručka údržby 日本.md", "# Příručka\n\nZáruka trvá 24 měsíců od dodání.\n"
		}
		f.Files = append([]refmodel.File{{Field: op.Files.Name, Name: name, Content: []byte(text)}}, c.Form.Files...)
		c.Form = &f
		return true
	case inputs.TrickEscaped:
		b, ok := c.Body.(map[string]any)
		if !ok {
			return false
		}
		nb := cloneMap(b)
		for _, f := range topFields(op) {
			if f.Type() == "string" && len(f.Schema.Enum) == 0 && f.Split == nil {
				if _, has := nb[f.Name]; has || f.Required {
					if s, ok := nb[f.Name].(string); !ok || utf8.RuneCountInString(s) < 40 {
						nb[f.Name] = g.nonASCII(f.Name)
					}
				}
			}
		}
		raw, err := json.Marshal(nb)
		if err != nil {
			return false
		}
		c.Body, c.Raw, c.ContentType = nil, escapeJSON(raw), "application/json"
		return true
	}
	return false
}

// escapeJSON writes every character outside ASCII of a JSON text as a \u
// escape (a surrogate pair beyond the BMP), as some clients do.
func escapeJSON(raw []byte) []byte {
	var b bytes.Buffer
	for _, r := range string(raw) {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.Bytes()
}
