package conformance

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"contractkit/fixtures"
)

// API paths (seed §4).
const (
	pathModels        = "/api/v1/user/model"
	pathDatasets      = "/api/v1/user/dataset"
	pathUpload        = "/api/v1/user/dataset/upload"
	pathConversations = "/api/v1/user/conversations"
	pathInference     = "/api/v1/user/inference"
	pathEvaluations   = "/api/v1/evaluations"
	pathCheckName     = "/api/v1/evaluations/check-name"
)

// at joins a collection path and an id.
func at(collection, id string, rest ...string) string {
	return collection + "/" + url.PathEscape(id) + strings.Join(rest, "")
}

// name returns a fresh name carrying the run's prefix, so two runs against
// one server do not collide.
func (e *env) name(kind string) string { return e.prefix + kind + "-" + randomHex(2) }

// fixtureFile reads an upload file of contractkit/fixtures as a `files` part.
func fixtureFile(name string) FormFile {
	b, err := fixtures.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("conformance: fixture %s: %v", name, err))
	}
	return FormFile{Field: "files", Name: path.Base(name), Content: b, Source: "fixtures/files/" + name}
}

// datasetForm is a dataset creation form: dataset_name and files.
func datasetForm(name string, files ...string) *Form {
	f := &Form{Fields: []FormField{{"dataset_name", name}, {"description", "conformance run data"}}}
	for _, n := range files {
		f.Files = append(f.Files, fixtureFile(n))
	}
	return f
}

// created is a create request's outcome: the exchange to judge, and the
// new id when the response carried one.
type created struct {
	x    *Exchange
	id   string
	data J
}

// create sends a create request and, when the answer carries an id,
// registers the resource's removal (DeferCleanup, tolerant of not-found)
// at once, unless --keep. collection is the path the id is appended to.
func (e *env) create(ctx context.Context, r Request, collection string) created {
	GinkgoHelper()
	x := e.do(ctx, r)
	body, _ := ParseJSON(x.Raw())
	data := body.Get("data")
	c := created{x: x, data: data}
	if x.Status/100 == 2 {
		c.id = data.Get("id").ID()
	}
	if c.id != "" {
		e.removeLater(at(collection, c.id), r.Auth)
	}
	return c
}

// removeLater registers the removal of the resource at p by the account
// that created it.
func (e *env) removeLater(p string, auth Auth) {
	if e.cfg.Keep {
		return
	}
	DeferCleanup(func(ctx SpecContext) { e.remove(ctx, p, auth) })
}

// remove deletes the resource at p. Gone already is fine; an evaluation
// still running is waited for; anything else is recorded as a leak and
// reported at the end, never as a check failure.
func (e *env) remove(ctx context.Context, p string, auth Auth) {
	x := e.client.Do(ctx, Request{Method: http.MethodDelete, Path: p, Auth: auth})
	if x.Status/100 == 2 || x.Status == http.StatusNotFound {
		return
	}
	if strings.HasPrefix(p, pathEvaluations) && x.Status/100 == 4 {
		err := InterceptGomegaFailure(func() {
			Eventually(ctx, func(g Gomega) {
				x = e.client.Do(ctx, Request{Method: http.MethodDelete, Path: p, Auth: auth})
				g.Expect(x.Status/100 == 2 || x.Status == http.StatusNotFound).To(BeTrue())
			}).WithTimeout(e.cfg.Timeout).Should(Succeed())
		})
		if err == nil {
			return
		}
	}
	e.leaks = append(e.leaks, fmt.Sprintf("%s: %s", p, x.Line()))
}

// sharedResources are the dataset and the ready model that several areas
// need as a precondition (conversations, inference, evaluations,
// isolation, invalid input). Each is made once, on first need, and removed
// by AfterSuite.
type sharedResources struct {
	dataset, model lazy
	// paths are removed in reverse order after the suite.
	paths []string
}

// lazy is a resource made on first need.
type lazy struct {
	tried   bool
	failure string
	id      string
}

// get returns l's id, making it with mk on the first call. When making it
// fails, that check fails and every later caller is skipped with the
// reason.
func (e *env) get(l *lazy, what string, mk func() string) string {
	GinkgoHelper()
	if l.tried {
		if l.failure != "" {
			Skip("the shared " + what + " could not be prepared: " + l.failure)
		}
		return l.id
	}
	l.tried = true
	err := InterceptGomegaFailure(func() { l.id = mk() })
	if err != nil {
		l.failure = firstLine(err.Error())
		Fail("preparing the shared " + what + ": " + err.Error())
	}
	return l.id
}

// sharedDataset returns the id of a dataset of the first account built
// from the employee handbook and the warranty policy.
func (e *env) sharedDataset(ctx context.Context) string {
	GinkgoHelper()
	return e.get(&e.shared.dataset, "dataset", func() string {
		x := e.do(ctx, Request{Method: http.MethodPost, Path: pathDatasets,
			Form: datasetForm(e.name("shared-data"), "employee-handbook.md", "warranty-policy.pdf")})
		id := e.expectSuccess(x).Get("id").ID()
		e.expectThat(x, id != "", "the new dataset has no id")
		if !e.cfg.Keep {
			e.shared.paths = append(e.shared.paths, at(pathDatasets, id))
		}
		return id
	})
}

// readyModel returns the id of a ready model of the first account, trained
// on the shared dataset.
func (e *env) readyModel(ctx context.Context) string {
	GinkgoHelper()
	return e.get(&e.shared.model, "model", func() string {
		ds := e.sharedDataset(ctx)
		x := e.do(ctx, Request{Method: http.MethodPost, Path: pathModels,
			JSON: map[string]any{"model_name": e.name("shared-model"), "dataset_id": ds, "description": "conformance run model"}})
		id := e.expectSuccess(x).Get("id").ID()
		e.expectThat(x, id != "", "the new model has no id")
		if !e.cfg.Keep {
			e.shared.paths = append(e.shared.paths, at(pathModels, id))
		}
		e.waitModelReady(ctx, id)
		return id
	})
}

// removeShared removes the shared resources (AfterSuite).
func (e *env) removeShared(ctx context.Context) {
	for i := len(e.shared.paths) - 1; i >= 0; i-- {
		e.remove(ctx, e.shared.paths[i], AuthKey)
	}
}

// readyStates and failedStates are the model states real clients know
// (public clients of the real service); the contract's own are D-11.
var (
	readyStates  = map[string]bool{"ready": true, "completed": true, "complete": true, "active": true, "deployed": true, "available": true, "success": true}
	failedStates = map[string]bool{"failed": true, "error": true, "cancelled": true}
)

// modelReady tells a ready model as real clients do: a ready status, or
// the graph built.
func modelReady(m J) bool {
	if readyStates[strings.ToLower(m.Get("status").Str())] {
		return true
	}
	p, _ := m.Get("graph_build_progress").Int()
	return strings.ToLower(m.Get("graph_status").Str()) == "ready" && p == 100
}

// waitModelReady polls the model until it is ready, within --timeout, and
// returns it. A failed model stops the wait.
func (e *env) waitModelReady(ctx context.Context, id string) J {
	GinkgoHelper()
	var model J
	Eventually(ctx, func(g Gomega) {
		x := e.client.Do(ctx, Request{Method: http.MethodGet, Path: at(pathModels, id)})
		g.Expect(x.Status).To(Equal(http.StatusOK), "%s", x.Line())
		body, _ := ParseJSON(x.Raw())
		m := body.Get("data")
		if st := strings.ToLower(m.Get("status").Str()); failedStates[st] {
			StopTrying(fmt.Sprintf("model %s failed (status %q) instead of becoming ready", id, st)).Now()
		}
		g.Expect(modelReady(m)).To(BeTrue(), "model %s is not ready: status %s, graph_status %s, graph_build_progress %s",
			id, m.Get("status"), m.Get("graph_status"), m.Get("graph_build_progress"))
		model = m
	}).WithTimeout(e.cfg.Timeout).Should(Succeed(), "model %s did not become ready within --timeout %s", id, e.cfg.Timeout)
	return model
}

// evaluationBody is a creation body for an evaluation of model.
func evaluationBody(name, model string) map[string]any {
	return map[string]any{
		"name": name, "type": "ragas", "model_id": jsonInt(model), "benchmark_type": "beir",
		"question_count": 3, "description": "conformance run evaluation",
	}
}

// jsonInt turns an id into the JSON integer the seed declares for body
// fields (model_id is an integer, §4.2, §4.4, §4.5); an id that is not a
// number is sent as the string it is.
func jsonInt(id string) any {
	var n int64
	if _, err := fmt.Sscan(id, &n); err == nil && fmt.Sprint(n) == id {
		return n
	}
	return id
}

// streamIdle is the longest silence tolerated inside an inference stream.
func (e *env) streamIdle() time.Duration { return min(30*time.Second, e.cfg.Timeout) }

// infer sends an inference request and reads the answer incrementally: a
// stream under the idle limit and --timeout, anything else whole. The
// stream is nil when the answer is not text/event-stream.
func (e *env) infer(ctx context.Context, r Request) (*Exchange, *Stream) {
	GinkgoHelper()
	if r.Method == "" {
		r.Method, r.Path = http.MethodPost, pathInference
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	resp, x := e.client.Open(ctx, r)
	if resp == nil {
		return x, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && mediaType(resp.Header) == "text/event-stream" {
		s := ReadStream(resp.Body, e.streamIdle(), cancel)
		var readErr error
		if s.Err != nil {
			readErr = s.Err
		}
		e.client.Finish(x, s.Raw, readErr)
		return x, s
	}
	body, err := io.ReadAll(resp.Body)
	e.client.Finish(x, body, err)
	return x, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
