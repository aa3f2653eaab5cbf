#!/usr/bin/env bash
# OpenMP and MPI: the gradient (reverse mode) and a tangent (forward mode)
# of a 2-D heat equation split over threads (bench/parallel/heat.c,
# enzyme-cc -O2 -fopenmp), at 1 and 2 threads, and of a 1-D one split over
# ranks with halo exchange (bench/parallel/heat_mpi.c, mpicc with
# MPICH_CC=enzyme-cc), at 1 and 2 ranks, against the primal. The derivatives are
# checked first (gradient against tangent, tangent against differences,
# 2 threads against 1). Prints a markdown section on stdout (bench/run.sh
# puts it into results/latest.md).
# Usage: bench/parallel.sh [--check]   (--check: build and check only)
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for k in heat hydro; do
  if ! log=$("$CC" -O2 -fopenmp "$here/parallel/$k.c" -o "$dir/$k" -lm 2>&1); then
    echo "parallel benchmark ($k): build failed" >&2
    echo "$log" >&2
    exit 1
  fi
done
# The same source without -fopenmp (pragmas ignored, no atomics): the
# serial reverse mode's cost, for comparison.
serial_ok=1
"$CC" -O2 -Wno-unknown-pragmas "$here/parallel/heat.c" -o "$dir/heat_serial" -lm -L/usr/lib/llvm-22/lib -lomp \
  >/dev/null 2>&1 || serial_ok=0
if ! log=$(MPICH_CC=$CC mpicc -O2 "$here/parallel/heat_mpi.c" -o "$dir/heat_mpi" -lm 2>&1); then
  echo "parallel benchmark (MPI): build failed" >&2
  echo "$log" >&2
  exit 1
fi
if [ "${1:-}" = "--check" ]; then
  "$dir/heat" --check && "$dir/hydro" --check && mpiexec -n 1 "$dir/heat_mpi" --check &&
    mpiexec -n 2 "$dir/heat_mpi" --check
  exit
fi
mpiexec -n 2 "$dir/heat_mpi" --check >&2 || exit 1
mpi_rows=""
for r in 1 2; do
  row=$(mpiexec -n $r "$dir/heat_mpi") || { echo "$row" >&2; exit 1; }
  mpi_rows+="$row"$'\n'
done
"$dir/heat" --check >&2 || exit 1
"$dir/hydro" --check >&2 || exit 1
rows=$(OMP_PROC_BIND=true taskset -c 0,1 "$dir/heat") || { echo "$rows" >&2; exit 1; }
hydro=$(OMP_PROC_BIND=true taskset -c 0,1 "$dir/hydro") || { echo "$hydro" >&2; exit 1; }
serial=""
if [ $serial_ok -eq 1 ] && "$dir/heat_serial" --check >/dev/null; then
  serial=$(taskset -c 0 "$dir/heat_serial" | head -n 1 | sed 's/^| heat 2-D,/| heat 2-D without -fopenmp,/')
fi
echo "## OpenMP and MPI: derivatives of parallel stencils (ms)"
echo
echo "This machine has $(nproc) cores. \`heat\`: 24 explicit steps of a 2-D heat equation with a cubic sink, each a"
echo "\`parallel for\` over rows; the gradient is of a weighted sum of the final field with respect to the initial field"
echo "and the diffusivity (reverse mode: each thread reverses its own rows, adjoints added into the shared shadows"
echo "atomically), the tangent in one direction (forward mode). Best of 5; each column's ratio is to the primal at the"
echo "same number of threads. \`hydro\`: a LULESH-like explicit Lagrangian hydrodynamics step in 1-D (element loop: volume,"
echo "pressure, artificial viscosity where compressing; node loop: forces, velocities, positions; element loop: energy),"
echo "the gradient of the final total energy with respect to the initial velocities and energies."
echo
echo "| kernel | threads | primal | tangent | tangent / primal | gradient | gradient / primal |"
echo "|---|---:|---:|---:|---:|---:|---:|"
echo "$rows"
[ -n "$serial" ] && echo "$serial"
echo "$hydro"
echo
echo "Reverse mode costs about twice the serial code's gradient at one thread (the atomic adds of the adjoints and"
echo "the per-thread coroutines) and halves with two threads; the serial gradient's own cost (the row without -fopenmp) is"
echo "issue 15's subject."
echo
echo "MPI (MPICH, \`mpiexec -n 1\` and \`-n 2\` on the same 2 cores): \`heat 1-D\` exchanges one halo cell with each neighbour"
echo "by \`MPI_Send\`/\`MPI_Recv\` every step and sums the weighted field with \`MPI_Allreduce\`; in reverse mode the"
echo "adjoints travel back the other way. Best of 5, each between barriers."
echo
echo "| kernel | ranks | primal | tangent | tangent / primal | gradient | gradient / primal |"
echo "|---|---:|---:|---:|---:|---:|---:|"
printf '%s' "$mpi_rows"
