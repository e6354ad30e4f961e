// Package curl renders a request as a curl command line a user can paste
// into a POSIX shell. It is the one builder behind the mock's journal
// ("Copy as curl", GET /admin/requests) and the conformance suite's reports
// ("Reproduce:"); each caller chooses its flags, its layout, and how a
// secret it must not show is rendered (Command.Word, Ref).
package curl

import "strings"

// Quote returns s as one single-quoted shell word: nothing inside it is
// expanded; a single quote in s closes the quotes, is escaped, and they
// open again.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// doubleQuoted escapes the characters a shell interprets inside double quotes.
var doubleQuoted = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")

// EscapeDouble escapes s for the inside of a double-quoted shell word.
func EscapeDouble(s string) string { return doubleQuoted.Replace(s) }

// Ref renders s as one double-quoted shell word in which every occurrence
// of secret reads as a reference to the environment variable env ("$env"),
// so the command runs with the secret and never shows it. The text around
// the secret goes through mask first (nil: as it is), then is escaped.
func Ref(s, secret, env string, mask func(string) string) string {
	parts := strings.Split(s, secret)
	for i, p := range parts {
		if mask != nil {
			p = mask(p)
		}
		parts[i] = EscapeDouble(p)
	}
	return `"` + strings.Join(parts, "$"+env) + `"`
}

// Header is one request header, rendered -H 'Name: Value'.
type Header struct{ Name, Value string }

// Part is one part of a multipart/form-data body: a text field, or, when
// File is set, a file curl reads.
type Part struct {
	Name string
	// Value is a text field's value.
	Value string
	// File is the path curl reads a file part from.
	File string
	// FileName, when set, is the file name sent (;filename=), where it
	// differs from File's.
	FileName string
	// Type, when set, is the part's content type (;type=).
	Type string
}

// Command is a request to render. The zero value of every field but URL
// leaves its part out.
type Command struct {
	// Flags are curl's own options, written as they are after "curl"
	// ("-sS", "-i", "-N").
	Flags []string
	// Method is written -X Method unless it is GET.
	Method string
	URL    string
	// Headers are written in the order given.
	Headers []Header
	// Form is a multipart body, its parts in the order given: text fields
	// as -F 'name=value' (--form-string with LiteralFields, so curl never
	// reads a value starting with @ or < as a file), files as
	// -F 'name=@File;filename=FileName;type=Type'.
	Form          []Part
	LiteralFields bool
	// Data is a body sent as it is (--data-raw); nil sends none.
	Data []byte
	// Tail is written as it is after everything else: words already quoted,
	// or a trailing "# comment" (a body too large to show, say).
	Tail []string
	// Word renders each value the command shows — the URL, each "Name:
	// value" header, each "name=value" text field and the body — as one
	// shell word; nil is Quote. It is the hook for secrets: a caller renders
	// a value holding one with Ref, as a reference to the environment
	// variable that holds it. (File parts are always Quoted: they are paths.)
	Word func(string) string
	// Lines puts every argument after the URL on its own line, continued
	// with a backslash; otherwise the command is one line.
	Lines bool
}

// String renders the command.
func (c Command) String() string {
	word := c.Word
	if word == nil {
		word = Quote
	}
	var head strings.Builder
	head.WriteString("curl")
	for _, f := range c.Flags {
		head.WriteString(" " + f)
	}
	if c.Method != "GET" {
		head.WriteString(" -X " + c.Method)
	}
	head.WriteString(" " + word(c.URL))
	args := []string{head.String()}
	for _, h := range c.Headers {
		args = append(args, "-H "+word(h.Name+": "+h.Value))
	}
	for _, p := range c.Form {
		switch {
		case p.File != "":
			f := p.Name + "=@" + p.File
			if p.FileName != "" {
				f += ";filename=" + p.FileName
			}
			if p.Type != "" {
				f += ";type=" + p.Type
			}
			args = append(args, "-F "+Quote(f))
		case c.LiteralFields:
			args = append(args, "--form-string "+word(p.Name+"="+p.Value))
		default:
			args = append(args, "-F "+word(p.Name+"="+p.Value))
		}
	}
	if c.Data != nil {
		args = append(args, "--data-raw "+word(string(c.Data)))
	}
	args = append(args, c.Tail...)
	sep := " "
	if c.Lines {
		sep = " \\\n  "
	}
	return strings.Join(args, sep)
}
