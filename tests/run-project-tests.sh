#!/usr/bin/env bash
# Builds the example make and CMake projects in tests/projects with our
# compilers and runs their self-checks.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
AR=${ENZYME_AR:-$(command -v llvm-ar-22 || echo /usr/lib/llvm-22/bin/llvm-ar)}
build=$here/build/projects
rm -rf "$build" && mkdir -p "$build"
passed=0
failed=0
report() {
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1"; fi
}

# make: separate compile and link steps, a static archive made with llvm-ar.
for cflags in "-O0 -g" "-O2" "-O3 -g"; do
  dir="$build/make$(echo "$cflags" | tr -d ' -')"
  cp -r "$here/projects/make" "$dir"
  (cd "$dir" && make -s CC="$CC" AR="$AR" CFLAGS="$cflags" check)
  report "make project [$cflags]" $?
done

# Kernels vectorised by plain clang -O3 (vector loops, remainders,
# `llvm.vector.reduce.*`), differentiated as they are; AVX2 widens them.
CLANG=${CLANG:-$(command -v clang-22 || echo /usr/lib/llvm-22/bin/clang)}
vec_configs=("-O0|" "-O2|" "-O3 -g|")
grep -q -m1 avx2 /proc/cpuinfo 2>/dev/null && vec_configs+=("-O2 -march=native|-march=native")
for c in "${vec_configs[@]}"; do
  cflags=${c%|*} karch=${c#*|}
  dir="$build/vectorised$(echo "$cflags" | tr -d ' -=')"
  cp -r "$here/projects/vectorised" "$dir"
  (cd "$dir" && make -s CC="$CC" CLANG="$CLANG" CFLAGS="$cflags" KFLAGS="-O3 -ffast-math $karch" check)
  report "vectorised kernels [$cflags, kernels -O3 -ffast-math $karch]" $?
done

# CMake: -DCMAKE_C_COMPILER=enzyme-cc, static library, ctest.
if command -v cmake >/dev/null; then
  for type in Debug Release; do
    cmake -S "$here/projects/cmake" -B "$build/cmake-$type" -DCMAKE_C_COMPILER="$(command -v "$CC")" \
      -DCMAKE_BUILD_TYPE=$type >"$build/cmake-$type.log" 2>&1 &&
      cmake --build "$build/cmake-$type" >>"$build/cmake-$type.log" 2>&1 &&
      (cd "$build/cmake-$type" && ctest --output-on-failure >>"$build/cmake-$type.log" 2>&1)
    rc=$?
    [ $rc -ne 0 ] && cat "$build/cmake-$type.log"
    report "CMake project [$type]" $rc
  done
else
  echo "FAIL CMake project: cmake is not installed"
  failed=$((failed + 1))
fi
echo "project builds: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
