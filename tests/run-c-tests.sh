#!/usr/bin/env bash
# Builds every self-checking program in tests/c with enzyme-cc / enzyme-c++
# at each optimisation level, with and without -g, runs it, and reports.
# A program that runs longer than TEST_TIMEOUT seconds (default 600) fails.
# Usage: tests/run-c-tests.sh [name-filter]
set -u
here=$(cd "$(dirname "$0")" && pwd)
export ENZYME_CC=${ENZYME_CC:-enzyme-cc}
export ENZYME_CXX=${ENZYME_CXX:-enzyme-c++}
export BUILD=$here/build/c
export SRC=$here/c
mkdir -p "$BUILD"
filter=${1:-}

one() {
  local file=$1 config=$2
  local name tag exe compiler
  name=$(basename "$file")
  tag=$(echo "$config" | tr -d ' -')
  exe="$BUILD/${name%.*}.$tag"
  case "$file" in
    *.cpp) compiler=$ENZYME_CXX ;;
    *) compiler=$ENZYME_CC ;;
  esac
  local log libs
  # Libraries a test needs beyond libm: a `// link: -lblas` line.
  libs=$(sed -n 's|^// link: ||p' "$file")
  # shellcheck disable=SC2086
  if ! log=$("$compiler" $config -I"$SRC" "$file" -o "$exe" -lm $libs 2>&1); then
    printf 'FAIL %s [%s]: build failed\n%s\n' "$name" "$config" "$log"
    return 1
  fi
  local runner=()
  # One configuration also runs under valgrind: invalid accesses and leaks
  # (tapes, shadow slots) fail the test.
  if [ "$config" = "-O2 -g" ] && command -v valgrind >/dev/null; then
    runner=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect)
  fi
  # A derivative that never ends (a loop reversed with a wrong count) fails
  # too, instead of holding up the suite.
  local rc=0
  log=$(timeout "${TEST_TIMEOUT:-600}" "${runner[@]}" "$exe" 2>&1) || rc=$?
  if [ $rc -eq 124 ]; then
    printf 'FAIL %s [%s]: did not finish in %s s\n%s\n' "$name" "$config" "${TEST_TIMEOUT:-600}" "$log"
    return 1
  elif [ $rc -ne 0 ]; then
    printf 'FAIL %s [%s]: wrong derivatives or memory errors\n%s\n' "$name" "$config" "$log"
    return 1
  fi
  printf 'ok   %s [%s]: %s\n' "$name" "$config" "$(echo "$log" | tail -n 1)"
}
export -f one

configs=("-O0" "-O2" "-O3" "-O0 -g" "-O2 -g" "-O3 -g")
# Where the machine has AVX2, also what a user tuning for it would build.
if grep -q -m1 avx2 /proc/cpuinfo 2>/dev/null; then
  configs+=("-O3 -march=native")
fi
results=$(
  for f in "$SRC"/*.c "$SRC"/*.cpp; do
    [ -n "$filter" ] && [[ "$f" != *"$filter"* ]] && continue
    # Levels a program is not built at, one line each with the reason:
    # `// not at: -O0 (why)`.
    skips=$(sed -n 's|^// not at: \(-O[0-9s]*\).*|\1|p' "$f")
    for c in "${configs[@]}"; do
      skipped=
      for skip in $skips; do
        [[ "$c" == "$skip" || "$c" == "$skip "* ]] && skipped=1
      done
      [ -n "$skipped" ] && continue
      printf '%s\0%s\0' "$f" "$c"
    done
  done | xargs -0 -n 2 -P "$(nproc)" bash -c 'one "$1" "$2"' _
)
echo "$results" | grep -v '^ok ' || true
passed=$(echo "$results" | grep -c '^ok ' || true)
failed=$(echo "$results" | grep -c '^FAIL ' || true)
echo "C/C++ derivative programs: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
