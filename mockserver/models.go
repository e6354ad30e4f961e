package mockserver

import (
	"contractkit/mockserver/store"
	"contractkit/spec"
)

// modelRoutes serves the model resource (API reference v1, §4.1).
func (s *Server) modelRoutes() map[string]handler {
	return map[string]handler{
		spec.OpListModels:  func(c *call) (any, error) { return c.account.Models(), nil },
		spec.OpGetModel:    func(c *call) (any, error) { return c.account.ModelJSON(c.params["model_id"]) },
		spec.OpCreateModel: createModel,
		spec.OpDeleteModel: func(c *call) (any, error) { return c.account.DeleteModel(c.params["model_id"]) },
	}
}

func createModel(c *call) (any, error) {
	// The body is in the declared shape: normalize rewrote the alternatives (D-21).
	var in struct {
		ModelName      string  `json:"model_name"`
		DatasetID      string  `json:"dataset_id"`
		Description    *string `json:"description"`
		BaseModelID    *int64  `json:"base_model_id"`
		TrainingTypeID *string `json:"training_type_id"`
		UseCaseID      *int64  `json:"use_case_id"`
		PersonaID      *int64  `json:"persona_id"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	return c.account.CreateModel(store.ModelInput{
		Name: in.ModelName, DatasetID: in.DatasetID, Description: in.Description, BaseModelID: in.BaseModelID,
		TrainingTypeID: in.TrainingTypeID, UseCaseID: in.UseCaseID, PersonaID: in.PersonaID,
	})
}
