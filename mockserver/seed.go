package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/fixtures"
	"contractkit/internal/textcut"
	"contractkit/mockserver/apierr"
	"contractkit/mockserver/store"
)

// POST /admin/seed loads records into the caller's account while the mock
// runs: a test states the data it needs, no restart, no --fixtures. The
// body is the fixture set format (fixtures/README.md: datasets, models,
// conversations, evaluations, tied by keys) with each dataset's files given
// inline, {"name": "faq.md", "content": "..."}. Every field is checked
// against the contract — the schema of the create request that would make
// the record (a model's name as createModel's model_name, a dataset's tags
// as createDataset's) — and against the set's own rules (references, the
// states a record may start in); a refusal is a 422 naming the field, and
// nothing is loaded. ?replace=true empties the account first (its
// fixtures too). Each record reads back in the state it names at once
// (store.Account.Load), a dataset named deleted soft-deleted; a state the
// mock's durations would never show is refused. The answer gives the ids
// the records got.

// Bounds of a seed call.
const (
	maxSeedBody    = 8 << 20 // bytes of the body, the files' text included
	maxSeedRecords = 200     // records of each kind
)

type seedRequest struct {
	Datasets      []seedDataset           `json:"datasets"`
	Models        []fixtures.Model        `json:"models"`
	Conversations []fixtures.Conversation `json:"conversations"`
	Evaluations   []fixtures.Evaluation   `json:"evaluations"`
}

type seedDataset struct {
	ID          int64      `json:"id,omitempty"`
	Key         string     `json:"key"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Tags        []string   `json:"tags"`
	URLs        []string   `json:"urls"`
	Files       []seedFile `json:"files"`
	Deleted     bool       `json:"deleted,omitempty"`
}

type seedFile struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

// seeded is the answer: the ids the records got.
type seeded struct {
	Datasets      []seededRecord `json:"datasets"`
	Models        []seededRecord `json:"models"`
	Conversations []seededRecord `json:"conversations"`
	Evaluations   []seededRecord `json:"evaluations"`
}

type seededRecord struct {
	Key   string `json:"key,omitempty"`
	Title string `json:"title,omitempty"`
	Name  string `json:"name,omitempty"`
	ID    any    `json:"id"`
}

// seed answers POST /admin/seed.
func (s *Server) seed(w http.ResponseWriter, r *http.Request, account string) {
	replace := false
	switch v := r.URL.Query().Get("replace"); v {
	case "", "false":
	case "true":
		replace = true
	default:
		apierr.Write(w, s.log, apierr.New(apierr.Invalid, "replace: true or false"))
		return
	}
	b, err := s.readSeed(r)
	if err != nil {
		apierr.Write(w, s.log, err)
		return
	}
	// Loaded into an empty account of its own first: a file that does not
	// extract fails here, and the caller's account is left as it was.
	if _, err := store.New(s.store.Config()).Account("seed").Load(b); err != nil {
		apierr.Write(w, s.log, apierr.New(apierr.Invalid, "seed: %s", textcut.Shorten(err.Error(), 600)))
		return
	}
	a := s.store.Account(account)
	if replace {
		a = s.store.Reset(account)
	}
	loaded, err := a.Load(b)
	if err != nil {
		apierr.Write(w, s.log, apierr.New(apierr.Conflict, "seed: %s", textcut.Shorten(err.Error(), 600)))
		return
	}
	apierr.WriteData(w, seededOf(b.Set, loaded))
}

// readSeed reads, checks and converts a seed body into a bundle.
func (s *Server) readSeed(r *http.Request) (fixtures.Bundle, error) {
	if mt := mediaType(r.Header.Get("Content-Type")); mt != "" && mt != "application/json" {
		return fixtures.Bundle{}, apierr.New(apierr.BadRequest, "Content-Type must be application/json (got %q)", textcut.Shorten(mt, 80))
	}
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxSeedBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fixtures.Bundle{}, apierr.New(apierr.TooLarge, "a seed's body exceeds %d bytes", maxSeedBody)
		}
		return fixtures.Bundle{}, apierr.New(apierr.BadRequest, "request body could not be read")
	}
	if err := checkJSON(raw, s.bounds.limits.JSONDepth); err != nil {
		return fixtures.Bundle{}, err
	}
	var req seedRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return fixtures.Bundle{}, apierr.New(apierr.Invalid, "seed: %s", overrideProblem(err))
	}
	for kind, n := range map[string]int{"datasets": len(req.Datasets), "models": len(req.Models), "conversations": len(req.Conversations), "evaluations": len(req.Evaluations)} {
		if n > maxSeedRecords {
			return fixtures.Bundle{}, apierr.New(apierr.Invalid, "%s: at most %d records in one seed call", kind, maxSeedRecords)
		}
	}
	b := s.seedBundle(&req)
	if err := s.checkSeed(&req); err != nil {
		return fixtures.Bundle{}, err
	}
	if err := b.Validate(); err != nil {
		return fixtures.Bundle{}, apierr.New(apierr.Invalid, "seed: %s", textcut.Shorten(strings.ReplaceAll(err.Error(), "\n", "; "), 600))
	}
	return b, nil
}

// seedBundle is the request as a fixture bundle: each file is kept under
// the field that gave it (datasets[0].files[1]), so an error about it
// names that field, and shown under its own name. Left-out fields get the
// contract's defaults (an evaluation's type, benchmark type and question
// count), a model's fine-tuning its first method.
func (s *Server) seedBundle(req *seedRequest) fixtures.Bundle {
	files := seedFiles{}
	set := fixtures.Set{Models: req.Models, Conversations: req.Conversations, Evaluations: req.Evaluations}
	for i, d := range req.Datasets {
		fd := fixtures.Dataset{ID: d.ID, Key: d.Key, Name: d.Name, Description: d.Description, Tags: d.Tags, URLs: d.URLs, Deleted: d.Deleted}
		for j, f := range d.Files {
			at := fmt.Sprintf("datasets[%d].files[%d]", i, j)
			files[at] = []byte(f.Content)
			fd.Files, fd.FileNames = append(fd.Files, at), append(fd.FileNames, f.Name)
		}
		set.Datasets = append(set.Datasets, fd)
	}
	for i := range set.Models {
		m := &set.Models[i]
		if m.FineTune == "" {
			m.FineTune = fixtures.FineTuneLoRA
		}
		if m.State == "" {
			m.State = fixtures.StateReady
		}
	}
	def := s.defaults.newEvaluation
	for i := range set.Evaluations {
		e := &set.Evaluations[i]
		if e.Type == "" {
			e.Type = def.Type
		}
		if e.BenchmarkType == "" {
			e.BenchmarkType = def.BenchmarkType
		}
		if e.QuestionCount == 0 {
			e.QuestionCount = def.QuestionCount
		}
		if e.Status == "" {
			e.Status = fixtures.StatusPending
		}
	}
	return fixtures.Bundle{Set: set, Files: files}
}

// seedField ties a field of a seed record to the request field of the
// contract that would carry it.
type seedField struct {
	// of is the id parameter of the record's resource ("dataset_id"):
	// the field is its create's (the POST on its collection).
	of, media, field string
}

// checkSeed checks every field of the records against the contract: the
// schema of the create request's field, and the bounds the mock reads from
// it (bounds.go).
func (s *Server) checkSeed(req *seedRequest) error {
	const form, body = multipartForm, "application/json"
	check := func(where string, f seedField, v any) error {
		op, err := createOf(s.contract, f.of)
		if err != nil {
			return err
		}
		sc, err := s.contract.RequestField(op, f.media, f.field)
		if err != nil {
			return err
		}
		if err := sc.VisitJSON(v, openapi3.MultiErrors()); err != nil {
			return apierr.New(apierr.Invalid, "%s: %s (the contract's %s of %s)", where, schemaReason(err), f.field, op)
		}
		return nil
	}
	datasets, err := createOf(s.contract, "dataset_id")
	if err != nil {
		return err
	}
	for i, d := range req.Datasets {
		at := fmt.Sprintf("datasets[%d]", i)
		for _, c := range []struct {
			name string
			f    seedField
			v    any
		}{
			{"name", seedField{"dataset_id", form, "dataset_name"}, d.Name},
			{"description", seedField{"dataset_id", form, "description"}, d.Description},
			{"tags", seedField{"dataset_id", form, "tags"}, strings.Join(d.Tags, ",")},
			{"urls", seedField{"dataset_id", form, "urls"}, strings.Join(d.URLs, ",")},
		} {
			if err := check(at+"."+c.name, c.f, c.v); err != nil {
				return err
			}
		}
		switch {
		case len(d.Tags) > s.bounds.tags.MaxItems:
			return apierr.New(apierr.Invalid, "%s.tags: at most %d (the contract's tags of %s)", at, s.bounds.tags.MaxItems, datasets)
		case len(d.URLs) > s.bounds.urls.MaxItems:
			return apierr.New(apierr.Invalid, "%s.urls: at most %d (the contract's urls of %s)", at, s.bounds.urls.MaxItems, datasets)
		case len(d.Files) > s.bounds.files[datasets].Max:
			return apierr.New(apierr.Invalid, "%s.files: at most %d (the contract's files of %s)", at, s.bounds.files[datasets].Max, datasets)
		}
		for j, f := range d.Files {
			if strings.TrimSpace(f.Name) == "" || len(f.Name) > 255 || strings.ContainsAny(f.Name, "/\\") {
				return apierr.New(apierr.Invalid, "%s.files[%d].name: a file name (1..255 bytes, no slash), such as faq.md", at, j)
			}
			if f.Content == "" {
				return apierr.New(apierr.Invalid, "%s.files[%d].content: empty (an empty upload is a failed file, D-16; a seed loads files that extract)", at, j)
			}
		}
	}
	for i, m := range req.Models {
		at := fmt.Sprintf("models[%d]", i)
		if err := check(at+".name", seedField{"model_id", body, "model_name"}, m.Name); err != nil {
			return err
		}
		if err := check(at+".description", seedField{"model_id", body, "description"}, m.Description); err != nil {
			return err
		}
	}
	if err := s.checkSeedStates(req); err != nil {
		return err
	}
	for i, c := range req.Conversations {
		if err := check(fmt.Sprintf("conversations[%d].title", i), seedField{"conversation_id", body, "title"}, c.Title); err != nil {
			return err
		}
	}
	for i, e := range req.Evaluations {
		at := fmt.Sprintf("evaluations[%d]", i)
		fields := []struct {
			name string
			v    any
			set  bool
		}{
			{"name", e.Name, true}, {"description", e.Description, true}, {"type", e.Type, e.Type != ""},
			{"benchmark_type", e.BenchmarkType, e.BenchmarkType != ""}, {"question_count", float64(e.QuestionCount), e.QuestionCount != 0},
		}
		for _, f := range fields {
			if !f.set {
				continue
			}
			if err := check(at+"."+f.name, seedField{"evaluation_id", body, f.name}, f.v); err != nil {
				return err
			}
		}
		if err := s.store.CheckEvaluationName(e.Name); err != nil {
			return apierr.New(apierr.Invalid, "%s.name: %v", at, err)
		}
	}
	return nil
}

// checkSeedStates refuses a state the mock's durations would never show:
// a seeded record reads back in the state it names, at once, or is not
// loaded. With --train-duration 0 every training has ended before it is
// read, with --eval-duration 0 every run.
func (s *Server) checkSeedStates(req *seedRequest) error {
	cfg := s.store.Config()
	for i, m := range req.Models {
		if (m.State == fixtures.StatePending || m.State == fixtures.StateTraining) && cfg.TrainDuration <= 0 {
			return apierr.New(apierr.Invalid, "models[%d].state: %q is never seen with --train-duration 0 (a training ends at once): start the mock with a --train-duration", i, m.State)
		}
	}
	for i, e := range req.Evaluations {
		if e.Status == fixtures.StatusRunning && cfg.EvalDuration <= 0 {
			return apierr.New(apierr.Invalid, "evaluations[%d].status: %q is never seen with --eval-duration 0 (a run ends at once): start the mock with an --eval-duration", i, e.Status)
		}
	}
	return nil
}

// schemaReason is what a schema check found, without the schema's dump.
func schemaReason(err error) string {
	var me openapi3.MultiError
	if errors.As(err, &me) && len(me) > 0 {
		err = me[0]
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		return se.Reason
	}
	return textcut.Shorten(err.Error(), 200)
}

// seededOf names the ids the records got.
func seededOf(set fixtures.Set, l store.Loaded) seeded {
	out := seeded{Datasets: []seededRecord{}, Models: []seededRecord{}, Conversations: []seededRecord{}, Evaluations: []seededRecord{}}
	for _, d := range set.Datasets {
		out.Datasets = append(out.Datasets, seededRecord{Key: d.Key, ID: l.Datasets[d.Key]})
	}
	for _, m := range set.Models {
		out.Models = append(out.Models, seededRecord{Key: m.Key, ID: l.Models[m.Key]})
	}
	for i, c := range set.Conversations {
		out.Conversations = append(out.Conversations, seededRecord{Title: c.Title, ID: l.Conversations[i]})
	}
	for i, e := range set.Evaluations {
		out.Evaluations = append(out.Evaluations, seededRecord{Name: e.Name, ID: l.Evaluations[i]})
	}
	return out
}
