#!/usr/bin/env bash
# The explore phase against the mock with many seeds: every run must pass
# (a failure is a false failure of the suite, or a bug of the mock).
#
#   scripts/explore-seeds.sh FIRST LAST [conformance flags...]
#
# Each seed runs against a fresh mock (short durations, two accounts), with
# only the Explore area selected; a failing seed is printed with its report.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/mock.sh
first=${1:-1}
last=${2:-50}
shift 2 || true
mkdir -p bin reports/explore
go build -o bin/ ./cmd/mockserver ./cmd/conformance
failed=()
trap stop_mock EXIT
for seed in $(seq "$first" "$last"); do
	key1="explore-$RANDOM-a" key2="explore-$RANDOM-b"
	MOCK_API_KEY="$key1,$key2" start_mock "reports/explore/mock-$seed.log" --train-duration 1s --eval-duration 3s \
		--token-interval 1ms --log-level warn
	if CONFORMANCE_API_KEY="$key1" CONFORMANCE_API_KEY_2="$key2" bin/conformance --base-url "$base" \
		--label-filter explore --seed "$seed" --timeout 30s "$@" > "reports/explore/seed-$seed.txt" 2>&1; then
		echo "seed $seed: passed ($(grep -o '[0-9]* of [0-9]* requests spent exploring' "reports/explore/seed-$seed.txt"))"
	else
		echo "seed $seed: FAILED (reports/explore/seed-$seed.txt)"
		sed -n '/^Failed (/,$p' "reports/explore/seed-$seed.txt" | head -40
		failed+=("$seed")
	fi
	stop_mock
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "explore: ${#failed[@]} seed(s) failed: ${failed[*]}"
	exit 1
fi
echo "explore: seeds $first..$last passed"
