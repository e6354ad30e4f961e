package drive

// What the driver knows of the service that no mark of the contract says:
// one state the run provokes through the data a resource is built from.

// starvedEnds is the state an evaluation's run ends in when its model has
// nothing to answer from (D-12: "failed when the model has no data"): the
// tour puts a resource of a machine whose clock runs after an action in
// this state by making it refer to a model of a dataset without files.
const starvedEnds = "failed"
