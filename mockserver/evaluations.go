package mockserver

import (
	"contractkit/mockserver/ragas"
	"contractkit/spec"
)

// evaluationRoutes serves evaluations, their name check, their start and the
// RAGAS run over client-supplied samples (API reference v1, §4.5).
func (s *Server) evaluationRoutes() map[string]handler {
	return map[string]handler{
		spec.OpListEvaluations:     s.listEvaluations,
		spec.OpCreateEvaluation:    s.createEvaluation,
		spec.OpCheckEvaluationName: func(c *call) (any, error) { return c.account.CheckName(c.r.URL.Query().Get("name")), nil },
		spec.OpGetEvaluation:       func(c *call) (any, error) { return c.account.Evaluation(c.params["evaluation_id"]) },
		spec.OpUpdateEvaluation:    updateEvaluation,
		spec.OpDeleteEvaluation:    func(c *call) (any, error) { return c.account.DeleteEvaluation(c.params["evaluation_id"]) },
		spec.OpStartEvaluation:     func(c *call) (any, error) { return c.account.StartEvaluation(c.params["evaluation_id"]) },
		spec.OpRunRagasEvaluation:  runRagas,
	}
}

func (s *Server) listEvaluations(c *call) (any, error) {
	p := s.paging(c)
	return c.account.Evaluations(c.r.URL.Query().Get("status"), p["page"], p["size"]), nil
}

func (s *Server) createEvaluation(c *call) (any, error) {
	in := s.defaults.newEvaluation // the contract's defaults (D-09)
	var body struct {
		Name          string  `json:"name"`
		Type          *string `json:"type"`
		ModelID       int64   `json:"model_id"`
		BenchmarkType *string `json:"benchmark_type"`
		QuestionCount *int    `json:"question_count"`
		Description   *string `json:"description"`
	}
	if err := c.decode(&body); err != nil {
		return nil, err
	}
	in.Name, in.ModelID = body.Name, body.ModelID
	if body.Description != nil {
		in.Description = *body.Description
	}
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
