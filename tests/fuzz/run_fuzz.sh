#!/bin/sh
# Build the schedule parser fuzz target and run it for SECONDS (default 60).
# Prints the number of executions and any findings (crash files).
set -eu
seconds="${1:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
build="${FUZZ_BUILD_DIR:-$here/../../build-fuzz}"
cmake -S "$here" -B "$build" -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 >/dev/null
work="$build/run"
rm -rf "$work" && mkdir -p "$work/corpus" "$work/findings"
cp "$here"/corpus/* "$here"/../../schedules/*.json "$work/corpus/" 2>/dev/null || true
log="$work/fuzz.log"
status=0
"$build/schedule_parser_fuzz" "$work/corpus" -max_total_time="$seconds" -max_len=8192 \
  -artifact_prefix="$work/findings/" -print_final_stats=1 >"$log" 2>&1 || status=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
findings=$(ls "$work/findings" | wc -l)
echo "schedule parser fuzz: ${seconds}s, ${execs:-?} executions, ${findings} findings (exit ${status})"
if [ "$findings" -gt 0 ] || [ "$status" -ne 0 ]; then
  tail -40 "$log"
  ls -l "$work/findings"
  exit 1
fi
