#!/usr/bin/env bash
# The whole test suite: the Rust unit and JIT tests, the self-checking C/C++
# programs, the error paths and the make/CMake projects. Prints one summary
# line at the end and fails if anything failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
CARGO=${CARGO:-cargo}
passed=0
failed=0
suites_failed=0
log=$(mktemp)

count() { # adds the "N passed, M failed" numbers of a suite's output
  local p f
  p=$(grep -oE '[0-9]+ passed' "$1" | awk '{s += $1} END {print s + 0}')
  f=$(grep -oE '[0-9]+ failed' "$1" | awk '{s += $1} END {print s + 0}')
  passed=$((passed + p))
  failed=$((failed + f))
}

run_suite() { # name, command...
  local name=$1
  shift
  echo "== $name"
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  count "$log"
  if [ "$rc" -ne 0 ]; then
    suites_failed=$((suites_failed + 1))
    echo "== $name: FAILED (exit $rc)"
  fi
}

run_suite "Rust tests (engine, driver)" "$CARGO" test --release --locked --workspace
run_suite "C/C++ derivative programs" tests/run-c-tests.sh
run_suite "differential tester (random programs, reverse vs forward vs finite differences)" tests/run-fuzz-tests.sh
run_suite "error paths" tests/run-error-tests.sh
run_suite "driver flags" tests/run-driver-tests.sh
run_suite "make and CMake projects" tests/run-project-tests.sh
run_suite "Fortran and mixed-language programs" tests/run-fortran-tests.sh
run_suite "OpenMP and MPI" tests/run-parallel-tests.sh
run_suite "Rust (cargo enzyme)" tests/run-rust-tests.sh
run_suite "templates (cargo enzyme new, doctor)" tests/run-template-tests.sh
run_suite "benchmarks (smoke: gradients checked, nothing timed)" bench/run.sh --smoke
rm -f "$log"
echo
echo "all suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$suites_failed" -eq 0 ]
