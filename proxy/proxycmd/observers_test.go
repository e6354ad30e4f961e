package proxycmd

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contractkit/coverage"
	"contractkit/fixtures"
)

// The command's observers get the traffic as it passed: a session through
// the proxy becomes a contract coverage (an inference stream's chunks
// included) and a fixture set the mock loads, holding the dataset the
// session created.
func TestObserversGetTheTraffic(t *testing.T) {
	code, out, dir := runProxy(t, newMock(t, "", 0).URL, func(base string) {
		for _, path := range []string{"/api/v1/user/model", "/api/v1/user/model/4", "/api/v1/user/dataset", "/api/v1/evaluations"} {
			get(t, http.DefaultClient, base, path)
		}
		send(t, base, "POST", "/api/v1/user/inference", "application/json", `{"model_id":4,"query":"What is the warranty period?"}`)
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		mw.WriteField("dataset_name", "proxy-test")
		fw, _ := mw.CreateFormFile("files", "notes.txt")
		fw.Write([]byte("The warranty period is 24 months.\n"))
		mw.Close()
		if status := send(t, base, "POST", "/api/v1/user/dataset", mw.FormDataContentType(), form.String()); status != 200 {
			t.Errorf("creating a dataset: %d", status)
		}
	})
	if code != ExitPass {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var cov coverage.Report
	raw, err := os.ReadFile(filepath.Join(dir, "coverage.json"))
	if err != nil || json.Unmarshal(raw, &cov) != nil {
		t.Fatalf("the coverage file: %v", err)
	}
	streamed := false
	for _, o := range cov.Operations {
		for _, s := range o.Statuses {
			for _, b := range s.Bodies {
				streamed = streamed || o.ID == "runInference" && b.EventChunk && b.Observed > 0
			}
		}
	}
	if cov.Totals.OperationsCalled != 6 || cov.Totals.UndocumentedStatuses != 0 || !streamed {
		t.Fatalf("coverage: %s (a stream's chunk fields observed: %v)", cov.Line(), streamed)
	}
	b, err := fixtures.Load(filepath.Join(dir, "recorded"))
	if err != nil {
		t.Fatalf("the recording does not load: %v", err)
	}
	found := false
	for _, d := range b.Set.Datasets {
		found = found || d.Name == "proxy-test"
	}
	if !found {
		t.Fatalf("the session's dataset is not in the recording: %+v\n%s", b.Set.Datasets, out)
	}
}

// send sends one request with the test key and reads the answer whole.
func send(t *testing.T, base, method, path, contentType, body string) int {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sink bytes.Buffer
	sink.ReadFrom(resp.Body)
	return resp.StatusCode
}
