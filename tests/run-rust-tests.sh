#!/usr/bin/env bash
# Rust through `cargo enzyme`: a workspace (an application, a path
# dependency, crates.io dependencies) built in release and debug, its
# gradients checked by the program itself; a program in Rust, C and Fortran;
# and a plain `cargo build`, which must fail to link naming cargo enzyme.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CARGO_ENZYME=${CARGO_ENZYME:-cargo-enzyme}
build=$here/build/rust
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
ws=$here/rust/workspace
for profile in --release ""; do
  # shellcheck disable=SC2086
  log=$("$CARGO_ENZYME" enzyme run --locked $profile --manifest-path "$ws/Cargo.toml" --target-dir "$build/target" 2>&1)
  rc=$?
  [ $rc -ne 0 ] && echo "$log"
  report "cargo enzyme run ${profile:-(debug)}: $(echo "$log" | tail -n 1)" $rc
done
# The release build again under valgrind: no invalid access, and no memory
# lost (shadows of blocks the primal frees are freed once, at the latest at
# the end of the reverse sweep; a leak here repeats at every gradient call).
app=$(find "$build/target" -path '*release/app' -type f | head -n 1)
if command -v valgrind >/dev/null && [ -n "$app" ]; then
  log=$(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect "$app" 2>&1)
  rc=$?
  [ $rc -ne 0 ] && echo "$log" | tail -n 40
  report "Rust workspace (release) under valgrind: $(echo "$log" | tail -n 1)" $rc
fi
# Rust calling C calling Fortran (built by build.rs with enzyme-cc and enzyme-fortran).
for profile in --release ""; do
  # shellcheck disable=SC2086
  log=$("$CARGO_ENZYME" enzyme run --locked $profile --manifest-path "$here/rust/mixed/Cargo.toml" \
    --target-dir "$build/mixed" 2>&1)
  rc=$?
  [ $rc -ne 0 ] && echo "$log"
  report "Rust -> C -> Fortran ${profile:-(debug)}: $(echo "$log" | tail -n 1)" $rc
done
# C++ calling Rust: a staticlib built by cargo enzyme, linked by enzyme-c++.
CXX=${ENZYME_CXX:-enzyme-c++}
log=$("$CARGO_ENZYME" enzyme build --release --manifest-path "$here/rust/staticlib/Cargo.toml" \
  --target-dir "$build/staticlib" 2>&1) &&
  lib=$(find "$build/staticlib" -name librkernels.a -path '*release*' | head -n 1) &&
  log=$("$CXX" -O2 "$here/rust/cxx_calls_rust.cpp" "$lib" -o "$build/cxx_calls_rust" 2>&1) &&
  log=$("$build/cxx_calls_rust" 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$log"
report "C++ -> Rust staticlib: $(echo "$log" | tail -n 1)" $rc
# The `libm` crate without the enzyme crate's `libm` feature: a function
# whose constant argument rustc's optimiser removed is refused by name.
log=$("$CARGO_ENZYME" enzyme build --locked --release --manifest-path "$here/rust/libm_reshaped/Cargo.toml" \
  --target-dir "$build/libm_reshaped" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "the \`libm\` crate's \`powf\` with its parameters changed" <<<"$log" &&
  ! grep -q "panicked" <<<"$log"; then
  report "libm crate without the enzyme crate's libm feature: refused by name (exit $rc)" 0
else
  echo "$log" | tail -20
  report "libm crate without the enzyme crate's libm feature: expected a refusal naming powf" 1
fi
# Without debug information (cargo's release profile) the error says how to
# get the source line; with it, the error shows the line in the user's file.
grep -q "CARGO_PROFILE_RELEASE_DEBUG=true cargo enzyme build --release" <<<"$log"
report "a refusal in a release build without debug information says how to get the source line" $?
log=$(CARGO_PROFILE_RELEASE_DEBUG=true "$CARGO_ENZYME" enzyme build --locked --release \
  --manifest-path "$here/rust/libm_reshaped/Cargo.toml" --target-dir "$build/libm_reshaped_debug" 2>&1)
if grep -q -- "--> src/main.rs:5:5" <<<"$log" && grep -q "libm::powf(2.0 + x, 1.5)" <<<"$log"; then
  report "a refusal in a release build with debug information shows the user's source line" 0
else
  echo "$log" | tail -20
  report "a refusal in a release build with debug information shows the user's source line" 1
fi
log=$(cargo build --locked --manifest-path "$ws/Cargo.toml" --target-dir "$build/plain" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "build_with_cargo_enzyme" <<<"$log"; then
  report "plain cargo build fails to link, naming cargo enzyme (exit $rc)" 0
else
  echo "$log" | tail -20
  report "plain cargo build: expected a link error naming cargo enzyme" 1
fi
echo "Rust programs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
