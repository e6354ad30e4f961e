package mockserver

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"contractkit/mockserver/store"
)

// Resource helpers: each goes through the validating client and fails the
// test unless the API answers 200.

func (c *apiClient) createDataset(name string, files ...filePart) store.DatasetView {
	c.t.Helper()
	return c.createDatasetForm([][2]string{{"dataset_name", name}}, files...)
}

func (c *apiClient) createDatasetForm(fields [][2]string, files ...filePart) store.DatasetView {
	c.t.Helper()
	ct, body := multipartBody(c.t, fields, files...)
	var d store.DatasetView
	c.do(http.MethodPost, "/api/v1/user/dataset", withBody(ct, body)).want(c.t, 200).data(c.t, &d)
	return d
}

func (c *apiClient) uploadFiles(datasetID int64, files ...filePart) *apiResponse {
	c.t.Helper()
	ct, body := multipartBody(c.t, [][2]string{{"dataset_id", strconv.FormatInt(datasetID, 10)}}, files...)
	return c.do(http.MethodPost, "/api/v1/user/dataset/upload", withBody(ct, body))
}

func (c *apiClient) dataset(id int64) *apiResponse {
	c.t.Helper()
	return c.get(fmt.Sprintf("/api/v1/user/dataset/%d", id))
}

func (c *apiClient) datasets() []store.DatasetView {
	c.t.Helper()
	var out []store.DatasetView
	c.get("/api/v1/user/dataset").want(c.t, 200).data(c.t, &out)
	return out
}

func (c *apiClient) createModel(datasetID int64, name string) store.ModelView {
	c.t.Helper()
	var m store.ModelView
	c.post("/api/v1/user/model", map[string]any{"model_name": name, "dataset_id": strconv.FormatInt(datasetID, 10)}).
		want(c.t, 200).data(c.t, &m)
	return m
}

func (c *apiClient) model(id int64) store.ModelView {
	c.t.Helper()
	var m store.ModelView
	c.get(fmt.Sprintf("/api/v1/user/model/%d", id)).want(c.t, 200).data(c.t, &m)
	return m
}

func (c *apiClient) models() []store.ModelView {
	c.t.Helper()
	var out []store.ModelView
	c.get("/api/v1/user/model").want(c.t, 200).data(c.t, &out)
	return out
}

// readyModel uploads files to a new dataset and returns a model of it; the
// server must train at once (TrainDuration 0).
func (c *apiClient) readyModel(name string, files ...filePart) store.ModelView {
	c.t.Helper()
	d := c.createDataset(name+" data", files...)
	m := c.createModel(d.ID, name)
	if m.Status == nil || *m.Status != "ready" {
		c.t.Fatalf("model %q: status got %v, want ready (TrainDuration 0)", name, str(m.Status))
	}
	return m
}

func (c *apiClient) createConversation(modelID int64, title string) store.ConversationView {
	c.t.Helper()
	var v store.ConversationView
	c.post("/api/v1/user/conversations", map[string]any{"model_id": modelID, "title": title}).want(c.t, 200).data(c.t, &v)
	return v
}

func (c *apiClient) conversations(modelID int64, query string) []store.ConversationView {
	c.t.Helper()
	var out []store.ConversationView
	c.get(fmt.Sprintf("/api/v1/user/conversations?model_id=%d%s", modelID, query)).want(c.t, 200).data(c.t, &out)
	return out
}

func (c *apiClient) createEvaluation(modelID int64, name string) store.EvaluationView {
	c.t.Helper()
	var e store.EvaluationView
	c.post("/api/v1/evaluations", map[string]any{"name": name, "model_id": modelID}).want(c.t, 200).data(c.t, &e)
	return e
}

func (c *apiClient) evaluation(id int64) store.EvaluationView {
	c.t.Helper()
	var e store.EvaluationView
	c.get(fmt.Sprintf("/api/v1/evaluations/%d", id)).want(c.t, 200).data(c.t, &e)
	return e
}

func (c *apiClient) evaluations(query string) store.EvaluationPage {
	c.t.Helper()
	var p store.EvaluationPage
	c.get("/api/v1/evaluations"+query).want(c.t, 200).data(c.t, &p)
	return p
}

// ask streams one inference and returns the parsed stream (which the
// transport has checked event by event).
func (c *apiClient) ask(body map[string]any, opts ...reqOpt) *streamResult {
	c.t.Helper()
	r := c.post("/api/v1/user/inference", body, opts...).want(c.t, 200)
	if got := mediaType(r.Header.Get("Content-Type")); got != "text/event-stream" {
		c.t.Fatalf("inference: Content-Type got %q, want text/event-stream", got)
	}
	res, err := parseStream(c.t, strings.NewReader(string(r.Body)))
	if err != nil {
		c.t.Fatalf("inference stream: %v", err)
	}
	return res
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func ids[T any](items []T, id func(T) int64) map[int64]bool {
	out := map[int64]bool{}
	for _, it := range items {
		out[id(it)] = true
	}
	return out
}

func datasetID(d store.DatasetView) int64       { return d.ID }
func modelID(m store.ModelView) int64           { return m.ID }
func evaluationID(e store.EvaluationView) int64 { return e.ID }

// nonEmptyLines counts the lines holding more than white space: the rows of
// a text or Markdown file (seed §2.6, as the mock counts them).
func nonEmptyLines(b []byte) int64 {
	n := int64(0)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}
