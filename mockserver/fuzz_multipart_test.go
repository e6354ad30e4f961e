package mockserver

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
)

// FuzzMultipartCreate holds dataset creation to "any multipart body gets an
// envelope, never a 5xx or a crash", and to D-27: a created dataset keeps or
// names every file part it was sent.
func FuzzMultipartCreate(f *testing.F) {
	ts := newTestServer(f, withoutFixtures())
	f.Add("notes.txt", []byte("The warranty lasts two years.\n"), "scan.pdf", []byte("%PDF-1.4\nbroken"), "files", false)
	f.Add("data.csv", []byte("a,b\n1,2\n3\n"), "x.json", []byte(`{"a":[1,2,`), "file", true)
	f.Add("../../etc/passwd", []byte{0, 1, 2}, "", []byte{}, "files", false)
	f.Add("rows.jsonl", []byte("{}\n{\"q\":1}\n"), "a\\b.md", []byte("# Title\n\nText.\n"), "dataset_name", true)
	f.Fuzz(func(t *testing.T, name1 string, data1 []byte, name2 string, data2 []byte, field2 string, truncate bool) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		_ = mw.WriteField("dataset_name", "fuzz")
		parts := 0
		for _, p := range []struct {
			field, name string
			data        []byte
		}{{"files", name1, data1}, {field2, name2, data2}} {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", `form-data; name="`+escapeQuotes(p.field)+`"; filename="`+escapeQuotes(p.name)+`"`)
			w, err := mw.CreatePart(h)
			if err != nil {
				return
			}
			_, _ = w.Write(p.data)
			if p.field == "files" || p.field == "file" {
				parts++
			}
		}
		_ = mw.Close()
		body := b.Bytes()
		if truncate {
			body = body[:len(body)/2]
		}
		req := httptest.NewRequest(http.MethodPost, "/api/v1/user/dataset", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testKey1)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		rec := httptest.NewRecorder()
		ts.srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("got %d %s", rec.Code, rec.Body)
		}
		var env struct {
			Status string `json:"status"`
			Data   struct {
				FileCount   int      `json:"file_count"`
				FailedFiles []string `json:"failed_files"`
			} `json:"data"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || (env.Status != "success" && env.Status != "error") {
			t.Fatalf("%d answer is not the envelope: %s", rec.Code, rec.Body)
		}
		if rec.Code == http.StatusOK && !truncate {
			if got := env.Data.FileCount + len(env.Data.FailedFiles); got != parts {
				t.Fatalf("file_count %d + failed_files %q = %d, want the %d file parts sent (D-27)", env.Data.FileCount, env.Data.FailedFiles, got, parts)
			}
		}
	})
}

func escapeQuotes(s string) string {
	return strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "", "\n", "").Replace(s)
}
