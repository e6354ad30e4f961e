#!/usr/bin/env bash
# make test: the targets CI runs, in two lanes at once. One lane is the Go
# work that keeps the cores busy (vet, the race-enabled tests, the suite
# against the mock and every mutant); the other mostly waits (on Chromium,
# npm, timers of the soak, the linters' start-up), so it costs the first
# lane little and saves its whole length, and ends with the reference
# model's proofs, one caller on one core.
#
# Each lane runs its targets in order and stops at its first failure; the
# other lane runs on. A lane's output goes to build/test-<lane>.log, shown
# whole when the lane ends, with a line per target as it ends (its time,
# for the Makefile's help). Both lanes use the binaries make build wrote
# before them (-o build: no lane rebuilds bin/ under the other).
#
# usage: scripts/test-lanes.sh "LANE=TARGET ..." "LANE=TARGET ..."
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build

lane() {
	local name=$1
	shift
	local log="build/test-$name.log" t start rc
	: >"$log"
	for t in "$@"; do
		start=$SECONDS
		make --no-print-directory -o build "$t" >>"$log" 2>&1
		rc=$?
		if [ $rc -ne 0 ]; then
			echo "[$name] $t FAILED after $((SECONDS - start)) s (exit $rc)"
			return $rc
		fi
		echo "[$name] $t ok in $((SECONDS - start)) s"
	done
}

names=()
pids=()
for spec in "$@"; do
	name=${spec%%=*}
	read -r -a targets <<<"${spec#*=}"
	lane "$name" "${targets[@]}" &
	pids+=($!)
	names+=("$name")
done

status=0
failed=()
for i in "${!pids[@]}"; do
	if ! wait "${pids[$i]}"; then
		status=1
		failed+=("${names[$i]}")
	fi
done
for name in "${names[@]}"; do
	echo
	echo "==================== lane $name (build/test-$name.log) ===================="
	cat "build/test-$name.log"
done
echo
if [ $status -ne 0 ]; then
	echo "make test: failed in lane(s) ${failed[*]} (their logs above; each lane stops at its first failing target)"
else
	echo "make test: every target passed (${SECONDS} s)"
fi
exit $status
