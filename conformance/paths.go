package conformance

import (
	"net/url"
	"strings"
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
