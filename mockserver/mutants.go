package mockserver

// mutants is every deliberate violation (and valid variant) the mock can
// show, by name. Adding one is adding an entry here.
var mutants = []*mutant{}
