package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	"contractkit/conformance/client"
	"contractkit/judge"
	"contractkit/mockserver"
	"contractkit/spec"
)

// serve starts the mock in process with one account, the way a test of a
// client would, and returns its base address and a function that stops it.
func serve(key string) (*url.URL, func()) {
	srv, err := mockserver.New(mockserver.Config{Keys: []string{key}})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	base, err := url.Parse(ts.URL)
	if err != nil {
		panic(err)
	}
	return base, ts.Close
}

// A client is built from the service's base address and the API keys; Do
// sends one request and records the exchange, and the judges read it.
func ExampleClient_Do() {
	base, stop := serve("example-key")
	defer stop()
	c := client.New(base, "example-key", "", 10*time.Second)
	c.SetJudge(judge.New(spec.Strict(), spec.Declared())) // every answer read is judged

	x := c.Do(context.Background(), client.Request{
		Method: http.MethodGet,
		Path:   "/api/v1/evaluations",
		Query:  url.Values{"status": {"pending"}},
	})
	fmt.Println("status:", x.Status)
	fmt.Println("findings:", c.Verdict(x).Lines())

	body, err := judge.ParseJSON(x.Raw)
	if err != nil {
		panic(err)
	}
	fmt.Println("envelope status:", body.Get("status").Str())
	fmt.Println("data:", body.Get("data"))
	// Output:
	// status: 200
	// findings: []
	// envelope status: success
	// data: {"evaluations":[],"page":1,"per_page":20,"total":0}
}

// A refusal is a response too: Do never returns an error for a status code,
// and the judge checks the error envelope of seed §1.
func ExampleClient_Do_refused() {
	base, stop := serve("example-key")
	defer stop()
	c := client.New(base, "example-key", "", 10*time.Second)
	c.SetJudge(judge.New(spec.Strict(), spec.Declared()))

	x := c.Do(context.Background(), client.Request{Method: http.MethodGet, Path: "/api/v1/evaluations/999999"})
	fmt.Println("status:", x.Status)
	fmt.Println("status findings:", judge.Status(x, http.StatusNotFound).Lines())
	fmt.Println("findings:", c.Verdict(x).Lines())
	// Output:
	// status: 404
	// status findings: []
	// findings: []
}

// The recorded exchange never holds an API key: headers and bodies are
// redacted, and the curl command that reproduces the request reads the key
// from the environment variable that holds it.
func ExampleClient_Log() {
	base, stop := serve("example-key")
	defer stop()
	c := client.New(base, "example-key", "", 10*time.Second)

	c.Do(context.Background(), client.Request{Method: http.MethodGet, Path: "/api/v1/evaluations"})
	for _, x := range c.Log() {
		fmt.Println(x.RequestHeader.Get("Authorization"))
		fmt.Println(x.Status)
	}
	// Output:
	// Bearer <redacted:api-key>
	// 200
}
