#!/usr/bin/env bash
# Builds the example make and CMake projects in tests/projects with our
# compilers and runs their self-checks.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
AR=${ENZYME_AR:-$(command -v llvm-ar-22 || echo /usr/lib/llvm-22/bin/llvm-ar)}
build=$here/build/projects
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

# make: separate compile and link steps, a static archive made with llvm-ar.
for cflags in "-O0 -g" "-O2" "-O3 -g"; do
  dir="$build/make$(echo "$cflags" | tr -d ' -')"
  cp -r "$here/projects/make" "$dir"
  (cd "$dir" && make -s CC="$CC" AR="$AR" CFLAGS="$cflags" check)
  report "make project [$cflags]" $?
done

# A C++ project written for Enzyme, with its build flags (Enzyme's clang
# plugin, AddressSanitizer), built with only the compiler swapped.
CXX_=${ENZYME_CXX:-enzyme-c++}
for cflags in "-O0 -g" "-O2"; do
  dir="$build/enzyme-style-make$(echo "$cflags" | tr -d ' -')"
  cp -r "$here/projects/enzyme-style-make" "$dir"
  (cd "$dir" && make -s CXX="$CXX_" CXXFLAGS="$cflags" check)
  report "Enzyme-style make project, -fplugin=ClangEnzyme-22.so -fsanitize=address [$cflags]" $?
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
  # cmake_project NAME DIR TYPE CMAKE-FLAGS...: configure, build, ctest.
  cmake_project() {
    local name=$1 src=$2 type=$3
    shift 3
    local b="$build/$(basename "$src")-$type"
    cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE="$type" "$@" >"$b.log" 2>&1 &&
      cmake --build "$b" >>"$b.log" 2>&1 &&
      (cd "$b" && ctest --output-on-failure >>"$b.log" 2>&1)
    local rc=$?
    [ $rc -ne 0 ] && cat "$b.log"
    report "$name [$type]" $rc
  }
  CXX=${ENZYME_CXX:-enzyme-c++}
  FC=${ENZYME_FC:-enzyme-fortran}
  for type in Debug Release; do
    cmake_project "CMake project" "$here/projects/cmake" $type -DCMAKE_C_COMPILER="$(command -v "$CC")"
    # Written for Enzyme: mangled entry points, a custom gradient, nested Hessian-vector products.
    cmake_project "Enzyme-style CMake project (C++)" "$here/projects/enzyme-style-cmake" $type \
      -DCMAKE_CXX_COMPILER="$(command -v "$CXX")"
    # C, C++ and Fortran: -DCMAKE_<LANG>_COMPILER=enzyme-*.
    cmake_project "CMake project in C, C++ and Fortran" "$here/projects/cmake-mixed" $type \
      -DCMAKE_C_COMPILER="$(command -v "$CC")" -DCMAKE_CXX_COMPILER="$(command -v "$CXX")" \
      -DCMAKE_Fortran_COMPILER="$(command -v "$FC")"
  done
else
  echo "FAIL CMake project: cmake is not installed"
  failed=$((failed + 1))
fi
echo "project builds: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
