#!/usr/bin/env bash
# OpenMP and MPI programs built and run through the drivers, their
# derivatives (both modes, several threads and ranks), and the clear errors
# for what is not differentiated yet.
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

# A self-checking OpenMP program (tests/parallel/$2) built at -O0 and -O2
# and run at each number of threads in $3.
on_threads() { # label, source, thread counts
  local label=$1 src=$2 exe=$build/${2%.*} cc=$CC o t log rc
  [ "${src##*.}" = cpp ] && cc=${ENZYME_CXX:-enzyme-c++}
  for o in -O0 -O2; do
    if ! log=$("$cc" $o -fopenmp "$here/parallel/$src" -o "$exe$o" -lm 2>&1); then
      echo "$log"
      report "$label [$o]: build failed" 1
      continue
    fi
    for t in $3; do
      log=$(OMP_NUM_THREADS=$t timeout 120 "$exe$o" 2>&1)
      rc=$?
      [ $rc -ne 0 ] && echo "$log"
      report "$label [$o, $t threads]: $(tail -n 1 <<<"$log")" $rc
    done
  done
}

# A self-checking MPI program built by mpicc (MPICH_CC=enzyme-cc) at -O0
# and -O2 and run at 1, 2 and 3 ranks (a hang is a failure too).
on_ranks() { # label, output name, mpicc's arguments...
  local label=$1 exe=$build/$2 o n log rc
  shift 2
  for o in -O0 -O2; do
    if ! log=$(MPICH_CC=$CC mpicc $o "$@" -o "$exe$o" 2>&1); then
      echo "$log"
      report "$label [$o]: build failed" 1
      continue
    fi
    for n in 1 2 3; do
      log=$(OMP_NUM_THREADS=2 timeout 120 mpiexec -n $n "$exe$o" 2>&1)
      rc=$?
      [ $rc -ne 0 ] && echo "$log"
      report "$label [$o, mpiexec -n $n]: $(tail -n 1 <<<"$log")" $rc
    done
  done
}

for o in -O0 -O2; do
  "$CC" $o -fopenmp "$here/parallel/openmp.c" -o "$build/openmp$o" -lm && log=$(OMP_NUM_THREADS=2 "$build/openmp$o")
  rc=$?
  report "OpenMP program [$o]: ${log:-}" $rc
done
# Derivatives called by several threads at once share the pool of kept tapes.
for o in -O0 -O2; do
  "$CC" $o -fopenmp "$here/parallel/tapes_concurrent.c" -o "$build/tapes_concurrent$o" -lm &&
    log=$(OMP_NUM_THREADS=4 "$build/tapes_concurrent$o")
  rc=$?
  report "gradients on 4 threads at once [$o]: ${log:-}" $rc
done
on_threads "OpenMP atomic write of a double, both modes" openmp_atomic_write.c "1 2 4"
if "$CC" -O2 -fopenmp "$here/parallel/openmp_ordered_nested.c" -o "$build/openmp_ordered_nested" 2>/dev/null; then
  log=$(OMP_NUM_THREADS=2 "$build/openmp_ordered_nested" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && grep -q "was called inside a parallel region" <<<"$log"; then
    report "ordered critical sections' derivative called inside a parallel region: stops with a message (exit $rc)" 0
  else
    echo "$log"
    report "ordered critical sections' derivative called inside a parallel region: expected a stop with a message" 1
  fi
else
  report "ordered critical sections' derivative called inside a parallel region: build failed" 1
fi
# Critical sections and reductions other than sums, reversed in the
# reverse of the threads' order (tickets), at 1, 2 and 4 threads.
on_threads "OpenMP critical sections, max/min/product reductions, atomic reads, reverse mode" \
  openmp_ordered_reverse.c "1 2 4"
refused "OpenMP region with a copy, reverse mode" "$build/openmp_reverse_copy" \
  "has a copy of memory (\`memcpy\`/\`memmove\`) in an OpenMP parallel region" \
  "$CC" -O2 -g -fopenmp "$here/parallel/openmp_reverse_copy.c"
on_threads "OpenMP firstprivate floats, both modes" openmp_firstprivate.c "1 2 4"
on_threads "OpenMP lastprivate, both modes" openmp_lastprivate.c "1 2 4"
on_threads "OpenMP in C++ (reductions, a lambda, atomic, critical), both modes" openmp_cxx.cpp "1 2 4"

# -v says how each region's adjoints are accumulated.
log=$("$CC" -v -O2 -fopenmp "$here/parallel/openmp_reverse.c" -o "$build/openmp_reverse_v" -lm 2>&1)
if grep -q "OpenMP region \`shared_scalar.omp_outlined\`, reverse mode: .* 1 shared scalar(s) summed per thread" <<<"$log"; then
  report "OpenMP reverse mode: -v reports the accumulation" 0
else
  echo "$log" | grep -i "differentiated" | head
  report "OpenMP reverse mode: -v reports the accumulation" 1
fi

# An internal procedure using the main program's variables, after a gradient
# of a parallel loop (flang's `nest` link to the host, in parallel code generation).
for o in -O0 -O2; do
  exe=$build/openmp_fortran_host$o
  if ! log=$("${ENZYME_FC:-enzyme-fortran}" $o -fopenmp "$here/parallel/openmp_fortran_host.f90" -o "$exe" 2>&1); then
    echo "$log"
    report "OpenMP Fortran, host association [$o]: build failed" 1
    continue
  fi
  for t in 1 2; do
    log=$(OMP_NUM_THREADS=$t "$exe" 2>&1)
    rc=$?
    [ $rc -ne 0 ] && echo "$log"
    report "OpenMP Fortran, host association [$o, $t threads]: $(tail -n 1 <<<"$log")" $rc
  done
done

# Reverse mode through parallel regions: against forward mode and
# differences, and across 1, 2 and 4 threads inside the program.
on_threads "OpenMP reverse mode" openmp_reverse.c "1 4"

# Forward mode through parallel regions: checked against differences, and
# the same tangents (bit for bit) whatever the number of threads.
for case in "openmp_forward.c C" "openmp_fortran.f90 openmp_fortran_main.c Fortran"; do
  set -- $case
  lang=${!#}
  srcs=()
  for f in "$@"; do [ "$f" != "$lang" ] && srcs+=("$here/parallel/$f"); done
  exe=$build/openmp_forward_$lang
for o in -O0 -O2; do
  if ! log=$("$CC" $o -fopenmp "${srcs[@]}" -o "$exe$o" -lm 2>&1); then
    echo "$log"
    report "OpenMP forward mode [$lang $o]: build failed" 1
    continue
  fi
  first=""
  for t in 1 2 4; do
    log=$(OMP_NUM_THREADS=$t "$exe$o" 2>&1)
    rc=$?
    sum=$(tail -n 1 <<<"$log")
    if [ $rc -eq 0 ] && [ -n "$first" ] && [ "$sum" != "$first" ]; then
      echo "$log"
      report "OpenMP forward mode [$lang $o, $t threads]: tangents differ from 1 thread's ($sum, $first)" 1
      continue
    fi
    [ -z "$first" ] && first=$sum
    [ $rc -ne 0 ] && echo "$log"
    report "OpenMP forward mode [$lang $o, $t threads]: $(tail -n 2 <<<"$log" | head -n 1)" $rc
  done
done
done

if command -v mpicc >/dev/null && command -v mpiexec >/dev/null; then
  MPICH_CC=$CC mpicc -O2 "$here/parallel/mpi.c" -o "$build/mpi" -lm && log=$(mpiexec -n 2 "$build/mpi")
  rc=$?
  report "MPI program [mpicc with MPICH_CC=enzyme-cc, mpiexec -n 2]: ${log:-}" $rc
  MPICH_CC=$CC refused "MPI call without a rule in differentiated code" "$build/mpi_inside" "cannot differentiate MPI call" \
    mpicc -O2 -g "$here/parallel/mpi_inside.c"
  # Derivatives across MPI (and a hybrid MPI + OpenMP function), both modes.
  on_ranks "MPI derivatives" mpi_derivatives -fopenmp "$here/parallel/mpi_derivatives.c" -lm
  # MPI_PROC_NULL peers, MPI_ANY_SOURCE with MPI_ANY_TAG, ignored statuses, zero counts.
  on_ranks "MPI derivatives at the edges" mpi_edges "$here/parallel/mpi_edges.c" -lm
  MPICH_CC=$CC refused "MPI call without a rule from Fortran in differentiated code" "$build/mpi_fortran_refused" \
    "cannot differentiate MPI call from Fortran (\`mpi_alltoall_\`)" mpicc -O2 -I/usr/include/x86_64-linux-gnu/mpich \
    "$here/parallel/mpi_fortran_refused_main.c" "$here/parallel/mpi_fortran_refused.f90" -lmpichfort
  # MPI's Fortran bindings in a differentiated Fortran subroutine (mpif.h).
  on_ranks "MPI from Fortran" mpi_fortran -I/usr/include/x86_64-linux-gnu/mpich "$here/parallel/mpi_fortran_main.c" \
    "$here/parallel/mpi_fortran.f90" -lmpichfort -lm
  on_ranks "MPI from Fortran at the edges" mpi_fortran_edges -I/usr/include/x86_64-linux-gnu/mpich \
    "$here/parallel/mpi_fortran_edges_main.c" "$here/parallel/mpi_fortran_edges.f90" -lmpichfort -lm
else
  report "MPI: mpicc/mpiexec not installed (apt-get install mpich libmpich-dev)" 1
fi
echo "parallel programs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
