// Package lifecycle holds the mock server's state machines and the clocks
// that drive them.
//
// Two design rules shape everything here:
//
//   - Every state machine is one explicit table of allowed transitions
//     (see Table). Handlers never assign a state directly; they fire an event
//     and the table either yields the next state or refuses with a
//     *TransitionError. That keeps the mock's behaviour reviewable in one
//     place and lets the tests enumerate every allowed and refused move.
//
//   - Nothing runs in the background. A resource stores only timestamps
//     (when a run started, how long it takes) and its state is computed
//     lazily from an injected Clock whenever it is read. Tests therefore
//     advance a FakeClock instead of sleeping, and the admin "advance the
//     clock" endpoint shifts an account's OffsetClock so its resources finish
//     instantly without touching any other account.
package lifecycle
