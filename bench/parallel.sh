#!/usr/bin/env bash
# OpenMP: the gradient (reverse mode) and a tangent (forward mode) of a 2-D
# heat equation split over threads (bench/parallel/heat.c, enzyme-cc -O2
# -fopenmp), at 1 and 2 threads, against the primal. The derivatives are
# checked first (gradient against tangent, tangent against differences,
# 2 threads against 1). Prints a markdown section on stdout (bench/run.sh
# puts it into results/latest.md).
# Usage: bench/parallel.sh [--check]   (--check: build and check only)
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if ! log=$("$CC" -O2 -fopenmp "$here/parallel/heat.c" -o "$dir/heat" -lm 2>&1); then
  echo "parallel benchmark: build failed" >&2
  echo "$log" >&2
  exit 1
fi
# The same source without -fopenmp (pragmas ignored, no atomics): the
# serial reverse mode's cost, for comparison.
serial_ok=1
"$CC" -O2 -Wno-unknown-pragmas "$here/parallel/heat.c" -o "$dir/heat_serial" -lm -L/usr/lib/llvm-22/lib -lomp \
  >/dev/null 2>&1 || serial_ok=0
if [ "${1:-}" = "--check" ]; then
  "$dir/heat" --check
  exit
fi
"$dir/heat" --check >&2 || exit 1
rows=$(OMP_PROC_BIND=true taskset -c 0,1 "$dir/heat") || { echo "$rows" >&2; exit 1; }
serial=""
if [ $serial_ok -eq 1 ] && "$dir/heat_serial" --check >/dev/null; then
  serial=$(taskset -c 0 "$dir/heat_serial" | head -n 1 | sed 's/^| heat 2-D,/| heat 2-D without -fopenmp,/')
fi
echo "## OpenMP: derivatives of a parallel stencil (ms)"
echo
echo "This machine has $(nproc) cores. \`heat\`: 24 explicit steps of a 2-D heat equation with a cubic sink, each a"
echo "\`parallel for\` over rows; the gradient is of a weighted sum of the final field with respect to the initial field"
echo "and the diffusivity (reverse mode: each thread reverses its own rows, adjoints added into the shared shadows"
echo "atomically), the tangent in one direction (forward mode). Best of 5; each column's ratio is to the primal at the"
echo "same number of threads."
echo
echo "| kernel | threads | primal | tangent | tangent / primal | gradient | gradient / primal |"
echo "|---|---:|---:|---:|---:|---:|---:|"
echo "$rows"
[ -n "$serial" ] && echo "$serial"
echo
echo "Reverse mode costs about twice the serial code's gradient at one thread (the atomic adds of the adjoints and"
echo "the per-thread coroutines) and halves with two threads; the serial gradient's own cost (the last row) is"
echo "issue 15's subject."
