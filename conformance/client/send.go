package client

// Building and sending one request: its URL and body (JSON, raw or
// multipart), its headers and key, the stall rule's withholding before it
// goes out, and the recording of what came back (finish).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"contractkit/bound"
	"contractkit/exchange"
	"contractkit/judge"
)

// send builds r, withholds it when its operation is stopped, and sends it
// once: the response with its body unread, or nil with x saying why.
func (c *Client) send(ctx context.Context, r Request) (*http.Response, *exchange.Exchange) {
	body, contentType, shown, curlData, err := encodeBody(r)
	u := c.url(r.Path, r.query())
	c.mu.Lock()
	c.seq++
	x := &exchange.Exchange{Method: r.Method, URL: c.redact.String(u), Path: r.Path, RawQuery: r.query(), Seq: c.seq}
	c.mu.Unlock()
	if err != nil {
		x.Error = "building the request: " + err.Error()
		c.record(x)
		return nil, x
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, bytes.NewReader(body))
	if err != nil {
		x.Error = "building the request: " + err.Error()
		c.record(x)
		return nil, x
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if body != nil && r.Chunked {
		// A body of unknown length goes out chunked.
		req.Body, req.ContentLength, req.GetBody = io.NopCloser(bytes.NewReader(body)), -1, nil
	}
	if body != nil && r.Continue {
		req.Header.Set("Expect", "100-continue") // the transport waits for the 100 (ExpectContinueTimeout)
	}
	switch r.Auth {
	case AuthKey:
		req.Header.Set("Authorization", "Bearer "+c.key)
	case AuthKey2:
		req.Header.Set("Authorization", "Bearer "+c.key2)
	case AuthRaw:
		req.Header["Authorization"] = []string{r.RawAuth}
	case AuthNear:
		req.Header.Set("Authorization", "Bearer "+nearKey(c.key, r.Near))
	}
	x.RequestHeader = c.redact.Header(req.Header)
	x.RequestBody = c.redact.String(exchange.Excerpt(shown))
	x.Sent = body
	curlHeader := req.Header
	if body != nil && r.Chunked {
		curlHeader = req.Header.Clone()
		curlHeader.Set("Transfer-Encoding", "chunked")
	}
	x.Curl = exchange.Curl(c.redact, r.Method, u, curlHeader, curlData, r.Form)

	if reason, stopped := c.withheld(req); stopped {
		x.Error = "not sent: " + reason
		x.Withheld = stoppedError(reason)
		c.record(x)
		return nil, x
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	x.Duration = time.Since(start)
	if err != nil {
		err = bound.FromTransport(err)
		c.observe(ctx, c.Area(), req, err, false)
		x.Error = c.redact.String(err.Error())
		c.record(x)
		c.judgeRead(ctx, x, nil, false)
		return nil, x
	}
	x.Status = resp.StatusCode
	x.ResponseHeader = c.redact.Header(resp.Header)
	return resp, x
}

func (c *Client) finish(ctx context.Context, resp *http.Response, x *exchange.Exchange, body []byte, readErr error) {
	c.observe(ctx, c.Area(), resp, readErr, judge.IsEventStream(x.Status, x.ResponseHeader))
	body = trimCut(body, readErr)
	c.cov.Observe(x.Method, x.Path, x.Status, x.ResponseHeader.Get("Content-Type"), body)
	x.Raw = body
	x.ResponseBody = c.redact.String(excerpt(body, readErr))
	if readErr != nil {
		x.Error = "reading the body: " + c.redact.String(readErr.Error())
	}
	c.record(x)
}

// query is the query string as the request sends it.
func (r Request) query() string {
	if r.RawQuery != "" {
		return r.RawQuery
	}
	if len(r.Query) == 0 {
		return ""
	}
	return r.Query.Encode()
}

// url is the request's URL: path (escaped as it is to be sent: an id
// written %34 stays so) joined to the base URL, with the query string.
func (c *Client) url(path, query string) string {
	u := *c.base
	prefix := strings.TrimRight(u.Path, "/")
	u.Path, u.RawPath = prefix+path, ""
	if strings.Contains(path, "%") {
		if p, err := url.PathUnescape(path); err == nil {
			u.Path, u.RawPath = prefix+p, strings.TrimRight(c.base.EscapedPath(), "/")+path
		}
	}
	u.RawQuery = query
	return u.String()
}

// encodeBody returns the wire body, its content type, the text shown in a
// report and the data for a curl command.
func encodeBody(r Request) (body []byte, contentType, shown string, curlData []byte, err error) {
	switch {
	case r.Form != nil:
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		var parts []string
		for _, f := range r.Form.Fields {
			if err := w.WriteField(f.Name, f.Value); err != nil {
				return nil, "", "", nil, err
			}
			parts = append(parts, fmt.Sprintf("%s=%q", f.Name, f.Value))
		}
		for _, f := range r.Form.Files {
			h := make(textproto.MIMEHeader)
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f.Field, f.Name))
			h.Set("Content-Type", "application/octet-stream")
			pw, err := w.CreatePart(h)
			if err != nil {
				return nil, "", "", nil, err
			}
			if _, err := pw.Write(f.Content); err != nil {
				return nil, "", "", nil, err
			}
			parts = append(parts, fmt.Sprintf("%s=@%s (%d bytes)", f.Field, f.Name, len(f.Content)))
		}
		if err := w.Close(); err != nil {
			return nil, "", "", nil, err
		}
		return buf.Bytes(), w.FormDataContentType(), "multipart/form-data: " + strings.Join(parts, ", "), nil, nil
	case r.JSON != nil:
		b, err := json.Marshal(r.JSON)
		if err != nil {
			return nil, "", "", nil, err
		}
		return b, "application/json", string(b), b, nil
	case r.Body != nil:
		return r.Body, r.ContentType, string(r.Body), r.Body, nil
	}
	return nil, "", "", nil, nil
}
