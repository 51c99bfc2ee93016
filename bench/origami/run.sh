#!/usr/bin/env bash
# Reproduces the "Origami side by side" numbers: fetch Origami (ROCm rocm-libraries,
# shared/origami), build its analytical GEMM model with CMakeLists.txt, run
# origami_predict for gfx950 at 4096^3 and 8192^3, and (if the project binary
# exists) our model's figures for the same schedules.
#
#   ./run.sh              fetch from GitHub (needs network and git), then build and run
#   ./run.sh --offline    use ./src (a copy made earlier), checked against MANIFEST.tsv
#
# Environment: HIP_INCLUDE_DIR (directory holding hip/hip_runtime.h; default /opt/rocm/include), CXX (default g++), REPO_URL (default
# https://github.com/ROCm/rocm-libraries); for our model's side: CDNA4_SRC, CDNA4_BUILD,
# HIPKITTENS_DIR, AITER_DIR (see the end of this script).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
cd "$HERE"
MODE=fetch
[[ "${1:-}" == "--offline" ]] && MODE=offline
REPO_URL="${REPO_URL:-https://github.com/ROCm/rocm-libraries}"
COMMIT=fa856843388dcc082eef748859d0aa39ed98c416   # gemm.cpp / gemm.hpp of the model used

manifest() { grep -v '^#' MANIFEST.tsv | tail -n +2; }

if [[ $MODE == fetch ]]; then
  SRC="$HERE/src-fetched/shared/origami"
  CLONE="$HERE/rocm-libraries"
  if [[ ! -d "$CLONE/.git" ]]; then
    # Partial clone: commits and trees only; blobs arrive on demand (a few hundred KB here).
    git clone --filter=blob:none --no-checkout "$REPO_URL" "$CLONE"
  fi
  rm -rf "$HERE/src-fetched"
  missing=0
  while IFS=$'\t' read -r path commit blob sha chars; do
    mkdir -p "$SRC/$(dirname "$path")"
    if git -C "$CLONE" cat-file blob "$blob" > "$SRC/$path" 2>/dev/null; then
      echo "fetched  $path  (blob $blob)"
    else
      # The exact version is not reachable upstream: take the file as of $COMMIT instead.
      git -C "$CLONE" show "$COMMIT:shared/origami/$path" > "$SRC/$path"
      echo "WARNING  $path: blob $blob not reachable; using the file at $COMMIT" >&2
      missing=1
    fi
  done < <(manifest)
  git -C "$CLONE" log -1 --format='commit %H %cd' "$COMMIT" || true
  [[ $missing == 1 ]] && echo "WARNING: some files differ from MANIFEST.tsv; numbers may differ" >&2
else
  SRC="$HERE/src/shared/origami"
fi

# Check every file against the manifest (byte-exact).
while IFS=$'\t' read -r path commit blob sha chars; do
  got=$(sha256sum "$SRC/$path" | cut -c1-64)
  [[ "$got" == "$sha" ]] && echo "ok       $path" || echo "DIFFERS  $path (sha256 $got)" >&2
done < <(manifest)

HIP_INCLUDE_DIR="${HIP_INCLUDE_DIR:-/opt/rocm/include}"
[[ -f "$HIP_INCLUDE_DIR/hip/hip_runtime.h" ]] || { echo "set HIP_INCLUDE_DIR (hip/hip_runtime.h)" >&2; exit 1; }

rm -rf "$HERE/build"
cmake -S "$HERE" -B "$HERE/build" -DORIGAMI_DIR="$SRC" -DHIP_INCLUDE_DIR="$HIP_INCLUDE_DIR" \
      -DCMAKE_CXX_COMPILER="${CXX:-g++}" > "$HERE/build.log"
cmake --build "$HERE/build" -j"$(nproc)" >> "$HERE/build.log"

"$HERE/build/origami_predict" --csv "$HERE/results.csv" | tee "$HERE/results.md"
echo "== sensitivity: HIP memoryClockRate 1.3 / 2.0 / 2.4 GHz (TFLOP/s, f32 D, no change expected)"
for m in 1300000 2000000 2400000; do
  "$HERE/build/origami_predict" --mem-clock-khz $m | grep -E '^\| baseline.*\| f32 ' | cut -d'|' -f2,3,10,11
done

# Our model, same schedules (fp32 C, as shipped), and the calibration kernels (bf16 C).
# CDNA4_SRC: a checkout of the project; CDNA4_BUILD: its build directory (cdna4-gemm,
# bench_model).
CDNA4_SRC="${CDNA4_SRC:-$(cd "$HERE/../.." && pwd)}"
CDNA4_BUILD="${CDNA4_BUILD:-$CDNA4_SRC/build}"
if [[ -x "$CDNA4_BUILD/cdna4-gemm" ]]; then
  mkdir -p "$HERE/ourmodel"
  for s in baseline_256x256x64_w8 prefetch2_256x256x64_w8 interleave4_256x256x64_w8 \
           pingpong_256x256x64_w8 pingpong2_256x128x64_w8 tilelang_ns2_128x128x64_w4 \
           triton_ns3_128x128x64_w4; do
    for n in 4096 8192; do
      "$CDNA4_BUILD/cdna4-gemm" "$CDNA4_SRC/schedules/$s.json" --shape ${n}x${n}x${n} \
          --device model --model-only > "$HERE/ourmodel/${s}_$n.txt" 2>&1
      echo "$s $n^3: $(grep -E 'modeled: |modeled occupancy' "$HERE/ourmodel/${s}_$n.txt" | tr '\n' ' ')"
    done
  done
fi
if [[ -x "$CDNA4_BUILD/bench_model" && -n "${HIPKITTENS_DIR:-}" && -n "${AITER_DIR:-}" ]]; then
  "$CDNA4_BUILD/bench_model" --hipkittens "$HIPKITTENS_DIR" --aiter "$AITER_DIR" \
      | tee "$HERE/ourmodel/bench_model.txt"
fi
