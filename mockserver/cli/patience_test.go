package cli

import "time"

// patience bounds every wait of these tests on something that happens
// (a child listening, a read, an exit). Each wait ends as soon as its event
// does, so a generous bound costs nothing when all is well; a tight one only
// fails a healthy run on a machine busy with other builds.
const patience = 2 * time.Minute
