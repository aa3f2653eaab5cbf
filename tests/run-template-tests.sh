#!/usr/bin/env bash
# Each `cargo enzyme new --template T` project, scaffolded afresh, must pass
# its own test at once; also `cargo enzyme doctor`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CARGO_ENZYME=${CARGO_ENZYME:-cargo-enzyme}
build=$here/build/templates
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
for t in rust c cpp fortran mixed cmake; do
  dir="$build/my-$t"
  log=$("$CARGO_ENZYME" enzyme new "$dir" --template "$t" 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then
    case $t in
      rust) log=$(cd "$dir" && CARGO_TARGET_DIR="$build/target" cargo enzyme test --release 2>&1) ;;
      cmake) log=$(cd "$dir" && cmake -B build -DCMAKE_C_COMPILER="$(command -v enzyme-cc)" \
        -DCMAKE_CXX_COMPILER="$(command -v enzyme-c++)" 2>&1 && cmake --build build 2>&1 && ctest --test-dir build 2>&1) ;;
      *) log=$(cd "$dir" && make -s test 2>&1) ;;
    esac
    rc=$?
  fi
  [ $rc -ne 0 ] && echo "$log"
  report "template $t: scaffolded and its test passes" $rc
done
log=$("$CARGO_ENZYME" enzyme new "$build/my-c" --template c 2>&1)
rc=$?
[ $rc -ne 0 ] && grep -q "already exists" <<<"$log"
report "cargo enzyme new refuses an existing directory" $?
log=$("$CARGO_ENZYME" enzyme new "$build/27_rust" 2>&1)
rc=$?
[ $rc -ne 0 ] && grep -q "starts with a digit" <<<"$log" && [ ! -e "$build/27_rust" ]
report "cargo enzyme new refuses a name cargo cannot build, writing nothing" $?
# A reader that stops early: a quiet end, never a panic.
log=$(for i in 1 2 3 4 5 6 7 8; do "$CARGO_ENZYME" enzyme doctor | head -c 1 >/dev/null; echo "rc=${PIPESTATUS[0]}"; done 2>&1)
! grep -q "panicked\|rc=70\|rc=101" <<<"$log"
report "cargo enzyme doctor | head -c 1: no panic" $?
log=$("$CARGO_ENZYME" enzyme doctor 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$log"
report "cargo enzyme doctor: $(echo "$log" | tail -n 1)" $rc
echo "templates: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
