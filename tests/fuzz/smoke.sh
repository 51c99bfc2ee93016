#!/bin/sh
# A short fuzz run for ctest: FUZZER WORKDIR RUNS SEED_DIR... New inputs go to
# WORKDIR/corpus, never into the checked-in seed directories.
set -eu
fuzzer="$1" work="$2" runs="$3"
shift 3
rm -rf "$work" && mkdir -p "$work/corpus" "$work/findings"
exec "$fuzzer" -runs="$runs" -artifact_prefix="$work/findings/" "$work/corpus" "$@"
