package mockserver

import (
	"strconv"

	"contractkit/internal/curl"
)

// curlHeaders are the request headers a curl command repeats: those that
// change the answer. Browser noise (User-Agent, Sec-*, Origin) is left out.
var curlHeaders = []string{"Accept", "Content-Type", "Prefer", "X-Mock-Delay", "X-Mock-Stream-Fault"}

// curlAuth is the Authorization line of every journal command: the key,
// which the journal never keeps (maskHeaders), is read from $API_KEY.
var curlAuth = curl.Header{Name: "Authorization", Value: "Bearer " + masked}

// curlWord renders the Authorization line with a reference to $API_KEY in
// place of the masked key; every other value is single-quoted.
func curlWord(s string) string {
	if s == curlAuth.Name+": "+curlAuth.Value {
		return curl.Ref(s, masked, "API_KEY", nil)
	}
	return curl.Quote(s)
}

// curlCommand rebuilds the recorded request as a command to paste into a
// shell, the key read from $API_KEY.
func curlCommand(e *journalEntry) string {
	scheme := "http"
	if e.tls {
		scheme = "https"
	}
	u := scheme + "://" + e.host + e.Path
	if e.Query != "" {
		u += "?" + e.Query
	}
	cmd := curl.Command{Flags: []string{"-sS"}, Method: e.Method, URL: u, Word: curlWord, Lines: true}
	if e.Response.Stream != nil {
		cmd.Flags = append(cmd.Flags, "-N")
	}
	if e.Preflight {
		// As the browser sent it: no key, the CORS request headers.
		for _, name := range []string{"Origin", "Access-Control-Request-Method", "Access-Control-Request-Headers"} {
			for _, v := range e.Request.Headers.Values(name) {
				cmd.Headers = append(cmd.Headers, curl.Header{Name: name, Value: v})
			}
		}
		return cmd.String()
	}
	cmd.Headers = []curl.Header{curlAuth}
	multi := e.multipart != nil
	for _, name := range curlHeaders {
		if multi && name == "Content-Type" {
			continue // curl -F writes it, with its own boundary
		}
		for _, v := range e.Request.Headers.Values(name) {
			cmd.Headers = append(cmd.Headers, curl.Header{Name: name, Value: v})
		}
	}
	switch {
	case multi:
		for _, p := range e.multipart {
			if p.FileName != "" {
				// The file name sent is the path curl reads: the user has the file.
				cmd.Form = append(cmd.Form, curl.Part{Name: p.Name, File: p.FileName, Type: p.ContentType})
			} else {
				cmd.Form = append(cmd.Form, curl.Part{Name: p.Name, Value: p.Value})
			}
		}
	case e.Request.BodyTruncated:
		cmd.Tail = []string{"--data-binary @body  # the body (" + strconv.FormatInt(e.Request.BodySize, 10) + " bytes) was too large to record"}
	case e.Request.Body != "":
		cmd.Data = []byte(e.Request.Body)
	}
	return cmd.String()
}
