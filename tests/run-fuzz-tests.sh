#!/usr/bin/env bash
# The differential tester in make test: random C programs built with
# enzyme-cc at -O0/-O2/-O3, reverse mode against forward mode against
# finite differences (tests/fuzz), then the reduced programs it found
# earlier (tests/fuzz/found), kept as regression tests.
# FUZZ_PROGRAMS / FUZZ_SEED / FUZZ_FUNCTIONS change the run (make fuzz).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
CARGO=${CARGO:-cargo}
CC=${ENZYME_CC:-enzyme-cc}
"$CARGO" build --release --locked -q -p enzyme-fuzz || exit 1
fuzz=target/release/enzyme-fuzz
"$fuzz" --seed "${FUZZ_SEED:-1}" --programs "${FUZZ_PROGRAMS:-30}" --functions "${FUZZ_FUNCTIONS:-10}" \
  --jobs "$(nproc)" --found "${FUZZ_FOUND:-$here/build/fuzz-found}"
rc=$?
build=$here/build/fuzz
mkdir -p "$build"
passed=0
failed=0
for f in "$here"/fuzz/found/*.c; do
  [ -e "$f" ] || continue
  for opt in -O0 -O2 -O3; do
    name="$(basename "$f" .c) $opt"
    if log=$("$CC" $opt "$f" -o "$build/found" -lm 2>&1) && log=$("$build/found" 2>&1); then
      passed=$((passed + 1))
      echo "ok   $name: $(echo "$log" | tail -n 1)"
    else
      failed=$((failed + 1))
      echo "FAIL $name"
      echo "$log" | tail -n 20
    fi
  done
done
echo "fuzz regressions: $passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
