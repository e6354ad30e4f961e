package recording

import (
	"net/http"
	"strings"
)

// operation is what an exchange of one contract operation does to an
// account. apply returns why the exchange was not recorded, or not wholly,
// or "".
type operation struct {
	// readByID: a 404 answer means the record is gone (the server said so).
	readByID bool
	apply    func(a *account, x Exchange, in request) string
	id       string // the path's id, when the operation has one
	// multipart: the request body is a multipart form (seed §4.3).
	multipart bool
}

// request is what is read of an exchange before the Recorder's lock is
// taken: the path's id and, for the two uploads, the multipart form (the
// largest body; parsing it must not hold up other exchanges).
type request struct {
	id      string
	form    form
	formErr error
}

// apiPrefix starts every path of the contract (seed §9); what comes before
// it is the target's base path.
const apiPrefix = "/api/v1/"

// route finds the operation of a request (seed §4) that holds recordable
// data; check-name and unknown paths have none.
func route(method, path string) (operation, bool) {
	i := strings.Index(path, apiPrefix)
	if i < 0 {
		return operation{}, false
	}
	parts := strings.Split(strings.Trim(path[i+len(apiPrefix):], "/"), "/")
	op := func(readByID bool, f func(*account, Exchange, request) string, id string) (operation, bool) {
		return operation{readByID: readByID, apply: f, id: id}, true
	}
	at := func(i int) string {
		if i < len(parts) {
			return parts[i]
		}
		return ""
	}
	switch {
	case at(0) == "user" && at(1) == "dataset" && len(parts) == 2:
		switch method {
		case http.MethodPost:
			return operation{apply: createDataset, multipart: true}, true
		case http.MethodGet:
			return op(false, listDatasets, "")
		}
	case at(0) == "user" && at(1) == "dataset" && at(2) == "upload" && len(parts) == 3 && method == http.MethodPost:
		return operation{apply: uploadFiles, multipart: true}, true
	case at(0) == "user" && at(1) == "dataset" && len(parts) == 3:
		switch method {
		case http.MethodGet:
			return op(true, readDataset, at(2))
		case http.MethodDelete:
			return op(false, deleteDataset, at(2))
		}
	case at(0) == "user" && at(1) == "model" && len(parts) == 2:
		switch method {
		case http.MethodPost:
			return op(false, readModel, "")
		case http.MethodGet:
			return op(false, listModels, "")
		}
	case at(0) == "user" && at(1) == "model" && len(parts) == 3:
		switch method {
		case http.MethodGet:
			return op(true, readModel, at(2))
		case http.MethodDelete:
			return op(false, deleteModel, at(2))
		}
	case at(0) == "user" && at(1) == "conversations" && len(parts) == 2:
		switch method {
		case http.MethodPost:
			return op(false, readConversation, "")
		case http.MethodGet:
			return op(false, listConversations, "")
		}
	case at(0) == "user" && at(1) == "conversations" && len(parts) == 3:
		switch method {
		case http.MethodPatch:
			return op(false, readConversation, at(2))
		case http.MethodDelete:
			return op(false, deleteConversation, at(2))
		}
	case at(0) == "user" && at(1) == "conversations" && at(3) == "messages" && len(parts) == 4 && method == http.MethodGet:
		return op(true, readMessages, at(2))
	case at(0) == "user" && at(1) == "inference" && len(parts) == 2 && method == http.MethodPost:
		return op(false, inference, "")
	case at(0) == "evaluations" && len(parts) == 1:
		switch method {
		case http.MethodPost:
			return op(false, readEvaluation, "")
		case http.MethodGet:
			return op(false, listEvaluations, "")
		}
	case at(0) == "evaluations" && len(parts) == 2 && at(1) != "check-name":
		switch method {
		case http.MethodGet:
			return op(true, readEvaluation, at(1))
		case http.MethodPut:
			return op(false, readEvaluation, at(1))
		case http.MethodDelete:
			return op(false, deleteEvaluation, at(1))
		}
	case at(0) == "evaluations" && len(parts) == 3 && method == http.MethodPost:
		switch at(2) {
		case "start":
			return op(false, startEvaluation, at(1))
		case "run-ragas":
			return op(false, readEvaluation, at(1))
		}
	}
	return operation{}, false
}
