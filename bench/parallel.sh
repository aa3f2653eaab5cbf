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
if [ "${1:-}" = "--check" ]; then
  "$dir/heat" --check
  exit
fi
"$dir/heat" --check >&2 || exit 1
rows=$(OMP_PROC_BIND=true taskset -c 0,1 "$dir/heat") || { echo "$rows" >&2; exit 1; }
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
