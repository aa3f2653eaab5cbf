#!/usr/bin/env bash
# Builds the Fortran programs in tests/fortran with enzyme-fortran (each
# directory's *.f90 in order: modules first), runs them, and reports; also
# a program mixing C and Fortran. -O0 is left out: flang calls its runtime
# for array intrinsics there, which the engine refuses with a clear error
# (tests/errors covers that).
set -u
here=$(cd "$(dirname "$0")" && pwd)
FC=${ENZYME_FC:-enzyme-fortran}
CC=${ENZYME_CC:-enzyme-cc}
build=$here/build/fortran
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
run() { # name, config, command...
  local name=$1 config=$2
  shift 2
  local dir="$build/$name$(echo "$config" | tr -d ' -')"
  mkdir -p "$dir"
  local log
  if ! log=$(cd "$dir" && "$@" -o app 2>&1); then
    echo "$log"
    report "$name [$config]: build" 1
    return
  fi
  local runner=()
  if [ "$config" = "-O2 -g -gdwarf-4" ] && command -v valgrind >/dev/null; then
    runner=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect)
  fi
  log=$(cd "$dir" && "${runner[@]}" ./app 2>&1)
  local rc=$?
  [ $rc -ne 0 ] && echo "$log"
  report "$name [$config]: $(echo "$log" | tail -n 1)" $rc
}
# valgrind 3.19 cannot read the DWARF 5 that flang writes: -gdwarf-4 under it.
for config in "-O1" "-O2" "-O3" "-O2 -g -gdwarf-4"; do
  # shellcheck disable=SC2086
  run kernels "$config" "$FC" $config "$here/fortran/checks.f90" "$here/fortran/kernels.f90" "$here/fortran/main.f90"
  # Assumed-shape and allocatable dummies (descriptors) on the differentiated procedures.
  # shellcheck disable=SC2086
  run descriptors "$config" "$FC" $config "$here/fortran/checks.f90" "$here/fortran/descriptors.f90"
  # `allocate`/`deallocate` inside the differentiated procedure.
  # shellcheck disable=SC2086
  run allocate "$config" "$FC" $config "$here/fortran/checks.f90" "$here/fortran/allocate.f90"
  # C main, Fortran kernels: one module, one gradient through both languages.
  # shellcheck disable=SC2086
  run mixed "$config" "$CC" $config -I"$here/c" "$here/fortran/kernels.f90" "$here/fortran/mixed_main.c" -lm
  # Fortran calling BLAS (flang's hidden string lengths), from a C main.
  # shellcheck disable=SC2086
  run blas "$config" "$CC" $config -I"$here/c" "$here/fortran/blas_kernels.f90" "$here/fortran/blas_main.c" -lblas -lm
done
# -O0: flang's runtime calls for array intrinsics are refused clearly, with no output.
log=$(cd "$build" && "$FC" -O0 -g "$here/fortran/checks.f90" "$here/fortran/kernels.f90" "$here/fortran/main.f90" -o "$build/o0" 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ ! -e "$build/o0" ] && grep -qF "compile with -O1 or higher" <<<"$log" && grep -qF "kernels.f90:" <<<"$log"; then
  report "kernels [-O0 -g]: flang runtime calls refused with their lines (exit $rc)" 0
else
  echo "$log"
  report "kernels [-O0 -g]: expected the flang-runtime error" 1
fi
echo "Fortran programs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
