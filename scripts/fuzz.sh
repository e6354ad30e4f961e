#!/usr/bin/env bash
# Runs fuzz targets: scripts/fuzz.sh TARGET... where a TARGET is
# ./package:FuzzName:BUDGET, BUDGET a -fuzztime (a count such as 3000x, or
# a duration such as 30s).
#
# Each package's instrumented test binary is built once (go test -c -fuzz),
# into build/fuzz/, and runs each of its targets in turn from the package's
# directory (its testdata/fuzz corpus) with the fuzzing cache go test would
# give it: a package with three targets is built and linked once, not three
# times. A crasher is written to the package's testdata/fuzz/<Target>/, as
# with go test -fuzz. The first failing target stops the run.
#
# FUZZ_BUILD_ONLY=1 builds the binaries and runs nothing: the instrumented
# packages then sit in the build cache (CI builds them while it installs
# the Node tools), and a later run only links.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=build/fuzz
mkdir -p "$out"
cache=$(go env GOCACHE)/fuzz
module=$(go list -m)

declare -A built=()
for t in "$@"; do
	IFS=: read -r pkg name budget <<<"$t"
	if [[ -z $pkg || -z $name || -z $budget ]]; then
		echo "fuzz.sh: $t: want ./package:FuzzName:BUDGET" >&2
		exit 2
	fi
	bin=$root/$out/$(tr / _ <<<"${pkg#./}").test
	if [[ -z ${built[$pkg]:-} ]]; then
		start=$SECONDS
		go test -c -fuzz . -o "$bin" "$pkg"
		echo "built $pkg for fuzzing in $((SECONDS - start)) s"
		built[$pkg]=1
	fi
	[[ -n ${FUZZ_BUILD_ONLY:-} ]] && continue
	echo "fuzz $name ($pkg) for $budget"
	start=$SECONDS
	# -test.timeout bounds a hang (an input that never returns), far
	# past any budget here; a count budget has no deadline of its own.
	(cd "$pkg" && "$bin" -test.run '^$' -test.fuzz "^$name\$" -test.fuzztime "$budget" \
		-test.fuzzcachedir "$cache/$module/${pkg#./}" -test.timeout 10m -test.paniconexit0)
	echo "fuzz $name: $((SECONDS - start)) s"
done
