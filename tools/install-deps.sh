#!/usr/bin/env bash
# Installs the Debian 12 packages cdna4 JIT builds with (as root; skips what is there).
set -euo pipefail
packages=(cmake g++ make llvm-22-dev liblld-22-dev lld-22 llvm-22 clang-22 libclang-rt-22-dev
          libfmt-dev catch2 nlohmann-json3-dev libhsa-runtime-dev zlib1g-dev chromium python3 python3-jsonschema
          python3-dev python3-pybind11 python3-numpy python3-distributed
          libopenblas0-pthread)  # NumPy's BLAS: bench_emulator compares the emulator with OpenBLAS sgemm
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
