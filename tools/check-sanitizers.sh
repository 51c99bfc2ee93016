#!/usr/bin/env bash
# Builds cdna4 JIT with AddressSanitizer + UndefinedBehaviorSanitizer in
# build-asan/ and runs the test suite under them; any finding fails the run.
# Every test runs except the two schedule-mutation sweeps (about 800 s under
# the sanitizers; the normal build runs them): the components they exercise
# (verifier, lowering, emulator) are covered by the rest of the suite; and the
# installed-package test, which builds an outside project (the normal build runs it);
# and the trace-memory test, which bounds the process's resident memory (the
# sanitizers' shadow memory multiplies it; the normal build runs it).
#   tools/check-sanitizers.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
# The fuzz targets are sanitizer builds already and run in the normal build. The
# Python module is not built here: an ASan-instrumented extension cannot load
# into Debian's uninstrumented python3 (the ASan runtime must come first); its
# tests run in the normal build.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DCDNA4_FUZZ=OFF -DCDNA4_BUILD_PYTHON=OFF -DCMAKE_CXX_FLAGS="$flags -g1" \
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-asan -j"$(nproc)"
# LLVM's crash recovery installs its own alternate signal stacks in worker
# threads; ASan must not install (and later unmap) one of its own there.
export ASAN_OPTIONS="use_sigaltstack=0:detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
start=$(date +%s)
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" \
      -E "^(mutants on the emulator|mutation test|cmake: an installed package|model limits: --trace streams)" "$@"
echo "check-sanitizers: ASan+UBSan suite clean in $(( $(date +%s) - start )) s"
