package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/ragas"
	"contractkit/mockserver/retrieval"

	"contractkit/internal/textcut"
)

// EvaluationInput is an evaluation create request with defaults applied (D-09).
type EvaluationInput struct {
	Name          string
	Type          string
	ModelID       int64
	BenchmarkType string
	QuestionCount int
	Description   string
}

type evaluation struct {
	id            int64
	name          string
	typ           string
	modelID       int64
	modelName     string
	questionCount int
	description   string
	benchmarkType string
	status        lifecycle.State
	run           lifecycle.EvalRun
	results       *Results
	createdAt     time.Time
	updatedAt     time.Time
	startedAt     *time.Time
	completedAt   *time.Time
}

// Results are the scores of a finished run (D-10).
type Results struct {
	Scores  ragas.Scores   `json:"scores"`
	Samples []SampleResult `json:"samples"`
	Error   string         `json:"error,omitempty"`
}

// SampleResult is the scores of one question.
type SampleResult struct {
	Question string       `json:"question"`
	Scores   ragas.Scores `json:"scores"`
}

// EvaluationModel summarises the evaluated model (D-09).
type EvaluationModel struct {
	ID     int64   `json:"id"`
	Name   string  `json:"name"`
	Status *string `json:"status"`
}

// EvaluationView is an evaluation as the API shows it (seed §2.8).
type EvaluationView struct {
	ID            int64           `json:"id"`
	Name          string          `json:"name"`
	Type          string          `json:"type"`
	ModelID       int64           `json:"model_id"`
	QuestionCount int             `json:"question_count"`
	Description   string          `json:"description"`
	BenchmarkType string          `json:"benchmark_type"`
	Status        string          `json:"status"`
	Model         EvaluationModel `json:"model"`
	UserModel     any             `json:"user_model"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
	StartedAt     *time.Time      `json:"started_at"`
	CompletedAt   *time.Time      `json:"completed_at"`
	Results       *Results        `json:"results"`
}

// EvaluationPage is one page of the evaluation list (seed §4.5).
type EvaluationPage struct {
	Evaluations []EvaluationView `json:"evaluations"`
	Page        int              `json:"page"`
	PerPage     int              `json:"per_page"`
	Total       int              `json:"total"`
}

// NameCheck answers check-name (seed §2.9).
type NameCheck struct {
	Valid     bool   `json:"valid"`
	Available bool   `json:"available"`
	Message   string `json:"message"`
}

// StartResult answers start (seed §2.10).
type StartResult struct {
	Message string `json:"message"`
	ModelID int64  `json:"model_id"`
}

// validateName applies D-19 with the length bounds the server read from
// the contract (Config.EvaluationName); the error says which rule failed.
func (a *Account) validateName(name string) error { return a.store.CheckEvaluationName(name) }

// CheckEvaluationName applies D-19 to an evaluation's name, as a create,
// a rename and check-name do.
func (s *Store) CheckEvaluationName(name string) error {
	t := strings.TrimSpace(name)
	bound := s.cfg.EvaluationName
	switch n := utf8.RuneCountInString(t); {
	case t == "":
		return errors.New("name must not be empty or only spaces")
	case n < bound.Min:
		return fmt.Errorf("name must be at least %d characters", bound.Min)
	case bound.Max > 0 && n > bound.Max:
		return fmt.Errorf("name must be at most %d characters", bound.Max)
	}
	for _, r := range t {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" -_.():/", r) {
			return fmt.Errorf("name must contain only letters, digits, spaces and - _ . ( ) : / (found %q)", r)
		}
	}
	return nil
}

func (a *Account) nameTaken(name string, except int64) bool {
	t := strings.TrimSpace(name)
	for _, e := range a.evaluations {
		if e.id != except && strings.EqualFold(e.name, t) {
			return true
		}
	}
	return false
}

// CheckName reports whether name is valid and free (D-19).
func (a *Account) CheckName(name string) NameCheck {
	if err := a.validateName(name); err != nil {
		return NameCheck{Valid: false, Available: false, Message: "Invalid name: " + err.Error()}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.nameTaken(name, 0) {
		return NameCheck{Valid: true, Available: false, Message: "An evaluation with this name already exists"}
	}
	return NameCheck{Valid: true, Available: true, Message: "Name is available"}
}

// CreateEvaluation adds a pending evaluation of a model of the account.
func (a *Account) CreateEvaluation(in EvaluationInput) (EvaluationView, error) {
	if err := a.validateName(in.Name); err != nil {
		return EvaluationView{}, apierr.New(apierr.Invalid, "name: %v", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	m, err := a.model(idString(in.ModelID))
	if err != nil {
		return EvaluationView{}, err
	}
	if a.nameTaken(in.Name, 0) {
		return EvaluationView{}, apierr.New(apierr.Conflict, "name: an evaluation named %q already exists", strings.TrimSpace(in.Name))
	}
	now := a.now()
	e := &evaluation{
		id: a.nextID(), name: strings.TrimSpace(in.Name), typ: in.Type, modelID: m.id, modelName: m.name,
		questionCount: in.QuestionCount, description: in.Description, benchmarkType: in.BenchmarkType,
		status: lifecycle.EvalPending, createdAt: now, updatedAt: now,
	}
	a.evaluations[e.id] = e
	a.commit(change{Evaluation: ptr(e.snap())})
	return a.evaluationView(e), nil
}

// Evaluation returns one evaluation with its state as of now.
func (a *Account) Evaluation(id string) (EvaluationView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, err := a.evaluation(id)
	if err != nil {
		return EvaluationView{}, err
	}
	return a.evaluationView(e), nil
}

// Evaluations lists one page, newest first, optionally of one status (D-05).
func (a *Account) Evaluations(status string, page, perPage int) EvaluationPage {
	a.mu.Lock()
	defer a.mu.Unlock()
	var all []*evaluation
	for _, id := range sortedKeys(a.evaluations) {
		e := a.evaluations[id]
		a.advance(e)
		if status == "" || string(e.status) == status {
			all = append(all, e)
		}
	}
	slices.Reverse(all)
	out := EvaluationPage{Evaluations: []EvaluationView{}, Page: page, PerPage: perPage, Total: len(all)}
	for i := (page - 1) * perPage; i >= 0 && i < len(all) && len(out.Evaluations) < perPage; i++ {
		// Shown as filtered: advanced again here, a run that ended
		// since the filter would show a status outside it.
		out.Evaluations = append(out.Evaluations, a.viewOf(all[i]))
	}
	return out
}

// UpdateEvaluation changes name and/or description; the status is untouched.
func (a *Account) UpdateEvaluation(id string, name, description *string) (EvaluationView, error) {
	if name != nil {
		if err := a.validateName(*name); err != nil {
			return EvaluationView{}, apierr.New(apierr.Invalid, "name: %v", err)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	e, err := a.evaluation(id)
	if err != nil {
		return EvaluationView{}, err
	}
	if name != nil {
		if a.nameTaken(*name, e.id) {
			return EvaluationView{}, apierr.New(apierr.Conflict, "name: an evaluation named %q already exists", strings.TrimSpace(*name))
		}
		e.name = strings.TrimSpace(*name)
	}
	if description != nil {
		e.description = *description
	}
	e.updatedAt = a.now()
	a.commit(change{Evaluation: ptr(e.snap())})
	return a.evaluationView(e), nil
}

// DeleteEvaluation removes an evaluation unless it is running (seed §3.1
// rule 1, D-13): then it is refused with 409 and kept.
func (a *Account) DeleteEvaluation(id string) (DeleteResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, err := a.evaluation(id)
	if err != nil {
		return DeleteResult{}, err
	}
	if !lifecycle.CanDelete(e.status) {
		return DeleteResult{}, apierr.New(apierr.Conflict, "evaluation %d is running and cannot be deleted", e.id)
	}
	delete(a.evaluations, e.id)
	a.commit(change{Removed: &removed{Evaluations: []int64{e.id}}})
	return DeleteResult{Message: "Evaluation deleted", ID: idString(e.id)}, nil
}

// StartEvaluation fires "start": the run ends after the eval duration,
// failed when the model has no data to answer from (D-12).
func (a *Account) StartEvaluation(id string) (StartResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, err := a.evaluation(id)
	if err != nil {
		return StartResult{}, err
	}
	if err := a.start(e, a.now(), a.store.cfg.EvalDuration); err != nil {
		return StartResult{}, err
	}
	a.commit(change{Evaluation: ptr(e.snap())})
	return StartResult{Message: "Evaluation started", ModelID: e.modelID}, nil
}

func (a *Account) start(e *evaluation, at time.Time, d time.Duration) error {
	next, err := lifecycle.EvaluationTable().Fire(e.status, lifecycle.EvalStart)
	if err != nil {
		return apierr.New(apierr.Conflict, "evaluation %d is already %s", e.id, e.status)
	}
	e.status, e.results, e.completedAt = next, nil, nil
	e.run = lifecycle.EvalRun{StartedAt: at, Duration: d, WillFail: a.evalData(e) == nil}
	e.startedAt, e.updatedAt = ptr(at), at
	return nil
}

// RunRagas scores samples (D-10): pending/completed/failed → running →
// completed, both through the table; refused while running.
func (a *Account) RunRagas(id string, samples []ragas.Sample, selected []string) (EvaluationView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// What the request alone shows is judged before the evaluation is
	// looked up (D-48: a rule of the request before an unknown id).
	chosen := samples
	if len(selected) > 0 {
		chosen = nil
		for _, q := range selected {
			i := slices.IndexFunc(samples, func(s ragas.Sample) bool { return s.Question == q })
			if i < 0 {
				return EvaluationView{}, apierr.New(apierr.Invalid, "selected_questions: %q is not the question of any sample", textcut.Shorten(q, 80))
			}
			chosen = append(chosen, samples[i])
		}
	}
	e, err := a.evaluation(id)
	if err != nil {
		return EvaluationView{}, err
	}
	now := a.now()
	if err := a.start(e, now, 0); err != nil {
		return EvaluationView{}, err
	}
	// From here the evaluation has changed, whatever comes next.
	defer func() { a.commit(change{Evaluation: ptr(e.snap())}) }()
	// No samples (the vendor's docs send `samples: []`): the evaluation's own
	// questions, drawn from the model's data, are answered and scored (D-10).
	results, ev := scoreAll(chosen), lifecycle.EvalFinish
	if len(samples) == 0 {
		if results = a.benchmark(e); results.Error != "" {
			ev = lifecycle.EvalFail
		}
	} else {
		e.questionCount = len(chosen)
	}
	if e.status, err = lifecycle.EvaluationTable().Fire(e.status, ev); err != nil {
		return EvaluationView{}, err
	}
	e.results = results
	e.completedAt, e.updatedAt = ptr(now), now
	return a.evaluationView(e), nil
}

// evaluation finds an evaluation, brought to its state as of now: a run
// whose time is up is finished for every action, not only for reads. The
// caller holds a.mu.
func (a *Account) evaluation(id string) (*evaluation, error) {
	n, ok := parseID(id)
	if e := a.evaluations[n]; ok && e != nil {
		a.advance(e)
		return e, nil
	}
	return nil, apierr.New(apierr.NotFound, "evaluation %s not found", quoteID(id))
}

// evalData is the data the evaluated model answers from, nil when there is
// none (model deleted, dataset erased, or nothing readable uploaded).
func (a *Account) evalData(e *evaluation) *dataset {
	m := a.models[e.modelID]
	if m == nil {
		return nil
	}
	d := a.modelData(m)
	if d == nil || d.index.Len() == 0 {
		return nil
	}
	return d
}

// advance brings a running evaluation to its state as of now, through the
// table, and scores it when it completes. The caller holds a.mu.
func (a *Account) advance(e *evaluation) {
	if e.status != lifecycle.EvalRunning {
		return
	}
	next, err := lifecycle.AdvanceEvaluation(e.status, e.run, a.now())
	if err != nil || next == e.status {
		return
	}
	end := e.run.EndsAt().UTC()
	e.status, e.completedAt, e.updatedAt = next, &end, end
	if next == lifecycle.EvalFailed {
		e.results = &Results{Samples: []SampleResult{}, Error: "the model has no data to answer from"}
	} else {
		e.results = a.benchmark(e)
	}
	a.commit(change{Evaluation: ptr(e.snap())})
}

// benchmark asks the model questions generated from its own data and scores
// the answers: deterministic for the same data.
func (a *Account) benchmark(e *evaluation) *Results {
	d := a.evalData(e)
	if d == nil {
		return &Results{Samples: []SampleResult{}, Error: "the model has no data to answer from"}
	}
	var samples []ragas.Sample
	for i := 0; i < e.questionCount && i < len(d.samples); i++ {
		fact := d.samples[i]
		q := "What does the data say about " + strings.Join(firstWords(fact, 6), " ") + "?"
		passages := d.index.Search(fact, 3)
		ans := retrieval.Compose(q, passages, retrieval.Options{Length: retrieval.LengthConcise, Seed: a.store.cfg.Seed, Words: words})
		ctx := make([]string, 0, len(passages))
		for _, p := range passages {
			ctx = append(ctx, p.Text)
		}
		samples = append(samples, ragas.Sample{Question: q, Answer: ans.Text, Contexts: ctx, GroundTruth: fact})
	}
	return scoreAll(samples)
}

func scoreAll(samples []ragas.Sample) *Results {
	r := &Results{Samples: make([]SampleResult, 0, len(samples))}
	all := make([]ragas.Scores, 0, len(samples))
	for _, s := range samples {
		sc := ragas.Score(s)
		all = append(all, sc)
		r.Samples = append(r.Samples, SampleResult{Question: s.Question, Scores: sc})
	}
	r.Scores = ragas.Mean(all)
	return r
}

func (a *Account) evaluationView(e *evaluation) EvaluationView {
	a.advance(e)
	return a.viewOf(e)
}

// viewOf is e's view as it stands (evaluationView advances it first).
func (a *Account) viewOf(e *evaluation) EvaluationView {
	v := EvaluationView{
		ID: e.id, Name: e.name, Type: e.typ, ModelID: e.modelID, QuestionCount: e.questionCount,
		Description: e.description, BenchmarkType: e.benchmarkType, Status: string(e.status),
		Model:     EvaluationModel{ID: e.modelID, Name: e.modelName},
		CreatedAt: e.createdAt, UpdatedAt: e.updatedAt, StartedAt: e.startedAt, CompletedAt: e.completedAt,
		Results: e.results,
	}
	if m := a.models[e.modelID]; m != nil {
		v.Model.Name = m.name
		v.Model.Status = ptr(lifecycle.TrainingState(m.training, a.now()).Status)
	}
	return v
}

func firstWords(s string, n int) []string {
	f := strings.Fields(strings.TrimRight(s, ".!?"))
	return f[:min(n, len(f))]
}
