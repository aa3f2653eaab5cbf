#!/usr/bin/env bash
# Error paths: each tests/errors/*.c (*.cpp, *.f90) must fail to build with
# enzyme-cc (enzyme-c++, enzyme-fortran), exit non-zero, print every
# `// expect:` (`! expect:`) line of its header, and leave no output file.
# Also: a corrupt object file and a corrupt bitcode file, and programs in
# errors/runtime/ that build and must stop at run time with a message.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
build=$here/build/errors
rm -rf "$build" && mkdir -p "$build"
passed=0
failed=0

expect_failure() { # name, output file, expected substrings..., -- command...
  local name=$1 out=$2
  shift 2
  local expects=()
  while [ "$1" != "--" ]; do expects+=("$1"); shift; done
  shift
  local log rc
  log=$("$@" 2>&1)
  rc=$?
  local ok=1
  if [ $rc -eq 0 ]; then echo "FAIL $name: exit code 0"; ok=0; fi
  if [ -e "$out" ]; then echo "FAIL $name: output file $out was written"; ok=0; fi
  if echo "$log" | grep -q "panicked"; then echo "FAIL $name: panic"; ok=0; fi
  for e in "${expects[@]}"; do
    if ! grep -qF -- "$e" <<<"$log"; then echo "FAIL $name: message lacks: $e"; ok=0; fi
  done
  if [ $ok -eq 1 ]; then
    passed=$((passed + 1))
    echo "ok   $name (exit $rc)"
  else
    failed=$((failed + 1))
    echo "---- output of $name:"; echo "$log"; echo "----"
  fi
}

for f in "$here"/errors/*.c "$here"/errors/*.cpp; do
  name=$(basename "$f")
  name=${name%.*}
  compiler=$CC
  [[ "$f" == *.cpp ]] && compiler=${ENZYME_CXX:-enzyme-c++}
  mapfile -t expects < <(sed -n 's|^// expect: ||p' "$f")
  for opt in -O0 -O2; do
    out="$build/$name$opt"
    (cd "$here/errors" && expect_failure "$name $opt -g" "$out" "${expects[@]}" -- "$compiler" $opt -g "$(basename "$f")" -o "$out")
  done
done 2>&1 | tee "$build/log.txt"
# Fortran: `! expect:` lines, built with enzyme-fortran.
for f in "$here"/errors/*.f90; do
  name=$(basename "$f" .f90)
  mapfile -t expects < <(sed -n 's|^! expect: ||p' "$f")
  for opt in -O0 -O2; do
    out="$build/$name$opt"
    (cd "$build" && expect_failure "$name $opt -g" "$out" "${expects[@]}" -- "${ENZYME_FORTRAN:-enzyme-fortran}" $opt -g "$f" -o "$out")
  done
done 2>&1 | tee -a "$build/log.txt"

# Corrupt inputs.
printf 'this is not an object file' > "$build/garbage.o"
printf 'BC\xc0\xde\x01\x02\x03' > "$build/truncated.o"
cp "$here/c/rule_sin.c" "$build/good.c"
"$CC" -c "$build/good.c" -I"$here/c" -o "$build/good.o"
head -c 200 "$build/good.o" > "$build/cut.o"
{
  expect_failure "garbage .o" "$build/garbage.out" "garbage.o: not an object file" -- "$CC" "$build/garbage.o" -o "$build/garbage.out"
  expect_failure "truncated bitcode .o" "$build/truncated.out" "truncated.o: invalid LLVM bitcode" -- "$CC" "$build/truncated.o" -o "$build/truncated.out"
  expect_failure "cut bitcode .o" "$build/cut.out" "cut.o: invalid LLVM bitcode" -- "$CC" "$build/cut.o" -o "$build/cut.out"
  expect_failure "missing input" "$build/missing.out" "does-not-exist.o: cannot read: No such file" -- "$CC" "$build/does-not-exist.o" -o "$build/missing.out"
  # -w silences every warning, but an unknown enzyme_* attribute is still an
  # error, in a compile step and in a one-step build.
  cp "$here/errors/unknown_attribute.c" "$build/attr.c"
  expect_failure "unknown attribute -w -c" "$build/attr.o" "attribute 'enzyme::checkpoint' is not implemented" -- "$CC" -w -c "$build/attr.c" -o "$build/attr.o"
  expect_failure "unknown attribute -w" "$build/attr.out" "attribute 'enzyme::checkpoint' is not implemented" -- "$CC" -w "$build/attr.c" -o "$build/attr.out"
  expect_failure "unknown flag" "$build/flag.out" "unknown argument" -- "$CC" -fno-such-flag-at-all "$build/good.c" -I"$here/c" -o "$build/flag.out"
  # A link step past its time limit (ENZYME_TIME_LIMIT) stops, says where, writes nothing.
  expect_failure "time limit" "$build/limit.out" "ran past its time limit of 0.001 s while" -- \
    env ENZYME_TIME_LIMIT=0.001 "$CC" "$build/good.c" -I"$here/c" -o "$build/limit.out" -lm
  expect_failure "time limit not a number" "$build/limit.out" "ENZYME_TIME_LIMIT=soon: expected a number of seconds" -- \
    env ENZYME_TIME_LIMIT=soon "$CC" "$build/good.c" -I"$here/c" -o "$build/limit.out" -lm
  # Run-time checks of generated code: the program builds, then stops with a message.
  for opt in -O0 -O2; do
    expect_failure "split mode, other shadows $opt (run time)" "$build/no-such-output" \
      "__enzyme_reverse was given other shadows than __enzyme_augmentfwd" -- \
      bash -c "\"$CC\" $opt \"$here/errors/runtime/split_other_shadows.c\" -o \"$build/split_shadows\" && \"$build/split_shadows\""
    expect_failure "NULL shadow $opt (run time)" "$build/no-such-output" \
      "null_shadow.c:31: \`__enzyme_autodiff\` of \`f\`: the shadow given for argument 2 is NULL" -- \
      bash -c "\"$CC\" $opt -g \"$here/errors/runtime/null_shadow.c\" -o \"$build/null_shadow\" && \"$build/null_shadow\""
  done
} 2>&1 | tee -a "$build/log.txt"

passed=$(grep -c '^ok ' "$build/log.txt")
failed=$(grep -c '^FAIL ' "$build/log.txt")
echo "error-path tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
