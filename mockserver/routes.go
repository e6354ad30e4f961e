package mockserver

import (
	"encoding/json"
	"net/http"
	"strconv"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/ragas"
	"contractkit/mockserver/store"
)

// routes maps every operationId of the contract to its handler; New refuses
// to start when an operation has none, so the mock cannot silently lag the
// contract.
func (s *Server) routes() map[string]handler {
	return map[string]handler{
		"listModels":          func(c *call) (any, error) { return c.account.Models(), nil },
		"getModel":            func(c *call) (any, error) { return c.account.Model(c.params["model_id"]) },
		"createModel":         createModel,
		"deleteModel":         func(c *call) (any, error) { return c.account.DeleteModel(c.params["model_id"]) },
		"listConversations":   listConversations,
		"createConversation":  createConversation,
		"renameConversation":  renameConversation,
		"deleteConversation":  func(c *call) (any, error) { return c.account.DeleteConversation(c.params["conversation_id"]) },
		"listMessages":        func(c *call) (any, error) { return c.account.Messages(c.params["conversation_id"]) },
		"listDatasets":        func(c *call) (any, error) { return c.account.Datasets(), nil },
		"getDataset":          func(c *call) (any, error) { return c.account.Dataset(c.params["dataset_id"]) },
		"createDataset":       s.createDataset,
		"uploadDatasetFiles":  s.uploadDatasetFiles,
		"deleteDataset":       deleteDataset,
		"runInference":        s.runInference,
		"listEvaluations":     listEvaluations,
		"createEvaluation":    createEvaluation,
		"checkEvaluationName": func(c *call) (any, error) { return c.account.CheckName(c.r.URL.Query().Get("name")), nil },
		"getEvaluation":       func(c *call) (any, error) { return c.account.Evaluation(c.params["evaluation_id"]) },
		"updateEvaluation":    updateEvaluation,
		"deleteEvaluation":    func(c *call) (any, error) { return c.account.DeleteEvaluation(c.params["evaluation_id"]) },
		"startEvaluation":     func(c *call) (any, error) { return c.account.StartEvaluation(c.params["evaluation_id"]) },
		"runRagasEvaluation":  runRagas,
	}
}

// decode reads the validated JSON body into v.
func (c *call) decode(v any) error {
	if c.body == nil {
		return nil
	}
	if err := json.Unmarshal(c.body, v); err != nil {
		// The contract validated the body, so only a type the contract
		// allows but v cannot hold gets here.
		return apierr.New(apierr.Invalid, "request body: %s", jsonProblem(err))
	}
	return nil
}

// queryInt reads a validated integer query parameter, or def when absent.
func (c *call) queryInt(name string, def int) int {
	v := c.r.URL.Query().Get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return n
}

func createModel(c *call) (any, error) {
	var in struct {
		ModelName      string          `json:"model_name"`
		Name           string          `json:"name"`
		DatasetID      json.RawMessage `json:"dataset_id"`
		Dataset        json.RawMessage `json:"dataset"`
		Description    *string         `json:"description"`
		BaseModelID    *int64          `json:"base_model_id"`
		TrainingTypeID *string         `json:"training_type_id"`
		UseCaseID      *int64          `json:"use_case_id"`
		PersonaID      *int64          `json:"persona_id"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	name := in.ModelName
	if name == "" {
		name = in.Name // D-21
	}
	raw := in.DatasetID
	if len(raw) == 0 {
		raw = in.Dataset // D-21
	}
	return c.account.CreateModel(store.ModelInput{
		Name: name, DatasetID: idFromJSON(raw), Description: in.Description, BaseModelID: in.BaseModelID,
		TrainingTypeID: in.TrainingTypeID, UseCaseID: in.UseCaseID, PersonaID: in.PersonaID,
	})
}

// idFromJSON reads an id sent as a JSON string or number (D-21).
func idFromJSON(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

func listConversations(c *call) (any, error) {
	return c.account.Conversations(c.r.URL.Query().Get("model_id"), c.queryInt("limit", 50), c.queryInt("offset", 0))
}

func createConversation(c *call) (any, error) {
	var in struct {
		ModelID int64  `json:"model_id"`
		Title   string `json:"title"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	return c.account.CreateConversation(in.ModelID, in.Title)
}

func renameConversation(c *call) (any, error) {
	var in struct {
		Title *string `json:"title"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.Title == nil && c.r.URL.Query().Has("title") {
		t := c.r.URL.Query().Get("title") // D-21
		in.Title = &t
	}
	if in.Title == nil {
		return nil, apierr.New(apierr.Invalid, "title: required (in the JSON body)")
	}
	return c.account.RenameConversation(c.params["conversation_id"], *in.Title)
}

func deleteDataset(c *call) (any, error) {
	permanent, _ := strconv.ParseBool(c.r.URL.Query().Get("permanent"))
	return c.account.DeleteDataset(c.params["dataset_id"], permanent)
}

func listEvaluations(c *call) (any, error) {
	return c.account.Evaluations(c.r.URL.Query().Get("status"), c.queryInt("page", 1), c.queryInt("per_page", 20)), nil
}

func createEvaluation(c *call) (any, error) {
	in := store.EvaluationInput{Type: "ragas", BenchmarkType: "beir", QuestionCount: 10} // D-09 defaults
	var body struct {
		Name          string  `json:"name"`
		Type          *string `json:"type"`
		ModelID       int64   `json:"model_id"`
		BenchmarkType *string `json:"benchmark_type"`
		QuestionCount *int    `json:"question_count"`
		Description   string  `json:"description"`
	}
	if err := c.decode(&body); err != nil {
		return nil, err
	}
	in.Name, in.ModelID, in.Description = body.Name, body.ModelID, body.Description
	if body.Type != nil {
		in.Type = *body.Type
	}
	if body.BenchmarkType != nil {
		in.BenchmarkType = *body.BenchmarkType
	}
	if body.QuestionCount != nil {
		in.QuestionCount = *body.QuestionCount
	}
	return c.account.CreateEvaluation(in)
}

func updateEvaluation(c *call) (any, error) {
	var in struct {
		Name        *string `json:"name"`
		Description *string `json:"description"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	return c.account.UpdateEvaluation(c.params["evaluation_id"], in.Name, in.Description)
}

func runRagas(c *call) (any, error) {
	var in struct {
		Samples           []ragas.Sample `json:"samples"`
		SelectedQuestions []string       `json:"selected_questions"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	return c.account.RunRagas(c.params["evaluation_id"], in.Samples, in.SelectedQuestions)
}

// health answers load balancers and CI wait loops; it needs no key.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		apierr.Write(w, s.log, apierr.New(apierr.MethodNotAllowed, "use GET"))
		return
	}
	apierr.WriteData(w, map[string]string{"status": "ok"})
}
