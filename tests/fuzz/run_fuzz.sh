#!/bin/sh
# Build the fuzz targets and run each for SECONDS (default 60), or for exactly
# FUZZ_RUNS executions when that is set. Targets: schedule_parser, code_object,
# metadata_note, kernel_descriptor, kernarg, or all (the default).
#   tests/fuzz/run_fuzz.sh 300 code_object kernarg
#   FUZZ_RUNS=1000000 tests/fuzz/run_fuzz.sh 0 all
# Prints the executions and findings (crash files) of each; exits 1 on any finding.
set -eu
seconds="${1:-60}"
[ $# -gt 0 ] && shift
targets="$*"
if [ -z "$targets" ] || [ "$targets" = all ]; then
  targets="schedule_parser code_object metadata_note kernel_descriptor kernarg"
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
cmake -S "$here" -B "$build" -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 >/dev/null

# Seeds: the checked-in ones, plus code objects compiled now from the shipped
# schedules and examples when a main build's cdna4-asmgen is there.
seed_code_objects() {
  asmgen="${CDNA4_BUILD_DIR:-$root/build}/cdna4-asmgen"
  [ -x "$asmgen" ] || return 0
  for s in "$root"/schedules/*.json; do
    "$asmgen" "$s" --shape 512x512x128 -o "$1/$(basename "$s" .json).hsaco" >/dev/null 2>&1 || true
  done
  for s in "$root"/tools/examples/*.s; do
    "$asmgen" "$s" -o "$1/$(basename "$s" .s).hsaco" >/dev/null 2>&1 || true
  done
}

status=0
for t in $targets; do
  work="$build/run/$t"
  rm -rf "$work" && mkdir -p "$work/corpus" "$work/findings"
  case "$t" in
    schedule_parser) cp "$here"/corpus/* "$root"/schedules/*.json "$work/corpus/" 2>/dev/null || true ;;
    code_object) cp "$here"/seeds/code_object/* "$work/corpus/"; seed_code_objects "$work/corpus" ;;
    metadata_note|kernel_descriptor|kernarg) cp "$here"/seeds/"$t"/* "$work/corpus/" ;;
    *) echo "run_fuzz.sh: unknown target $t" >&2; exit 2 ;;
  esac
  if [ -n "${FUZZ_RUNS:-}" ]; then limit="-runs=$FUZZ_RUNS"; what="$FUZZ_RUNS runs"; else limit="-max_total_time=$seconds"; what="${seconds}s"; fi
  max_len=8192
  [ "$t" = code_object ] && max_len=65536
  [ "$t" = kernel_descriptor ] && max_len=80  # the bytes it reads
  log="$work/fuzz.log"
  result=0
  "$build/${t}_fuzz" "$work/corpus" "$limit" -max_len="$max_len" \
    -artifact_prefix="$work/findings/" -print_final_stats=1 >"$log" 2>&1 || result=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  findings=$(ls "$work/findings" | wc -l)
  echo "$t fuzz: $what, ${execs:-?} executions, ${findings} findings (exit ${result})"
  if [ "$findings" -gt 0 ] || [ "$result" -ne 0 ]; then
    tail -40 "$log"
    ls -l "$work/findings"
    status=1
  fi
done
exit $status
