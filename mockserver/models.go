package mockserver

import (
	"encoding/json"

	"contractkit/mockserver/store"
)

// modelRoutes serves the model resource (API reference v1, §4.1).
func (s *Server) modelRoutes() map[string]handler {
	return map[string]handler{
		"listModels":  func(c *call) (any, error) { return c.account.Models(), nil },
		"getModel":    func(c *call) (any, error) { return c.account.Model(c.params["model_id"]) },
		"createModel": createModel,
		"deleteModel": func(c *call) (any, error) { return c.account.DeleteModel(c.params["model_id"]) },
	}
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
