package spectest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"contractkit/spec/spectest"
)

// printer stands in for the test's *testing.T, which is what a test passes.
type printer struct{}

func (printer) Helper() {}
func (printer) Errorf(format string, args ...any) {
	// The report's first two lines: what broke the contract, and where.
	lines := strings.SplitN(fmt.Sprintf(format, args...), "\n", 3)
	fmt.Println(strings.Join(lines[:min(2, len(lines))], "\n"))
}

// A test wraps its client's transport; a server that sends a model id as a
// string fails the test, which is told the operation, the status and the
// field. The answer still reaches the test.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"success","data":{"id":"seven","name":"Support bot"}}`)
	}))
	defer srv.Close()

	client := spectest.NewClient(printer{}, nil) // in a test: spectest.NewClient(t, nil)
	resp, err := client.Get(srv.URL + "/api/v1/user/model/7")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println("the test still reads", resp.StatusCode)
	// Output:
	// spectest: contract: getModel (GET /api/v1/user/model/7) → 200 does not match the contract:
	// 	data.id: got string, want integer
	// the test still reads 200
}
