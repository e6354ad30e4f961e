package mockserver

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver/store"
	"contractkit/spec"
)

func TestDatasetCreateCountsTheBytes(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)

	csv := fixtureFile(t, "product-catalog.csv")
	jsonl := fixtureFile(t, "support-faq.jsonl")
	pdf := fixtureFile(t, "warranty-policy.pdf")
	txt := fixtureFile(t, "release-notes.txt")
	bad := fixtureFile(t, "bad/binary.bin")

	d := c.createDatasetForm([][2]string{
		{"dataset_name", "  Support material  "},
		{"description", "FAQ, catalog, warranty and release notes"},
		{"tags", "support, faq\nsales"},
		{"tags", "pricing"},
		{"urls", "https://docs.example/a https://docs.example/b,http://docs.example/c"},
	}, csv, jsonl, pdf, txt, bad)

	wantSize := int64(len(csv.data) + len(jsonl.data) + len(pdf.data) + len(txt.data))
	// CSV: data records without the header; JSONL: lines; PDF: its 2 pages; text: non-empty lines.
	wantRows := (nonEmptyLines(csv.data) - 1) + nonEmptyLines(jsonl.data) + 2 + nonEmptyLines(txt.data)
	if d.Name != "Support material" {
		t.Errorf("name got %q, want %q (trimmed)", d.Name, "Support material")
	}
	if d.Size != wantSize {
		t.Errorf("size got %d, want %d (the bytes of the files read)", d.Size, wantSize)
	}
	if d.Rows != wantRows {
		t.Errorf("rows got %d, want %d", d.Rows, wantRows)
	}
	if d.FileCount != 4 {
		t.Errorf("file_count got %d, want 4 (the binary file is not added)", d.FileCount)
	}
	if d.Type != "mixed" {
		t.Errorf("type got %q, want mixed", d.Type)
	}
	var names []string
	for _, f := range d.Files {
		names = append(names, f.Name)
	}
	if want := []string{"product-catalog.csv", "support-faq.jsonl", "warranty-policy.pdf", "release-notes.txt"}; !slices.Equal(names, want) {
		t.Errorf("files got %v, want %v", names, want)
	}
	if want := []string{"support", "faq", "sales", "pricing"}; !slices.Equal(d.Tags, want) {
		t.Errorf("tags got %v, want %v", d.Tags, want)
	}
	if want := []string{"https://docs.example/a", "https://docs.example/b", "http://docs.example/c"}; !slices.Equal(d.URLs, want) {
		t.Errorf("urls got %v, want %v", d.URLs, want)
	}

	// Reading it back gives the same counts.
	var got store.DatasetView
	c.dataset(d.ID).want(t, 200).data(t, &got)
	if got.Size != d.Size || got.Rows != d.Rows || got.FileCount != d.FileCount || got.Type != d.Type {
		t.Errorf("get got size=%d rows=%d files=%d type=%s, want %d %d %d %s",
			got.Size, got.Rows, got.FileCount, got.Type, d.Size, d.Rows, d.FileCount, d.Type)
	}
}

func TestDatasetType(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	cases := []struct {
		name   string
		files  []string
		urls   string
		want   string
		rows   func() int64
		fileOK int
	}{
		{name: "markdown", files: []string{"employee-handbook.md"}, want: "markdown"},
		{name: "text", files: []string{"release-notes.txt"}, want: "text"},
		{name: "csv", files: []string{"product-catalog.csv"}, want: "csv"},
		{name: "json", files: []string{"pricing.json"}, want: "json"},
		{name: "jsonl", files: []string{"support-faq.jsonl"}, want: "json"},
		{name: "pdf", files: []string{"warranty-policy.pdf"}, want: "pdf"},
		{name: "web", urls: "https://northwind.example/docs", want: "web"},
		{name: "file and url", files: []string{"release-notes.txt"}, urls: "https://northwind.example/docs", want: "mixed"},
		{name: "two kinds", files: []string{"release-notes.txt", "employee-handbook.md"}, want: "mixed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ts.client(t, c.key)
			fields := [][2]string{{"dataset_name", "type " + tc.name}}
			if tc.urls != "" {
				fields = append(fields, [2]string{"urls", tc.urls})
			}
			var files []filePart
			size, rows := int64(0), int64(0)
			for _, f := range tc.files {
				fp := fixtureFile(t, f)
				files = append(files, fp)
				size += int64(len(fp.data))
				if strings.HasSuffix(f, ".md") || strings.HasSuffix(f, ".txt") {
					rows += nonEmptyLines(fp.data)
				}
			}
			d := c.createDatasetForm(fields, files...)
			if d.Type != tc.want {
				t.Errorf("type got %q, want %q", d.Type, tc.want)
			}
			if d.Size != size || d.FileCount != len(tc.files) {
				t.Errorf("size, file_count got %d, %d, want %d, %d", d.Size, d.FileCount, size, len(tc.files))
			}
			if rows > 0 && d.Rows != rows {
				t.Errorf("rows got %d, want %d (non-empty lines)", d.Rows, rows)
			}
		})
	}
}

func TestDatasetCreateRefusals(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	md := fixtureFile(t, "employee-handbook.md")
	cases := []struct {
		name   string
		fields [][2]string
		files  []filePart
		status int
		says   []string
	}{
		{name: "missing dataset_name", files: []filePart{md}, status: 422, says: []string{"dataset_name"}},
		{name: "blank dataset_name", fields: [][2]string{{"dataset_name", "   "}}, files: []filePart{md}, status: 422, says: []string{"dataset_name"}},
		{name: "dataset_name too long", fields: [][2]string{{"dataset_name", strings.Repeat("n", 256)}}, files: []filePart{md}, status: 422, says: []string{"dataset_name", "255"}},
		{name: "no file and no url", fields: [][2]string{{"dataset_name", "empty"}}, status: 422, says: []string{"files"}},
		{name: "every file fails", fields: [][2]string{{"dataset_name", "bad"}}, files: []filePart{fixtureFile(t, "bad/binary.bin"), fixtureFile(t, "bad/empty.txt")}, status: 422, says: []string{"binary.bin", "empty.txt"}},
		{name: "relative url", fields: [][2]string{{"dataset_name", "web"}, {"urls", "/docs/page"}}, status: 422, says: []string{"urls"}},
		{name: "ftp url", fields: [][2]string{{"dataset_name", "web"}, {"urls", "ftp://northwind.example/x"}}, status: 422, says: []string{"urls"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ts.client(t, c.key)
			ct, body := multipartBody(t, tc.fields, tc.files...)
			c.do(http.MethodPost, "/api/v1/user/dataset", withBody(ct, body)).wantError(t, tc.status, tc.says...)
		})
	}

	t.Run("wrong content type", func(t *testing.T) {
		c := ts.client(t, c.key)
		c.post("/api/v1/user/dataset", map[string]any{"dataset_name": "json"}).wantError(t, 400, "multipart/form-data")
	})
	t.Run("unreadable multipart", func(t *testing.T) {
		c := ts.client(t, c.key)
		c.do(http.MethodPost, "/api/v1/user/dataset",
			withBody("multipart/form-data; boundary=xyz", strings.NewReader("this is not multipart"))).wantError(t, 400)
	})
	t.Run("no dataset was created", func(t *testing.T) {
		c := ts.client(t, c.key)
		if got := c.datasets(); len(got) != 0 {
			t.Errorf("datasets got %d, want 0 after refused creates", len(got))
		}
	})
}

func TestDatasetAddFiles(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	csv := fixtureFile(t, "product-catalog.csv")
	d := c.createDataset("catalog", csv)

	md := fixtureFile(t, "employee-handbook.md")
	js := fixtureFile(t, "pricing.json")
	bin := fixtureFile(t, "bad/binary.bin")
	empty := fixtureFile(t, "bad/empty.txt")
	malformed := fixtureFile(t, "bad/malformed.json")
	ts.clock.Advance(time.Minute)

	var res store.UploadResult
	c.uploadFiles(d.ID, md, bin, js, empty, malformed).want(t, 200).data(t, &res)
	want := store.UploadResult{
		Success: true, DatasetID: d.ID, FailedFiles: []string{"binary.bin", "empty.txt", "malformed.json"},
		FilesUploaded: 2, FilesFailed: 3, TotalSize: int64(len(md.data) + len(js.data)),
	}
	if res.Success != want.Success || res.DatasetID != want.DatasetID || !slices.Equal(res.FailedFiles, want.FailedFiles) ||
		res.FilesUploaded != want.FilesUploaded || res.FilesFailed != want.FilesFailed || res.TotalSize != want.TotalSize {
		t.Errorf("upload result got %+v, want %+v", res, want)
	}

	var after store.DatasetView
	c.dataset(d.ID).want(t, 200).data(t, &after)
	if after.FileCount != 3 {
		t.Errorf("file_count got %d, want 3", after.FileCount)
	}
	if wantSize := int64(len(csv.data)) + want.TotalSize; after.Size != wantSize {
		t.Errorf("size got %d, want %d", after.Size, wantSize)
	}
	if after.Type != "mixed" {
		t.Errorf("type got %q, want mixed", after.Type)
	}
	if !after.UpdatedAt.After(d.UpdatedAt) {
		t.Errorf("updated_at got %v, want after %v", after.UpdatedAt, d.UpdatedAt)
	}

	t.Run("every file fails", func(t *testing.T) {
		c := ts.client(t, c.key)
		var res store.UploadResult
		c.uploadFiles(d.ID, bin, empty).want(t, 200).data(t, &res)
		if res.Success || res.FilesUploaded != 0 || res.FilesFailed != 2 || res.TotalSize != 0 || len(res.FailedFiles) != 2 {
			t.Errorf("upload result got %+v, want success=false, 0 uploaded, 2 failed, total_size 0", res)
		}
	})
	t.Run("the field name file is accepted", func(t *testing.T) {
		c := ts.client(t, c.key)
		f := fixtureFile(t, "release-notes.txt")
		f.field = "file"
		var res store.UploadResult
		c.uploadFiles(d.ID, f).want(t, 200).data(t, &res)
		if res.FilesUploaded != 1 {
			t.Errorf("files_uploaded got %d, want 1", res.FilesUploaded)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		c := ts.client(t, c.key)
		c.uploadFiles(999999, md).wantError(t, 404, "999999")
		ct, body := multipartBody(t, nil, md)
		c.do(http.MethodPost, "/api/v1/user/dataset/upload", withBody(ct, body)).wantError(t, 422, "dataset_id")
		ct, body = multipartBody(t, [][2]string{{"dataset_id", fmt.Sprint(d.ID)}})
		c.do(http.MethodPost, "/api/v1/user/dataset/upload", withBody(ct, body)).wantError(t, 422, "files")
		c.post("/api/v1/user/dataset/upload", map[string]any{"dataset_id": d.ID}).wantError(t, 400)
	})
}

func TestDatasetGetListDelete(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	before := c.datasets()
	if len(before) == 0 {
		t.Fatal("fixtures preload no dataset")
	}
	soft := c.createDataset("soft", fixtureFile(t, "employee-handbook.md"))
	hard := c.createDataset("hard", fixtureFile(t, "release-notes.txt"))
	list := c.datasets()
	if got, want := len(list), len(before)+2; got != want {
		t.Fatalf("datasets got %d, want %d", got, want)
	}
	if !slices.IsSortedFunc(list, func(a, b store.DatasetView) int { return int(a.ID - b.ID) }) {
		t.Errorf("datasets are not oldest first: %v", ids(list, datasetID))
	}
	// A model built before the soft delete keeps answering from the data.
	m := c.createModel(soft.ID, "built before delete")

	var del store.DeleteResult
	c.do(http.MethodDelete, fmt.Sprintf("/api/v1/user/dataset/%d", soft.ID)).want(t, 200).data(t, &del)
	if del.Permanent == nil || *del.Permanent || del.ID != fmt.Sprint(soft.ID) {
		t.Errorf("soft delete got %+v, want id %d, permanent false", del, soft.ID)
	}
	c.dataset(soft.ID).wantError(t, 404)
	if ids(c.datasets(), datasetID)[soft.ID] {
		t.Errorf("soft-deleted dataset %d still listed", soft.ID)
	}
	c.do(http.MethodDelete, fmt.Sprintf("/api/v1/user/dataset/%d", soft.ID)).wantError(t, 404)
	c.post("/api/v1/user/model", map[string]any{"model_name": "too late", "dataset_id": fmt.Sprint(soft.ID)}).wantError(t, 404)
	res := c.ask(map[string]any{"query": "How many days of paid leave do employees receive per year?", "model_id": m.ID})
	if !strings.Contains(res.Text, "27 days of paid leave") {
		t.Errorf("model of a soft-deleted dataset answered %q, want the handbook's fact", res.Text)
	}

	c.do(http.MethodDelete, fmt.Sprintf("/api/v1/user/dataset/%d?permanent=true", hard.ID)).want(t, 200).data(t, &del)
	if del.Permanent == nil || !*del.Permanent {
		t.Errorf("permanent delete got %+v, want permanent true", del)
	}
	c.dataset(hard.ID).wantError(t, 404)

	// The admin dump keeps the soft-deleted dataset only.
	var dump store.Dump
	c.get("/admin/state").want(t, 200).data(t, &dump)
	deleted := ids(dump.DeletedDatasets, datasetID)
	if !deleted[soft.ID] || deleted[hard.ID] {
		t.Errorf("deleted_datasets got %v, want %d and not %d", deleted, soft.ID, hard.ID)
	}
	if got, want := len(c.datasets()), len(before); got != want {
		t.Errorf("datasets after deletes got %d, want %d", got, want)
	}

	t.Run("ids that are not numbers are not found", func(t *testing.T) {
		c := ts.client(t, c.key)
		for _, id := range []string{"abc", "0", "-1", "1.5", "99999999999999999999"} {
			c.get("/api/v1/user/dataset/"+id).wantError(t, 404)
		}
	})
}

// TestDatasetBodyOverTheLimit streams a body just over 100 MiB through a
// pipe: the part is binary, so the server discards it without extracting,
// and answers 413 once the limit is crossed (after draining the rest of the
// body, bounded, so the writer is not cut off: body_test.go).
func TestDatasetBodyOverTheLimit(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	written := make(chan int64, 1)
	go func() {
		var n int64
		defer func() { written <- n }()
		if err := mw.WriteField("dataset_name", "huge"); err != nil {
			pw.CloseWithError(err)
			return
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="files"; filename="huge.bin"`)
		part, err := mw.CreatePart(h)
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		block := bytes.Repeat([]byte{0}, 1<<20)
		for range spec.RequestLimits().MultipartBodyBytes>>20 + 8 { // bounded: a few MiB past the limit
			m, err := part.Write(block)
			n += int64(m)
			if err != nil {
				return // the transport closed the pipe
			}
		}
		pw.CloseWithError(mw.Close())
	}()
	resp := c.do(http.MethodPost, "/api/v1/user/dataset", withBody(mw.FormDataContentType(), pr))
	_ = pr.Close()
	resp.wantError(t, 413, "100 MiB")
	select {
	case n := <-written:
		if n < spec.RequestLimits().MultipartBodyBytes-(2<<20) {
			t.Errorf("writer stopped after %d bytes, want the server to read up to the %d-byte limit", n, spec.RequestLimits().MultipartBodyBytes)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the body writer did not stop")
	}
	if got := c.datasets(); len(got) != 0 {
		t.Errorf("datasets got %d, want 0", len(got))
	}
}

// No file part vanishes (D-27): a create keeps the readable file and names
// the malformed PDF, with why, in failed_files and failures.
func TestDatasetCreateNamesRefusedFiles(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	notes := filePart{name: "notes.txt", data: []byte("The warranty lasts two years.\n")}
	bad := filePart{name: "scan.pdf", data: []byte("%PDF-1.4\nthis is not a PDF body at all\n")}
	ct, body := multipartBody(t, [][2]string{{"dataset_name", "mixed"}}, notes, bad)
	var got store.CreatedDataset
	c.do(http.MethodPost, "/api/v1/user/dataset", withBody(ct, body)).want(t, 200).data(t, &got)
	if got.FileCount != 1 || len(got.Files) != 1 || got.Files[0].Name != "notes.txt" {
		t.Errorf("kept files got %d %+v, want notes.txt alone", got.FileCount, got.Files)
	}
	if !slices.Equal(got.FailedFiles, []string{"scan.pdf"}) {
		t.Errorf("failed_files got %q, want [scan.pdf]", got.FailedFiles)
	}
	if len(got.Failures) != 1 || got.Failures[0].Name != "scan.pdf" || !strings.Contains(got.Failures[0].Reason, "malformed") {
		t.Errorf("failures got %+v, want scan.pdf as malformed", got.Failures)
	}
}

// A file whose extraction works past the budget is a failed file with that
// reason, and the request answers (create and upload alike).
func TestDatasetExtractionBudget(t *testing.T) {
	ts := newTestServer(t, withoutFixtures(), withConfig(func(c *Config) { c.ExtractBudget = time.Nanosecond }))
	c := ts.client(t, testKey1)
	ct, body := multipartBody(t, [][2]string{{"dataset_name", "slow"}, {"urls", "https://example.com/a"}},
		filePart{name: "notes.txt", data: []byte("Some text.\n")})
	var got store.CreatedDataset
	c.do(http.MethodPost, "/api/v1/user/dataset", withBody(ct, body)).want(t, 200).data(t, &got)
	if got.FileCount != 0 || len(got.Failures) != 1 || !strings.Contains(got.Failures[0].Reason, "time budget") {
		t.Errorf("got file_count %d, failures %+v; want notes.txt failed over its time budget", got.FileCount, got.Failures)
	}
	var res store.UploadResult
	c.uploadFiles(got.ID, filePart{name: "more.txt", data: []byte("More text.\n")}).want(t, 200).data(t, &res)
	if res.FilesFailed != 1 || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, "time budget") {
		t.Errorf("upload result got %+v, want more.txt failed over its time budget", res)
	}
}
