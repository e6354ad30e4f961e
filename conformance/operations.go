package conformance

import (
	"fmt"
	"strings"

	"contractkit/spec"
)

// The contract's operations as the checks name them: the seed clause
// of each, a title for check texts, and the operations that name a
// resource.

// opClauses maps each operation to its seed clause: §4.N.k is the k-th
// endpoint of section 4.N in the seed's order (see clauses.go).
var opClauses = map[string]string{
	"listModels": "4.1.1", "getModel": "4.1.2", "createModel": "4.1.3", "deleteModel": "4.1.4",
	"listConversations": "4.2.1", "createConversation": "4.2.2", "renameConversation": "4.2.3",
	"deleteConversation": "4.2.4", "listMessages": "4.2.5",
	"listDatasets": "4.3.1", "getDataset": "4.3.2", "createDataset": "4.3.3",
	"uploadDatasetFiles": "4.3.4", "deleteDataset": "4.3.5",
	"runInference":    "4.4.1",
	"listEvaluations": "4.5.1", "createEvaluation": "4.5.2", "getEvaluation": "4.5.3",
	"updateEvaluation": "4.5.4", "deleteEvaluation": "4.5.5", "checkEvaluationName": "4.5.6",
	"startEvaluation": "4.5.7", "runRagasEvaluation": "4.5.8",
}

// opTitle names an operation in check texts.
func opTitle(op spec.Operation) string {
	return fmt.Sprintf("%s %s (%s)", strings.ToUpper(op.Method), op.Path, op.ID)
}

// idOperations are the operations that name a resource: by a path id, or
// by an id in the body or query that must exist in the caller's account.
var idOperations = []string{
	"getModel", "deleteModel", "createModel",
	"listConversations", "createConversation", "renameConversation", "deleteConversation", "listMessages",
	"getDataset", "deleteDataset", "uploadDatasetFiles",
	"runInference",
	"createEvaluation", "getEvaluation", "updateEvaluation", "deleteEvaluation", "startEvaluation", "runRagasEvaluation",
}
