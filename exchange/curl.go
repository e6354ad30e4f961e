package exchange

import (
	"fmt"
	"net/http"
	"sort"

	"contractkit/internal/curl"
)

// CurlBodyLimit bounds the body written into a curl command; a larger body
// is elided (the check that sent it says how it was built).
const CurlBodyLimit = 8192

// Curl renders a command that repeats a request: the keys appear as
// references to the environment variables that hold them (r), a multipart
// form's files are read from files named like the uploaded ones.
func Curl(r *Redactor, method, u string, h http.Header, data []byte, form *Form) string {
	cmd := curl.Command{Flags: []string{"-sS", "-i"}, Method: method, URL: u, Word: r.ShellValue, LiteralFields: true}
	names := make([]string, 0, len(h))
	for k := range h {
		if form != nil && k == "Content-Type" {
			continue // curl writes its own boundary
		}
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range h[k] {
			cmd.Headers = append(cmd.Headers, curl.Header{Name: k, Value: v})
		}
	}
	switch {
	case form != nil:
		for _, f := range form.Fields {
			cmd.Form = append(cmd.Form, curl.Part{Name: f.Name, Value: f.Value})
		}
		for _, f := range form.Files {
			src := f.Source
			if src == "" {
				src = f.Name
			}
			cmd.Form = append(cmd.Form, curl.Part{Name: f.Field, File: src, FileName: f.Name})
		}
	case len(data) > CurlBodyLimit:
		cmd.Tail = []string{"--data-binary", curl.Quote(fmt.Sprintf("@body-%dB.json", len(data))),
			fmt.Sprintf("# a %d-byte body, not shown", len(data))}
	case data != nil:
		cmd.Data = data
	}
	return cmd.String()
}
