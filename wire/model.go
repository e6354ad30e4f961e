// Package wire holds the Go type of a resource's shape where more than one
// part of the kit writes or reads it: the Model (seed §2.1) with its
// Metrics (§2.2) and DatasetInfo (§2.3). The mock serves it
// (mockserver/store), the mock's and the kit's tests read answers into it.
// Its test holds it to the contract's schema, field by field, so the type
// cannot drift from the contract. It links only the standard library:
// every layer may import it.
package wire

import "time"

// Metrics is Model.metrics (seed §2.2): null until the model is trained.
type Metrics struct {
	Accuracy            float64 `json:"accuracy"`
	Loss                float64 `json:"loss"`
	ValidationAccuracy  float64 `json:"validationAccuracy"`
	TrainingTime        string  `json:"trainingTime"`
	EpochsCompleted     int     `json:"epochsCompleted"`
	ParametersOptimized string  `json:"parametersOptimized"`
}

// DatasetInfo is Model.dataset_info (seed §2.3): null until the model is
// trained.
type DatasetInfo struct {
	Name     string    `json:"name"`
	Size     int64     `json:"size"`
	Samples  int64     `json:"samples"`
	DataType string    `json:"data_type"`
	Updated  time.Time `json:"updated_at"`
}

// Model is a model as the API shows it: every field of seed §2.1, in the
// contract's Model schema (components.schemas.Model). A nullable field is
// a pointer (or any, for the seed's "any type or null"), so that the JSON
// carries null rather than a zero; every field is written, none omitted.
type Model struct {
	ID                           int64        `json:"id"`
	Name                         string       `json:"name"`
	Description                  *string      `json:"description"`
	Category                     *string      `json:"category"`
	SizeNumeric                  *int64       `json:"size_numeric"`
	BaseModelName                *string      `json:"base_model_name"`
	TrainedModelID               *int64       `json:"trained_model_id"`
	TrainingTypeID               *string      `json:"training_type_id"`
	DatasetID                    *int64       `json:"dataset_id"`
	FilePath                     *string      `json:"file_path"`
	BaseModelID                  *int64       `json:"base_model_id"`
	PersonaID                    *int64       `json:"personaId"`
	UseCaseID                    any          `json:"use_case_id"`
	UseCaseName                  any          `json:"use_case_name"`
	UseCaseLabel                 any          `json:"use_case_label"`
	UseCaseDescription           any          `json:"use_case_description"`
	UseCaseCustom                any          `json:"use_case_custom"`
	OnboardingGoal               any          `json:"onboarding_goal"`
	OnboardingRole               any          `json:"onboarding_role"`
	HasImage                     *bool        `json:"has_image"`
	TrainedAt                    *time.Time   `json:"trained_at"`
	Status                       *string      `json:"status"`
	GraphStatus                  *string      `json:"graph_status"`
	GraphBuildProgress           *int         `json:"graph_build_progress"`
	FineTuningStatus             *bool        `json:"fine_tuning_status"`
	Metrics                      *Metrics     `json:"metrics"`
	DatasetInfo                  *DatasetInfo `json:"dataset_info"`
	ExternalModelID              any          `json:"external_model_id"`
	ExternalProviderType         any          `json:"external_provider_type"`
	ExternalModelCapabilities    any          `json:"external_model_capabilities"`
	FineTune                     *string      `json:"fine_tune"`
	TokenSpeed                   *float64     `json:"token_speed"`
	ResponseTime                 *float64     `json:"response_time"`
	SuccessRate                  *float64     `json:"success_rate"`
	IsPrivate                    *bool        `json:"is_private"`
	SharedWithOrganization       *bool        `json:"shared_with_organization"`
	TeamIDs                      []any        `json:"team_ids"`
	TeamNames                    []any        `json:"team_names"`
	OwnerEmail                   *string      `json:"owner_email"`
	IsShared                     *bool        `json:"is_shared"`
	OrganizationName             *string      `json:"organization_name"`
	SharedUserCount              *int         `json:"shared_user_count"`
	DatasetSharingStatus         any          `json:"dataset_sharing_status"`
	PendingDatasetAccessRequests *int         `json:"pending_dataset_access_requests"`
	CreatedAt                    *time.Time   `json:"created_at"`
	UpdatedAt                    *time.Time   `json:"updated_at"`
}
