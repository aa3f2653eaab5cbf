#!/usr/bin/env bash
# OpenMP and MPI programs built and run through the drivers, and the clear
# errors for differentiating across a parallel region or MPI communication.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
build=$here/build/parallel
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
refused() { # name, output, expected message, command...
  local name=$1 out=$2 expect=$3
  shift 3
  local log rc
  log=$("$@" -o "$out" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && [ ! -e "$out" ] && grep -qF -- "$expect" <<<"$log"; then
    report "$name (exit $rc)" 0
  else
    echo "$log"
    report "$name: expected a failure saying: $expect" 1
  fi
}

for o in -O0 -O2; do
  "$CC" $o -fopenmp "$here/parallel/openmp.c" -o "$build/openmp$o" -lm && log=$(OMP_NUM_THREADS=2 "$build/openmp$o")
  rc=$?
  report "OpenMP program [$o]: ${log:-}" $rc
done
refused "OpenMP region in differentiated code" "$build/openmp_region" "cannot differentiate OpenMP construct" \
  "$CC" -O2 -g -fopenmp "$here/parallel/openmp_region.c"

if command -v mpicc >/dev/null && command -v mpiexec >/dev/null; then
  MPICH_CC=$CC mpicc -O2 "$here/parallel/mpi.c" -o "$build/mpi" -lm && log=$(mpiexec -n 2 "$build/mpi")
  rc=$?
  report "MPI program [mpicc with MPICH_CC=enzyme-cc, mpiexec -n 2]: ${log:-}" $rc
  MPICH_CC=$CC refused "MPI call in differentiated code" "$build/mpi_inside" "cannot differentiate MPI call" \
    mpicc -O2 -g "$here/parallel/mpi_inside.c"
else
  report "MPI: mpicc/mpiexec not installed (apt-get install mpich libmpich-dev)" 1
fi
echo "parallel programs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
