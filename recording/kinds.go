package recording

// What the recorder keeps of each resource of the contract, and the
// x-effect rules it applies. The fixture format holds four kinds of
// record (datasets with their files, models, conversations with their
// messages, evaluations); each is keyed here by its resource's id
// parameter in the contract, and an operation's place on its resource
// (spec.Place) and its x-effect marks say which of these an exchange of it
// runs (routes.go). An operation whose place and marks reach nothing here
// is named by the operation index (internal/opindex) until this file
// learns it.

// step is one change an exchange makes to an account; it returns why the
// exchange was not recorded, or not wholly, or "".
type step func(a *account, x Exchange, in request) string

// kind is what the recorder does with one resource's exchanges.
type kind struct {
	// read takes one record from an answer that is the record (a create,
	// a read, an update, an action that answers the record it changed);
	// a read by id answered 404 removes it.
	read step
	// create, when set, replaces read for a create: the request says
	// what the answer may leave out (a multipart form's fields).
	create step
	// list takes a list answer: the records it holds and, when the list
	// is whole, the records it lacks are gone.
	list step
	// remove deletes the record of the path's id.
	remove step
	// colls are the collections a record holds that a GET under its item
	// lists, by the path's last segment ("messages"): read by id.
	colls map[string]step
	// files adds the accepted file parts of an upload to the record of
	// id (the x-effect rule "files"); nil: the record holds no files.
	files func(a *account, id int64, files []upload)
	// exchange appends a question and its answer to the record of id
	// (the x-effect rule "exchange"), with the roles the mark names and
	// the request body; nil: the record holds no messages.
	exchange func(a *account, id string, roles [2]string, question, answer string, body map[string]any)
	// state sets a state field of the record of id (the x-effect rule
	// "state" with one state to move to); nil: no state is kept.
	state func(a *account, id, field, to string) string
}

// kinds are the recorder's kinds, by the resource's id parameter.
var kinds = map[string]kind{
	"dataset_id": {
		read: readDataset, create: createDataset, list: listDatasets, remove: deleteDataset,
		files: func(a *account, id int64, files []upload) {
			d := a.dataset(id)
			d.files = append(d.files, files...)
		},
	},
	"model_id": {read: readModel, list: listModels, remove: deleteModel},
	"conversation_id": {
		read: readConversation, list: listConversations, remove: deleteConversation,
		colls:    map[string]step{"messages": readMessages},
		exchange: appendExchange,
	},
	"evaluation_id": {read: readEvaluation, list: listEvaluations, remove: deleteEvaluation, state: setEvaluationState},
}
