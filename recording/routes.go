package recording

import (
	"net/http"
	"net/url"
	"strings"

	"contractkit/spec"
)

// operation is what an exchange of one contract operation does to an
// account. apply returns why the exchange was not recorded, or not wholly,
// or "".
type operation struct {
	// readByID: a 404 answer means the record is gone (the server said so).
	readByID bool
	apply    func(a *account, x Exchange, in request) string
	// multipart: the request body is a multipart form (seed §4.3).
	multipart bool
	id        string // the path's id, when the operation has one
}

// request is what is read of an exchange before the Recorder's lock is
// taken: the path's id and, for the two uploads, the multipart form (the
// largest body; parsing it must not hold up other exchanges).
type request struct {
	id      string
	form    form
	formErr error
}

// operations is the recorder's table, keyed by the contract's operationId
// (spec/openapi.yaml): what an exchange of each operation does to an
// account. The contract's router finds the operation of an exchange; an
// operation that holds no recordable data is in unrecorded instead, with
// the reason, and internal/opindex fails while an operation of the contract
// is in neither.
var operations = map[string]operation{
	"listDatasets":       {apply: listDatasets},
	"createDataset":      {apply: createDataset, multipart: true},
	"uploadDatasetFiles": {apply: uploadFiles, multipart: true},
	"getDataset":         {apply: readDataset, readByID: true},
	"deleteDataset":      {apply: deleteDataset},

	"listModels":  {apply: listModels},
	"createModel": {apply: readModel},
	"getModel":    {apply: readModel, readByID: true},
	"deleteModel": {apply: deleteModel},

	"listConversations":  {apply: listConversations},
	"createConversation": {apply: readConversation},
	"renameConversation": {apply: readConversation},
	"deleteConversation": {apply: deleteConversation},
	"listMessages":       {apply: readMessages, readByID: true},
	"runInference":       {apply: inference},

	"listEvaluations":    {apply: listEvaluations},
	"createEvaluation":   {apply: readEvaluation},
	"getEvaluation":      {apply: readEvaluation, readByID: true},
	"updateEvaluation":   {apply: readEvaluation},
	"deleteEvaluation":   {apply: deleteEvaluation},
	"startEvaluation":    {apply: startEvaluation},
	"runRagasEvaluation": {apply: readEvaluation},
}

// unrecorded are the operations of the contract whose exchanges the
// recorder leaves out, each with the reason.
var unrecorded = map[string]string{
	"checkEvaluationName": "a name check changes nothing and reads nothing a fixture holds",
}

// apiPrefix starts every path of the contract (seed §9); what comes before
// it is the target's base path.
const apiPrefix = "/api/v1/"

// route finds, with the contract's router, the operation of a request that
// holds recordable data; check-name and paths outside the contract have
// none. The operation's id is the value of its path parameter (every
// operation of the contract names at most one record in its path).
func route(method, path string) (operation, bool) {
	i := strings.Index(path, apiPrefix)
	if i < 0 {
		return operation{}, false
	}
	// path is decoded (an http.Request's URL.Path): the router is given it
	// as it is, and gives its segments back escaped.
	kop, params, _, found := spec.Strict().Find(&http.Request{Method: method, URL: &url.URL{Path: path[i:]}})
	if !found {
		return operation{}, false
	}
	op, ok := operations[kop.OperationID]
	if !ok {
		return operation{}, false
	}
	for _, v := range params {
		if id, err := url.PathUnescape(v); err == nil {
			op.id = id
		}
	}
	return op, true
}

// OperationTable is the recorder's table for the kit's operation index
// (internal/opindex): every operationId it knows, mapped to "" when the
// recorder handles its exchanges or to the reason it leaves them out.
func OperationTable() (name, file string, entries map[string]string) {
	entries = map[string]string{}
	for id := range operations {
		entries[id] = ""
	}
	for id, why := range unrecorded {
		entries[id] = why
	}
	return "recording: what an exchange of each operation does to an account", "recording/routes.go", entries
}
