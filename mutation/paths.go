package mutation

// The contract's paths the wrappers match and ask, each named once here
// (paths_test.go checks every one is a path of spec/openapi.yaml).
const (
	pathModels        = "/api/v1/user/model"
	pathDatasets      = "/api/v1/user/dataset"
	pathDatasetUpload = "/api/v1/user/dataset/upload"
	pathConversations = "/api/v1/user/conversations"
	pathInference     = "/api/v1/user/inference"
	pathEvaluations   = "/api/v1/evaluations"
)

// adminPrefix is where the mock's own controls live, outside the contract
// (mockserver/admin.go): no mutant touches them.
const adminPrefix = "/admin/"
