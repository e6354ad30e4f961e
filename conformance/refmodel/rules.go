package refmodel

// ruleSpec is one prediction rule an x-predict mark may name.
type ruleSpec struct {
	// need and may are its parameters, required and optional.
	need, may []string
	// reason: the mark must say why (an exemption, a latitude).
	reason bool
	// descends: what is below the property (an object's properties, an
	// array's items) is judged by its own marks.
	descends bool
	judge    func(c *cell)
}

// rules are every rule the model implements, by the name marks use. Each
// is written once and applies to every field whose mark names it: a new
// field with a known kind of mark needs no Go.
var rules map[string]ruleSpec

func init() {
	rules = map[string]ruleSpec{
		// The record's own id: the one the path names, never another's.
		"identity": {judge: ruleIdentity},
		// What a request wrote (x-stored on the request says where); unset:
		// what it is before any write (default, empty); unique: no two live
		// records share it; on-delete: it names another resource, and what
		// a delete of that one does to this one (cascade, keep).
		"stored": {may: []string{"unset", "unique", "on-delete"}, judge: ruleStored},
		// A request field kept split into a list, or as the text sent.
		"split": {need: []string{"from", "seps"}, judge: ruleSplit},
		// A value of the request answered back (param "query:page",
		// "body:thread_id", "form:dataset_id", "path"); unset: default,
		// nonempty, any.
		"echo": {need: []string{"param"}, may: []string{"unset", "default-seed"}, judge: ruleEcho},
		// A field of the record the call acts on.
		"target": {need: []string{"field"}, judge: ruleTarget},
		// The number of items of one of the record's collections.
		"count": {need: []string{"of"}, judge: ruleCount},
		// The sum of a field over a collection's items.
		"sum": {need: []string{"of", "field"}, judge: ruleSum},
		// A field of a collection's latest item; none: what it is while
		// there is none.
		"last": {need: []string{"of", "field"}, may: []string{"none", "after"}, judge: ruleLast},
		// A state field: its x-transitions machine says what a new record
		// starts in and where it may move.
		"state": {judge: ruleState},
		// Null, present or a value by the record's state (when: state →
		// present, null, any, rising or a value; '*' the others).
		"by-state": {need: []string{"state", "when"}, may: []string{"after", "unless-gone"}, descends: true, judge: ruleByState},
		// A field of the record another field of this one names.
		"ref": {need: []string{"via", "field"}, may: []string{"gone"}, judge: ruleRef},
		// A time: created (never changes, not before an earlier record's),
		// updated (never goes back); after: fields it is not before.
		"time": {need: []string{"kind"}, may: []string{"after"}, judge: ruleTime},
		// What the server chose: remembered, and the same until a write, an
		// effect or a state change.
		"latitude": {reason: true, judge: ruleLatitude},
		// One value, always.
		"constant": {need: []string{"value"}, judge: ruleConstant},
		// Not predicted, for the reason given.
		"free": {reason: true, judge: func(*cell) {}},
		// Always there, an object: its properties carry the predictions.
		"object": {descends: true, judge: ruleObject},
		// A number within bounds.
		"range": {may: []string{"min", "max"}, judge: ruleRange},
		// The generated answer: text, not empty.
		"answer": {judge: ruleAnswer},
		// Tokens an answer used: at least one for an answer, at most the
		// request's bound (param).
		"tokens": {may: []string{"param"}, judge: ruleTokens},
		// A list's items: the records of its scope and filter, in order
		// (oldest, newest or any), paged by the x-paging parameters.
		"list": {need: []string{"order"}, descends: true, judge: ruleList},
		// How many records the list's scope and filter hold.
		"total": {judge: ruleTotal},
		// A collection of the record, item by item.
		"collection": {need: []string{"of"}, descends: true, judge: ruleCollection},
		// A field of the collection item the walk stands on.
		"item": {need: []string{"field"}, judge: ruleItem},
		// The call's file parts: kept or failed, counted, summed, named or
		// listed.
		"parts": {need: []string{"of", "as"}, descends: true, judge: ruleParts},
		// The questions a run scored.
		"scored": {descends: true, judge: ruleScored},
		// Each score the mean of the items' scores.
		"mean": {need: []string{"of", "field"}, judge: ruleMean},
		// Whether a name follows the naming rules.
		"name-valid": {need: []string{"param"}, judge: ruleNameValid},
		// Whether no live record of a kind has the name.
		"name-free": {need: []string{"param", "of", "field"}, judge: ruleNameFree},
	}
}
