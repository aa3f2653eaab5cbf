#!/usr/bin/env bash
# The drop-in contract: every flag a build system passes works as with clang.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
build=$here/build/driver
rm -rf "$build" && mkdir -p "$build"
cd "$build"
passed=0
failed=0
check() { # description, then a command that must succeed
  local what=$1
  shift
  local out
  if out=$("$@" 2>&1); then
    passed=$((passed + 1))
    echo "ok   $what"
  else
    failed=$((failed + 1))
    echo "FAIL $what"
    echo "$out" | tail -n 15
  fi
}

cat >lib.c <<'C'
#include <math.h>
#include "lib.h"
double energy(double x) { return SCALE * x * x + sin(x); }
C
cat >lib.h <<'C'
#define SCALE 2.0
double energy(double x);
C
cat >main.c <<'C'
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>
#include "lib.h"
int main(void) {
  double x = 0.5, d = __enzyme_autodiff((void *)energy, x);
  double want = 2 * SCALE * x + cos(x);
  printf("%.15g %.15g\n", d, want);
  return fabs(d - want) > 1e-12;
}
C

check "-E preprocesses" bash -c "$CC -E lib.c | grep -q '2.0 \* x \* x'"
check "-S writes native assembly" bash -c "$CC -O2 -S lib.c -o lib.s && grep -q 'energy:' lib.s"
check "-MM lists dependencies" bash -c "$CC -MM lib.c | grep -q 'lib.h'"
check "-MD -MF writes a depfile while compiling" bash -c "$CC -MD -MF lib.d -c lib.c -o lib.o && grep -q lib.h lib.d"
check "-c emits a bitcode object" bash -c "$CC -O2 -c lib.c -o lib.o && head -c 4 lib.o | od -An -c | grep -q 'B   C'"
check "-c of several files at once" bash -c "$CC -c lib.c main.c && test -f lib.o -a -f main.o"
check "-x c on a file with another extension" bash -c "cp lib.c lib.txt && $CC -x c -c lib.txt -o libtxt.o && test -s libtxt.o"
check "-D/-I/-std/-W flags reach the compiler" bash -c "$CC -std=c11 -Wall -Wextra -DEXTRA=1 -I. -c main.c -o main.o"
check "one-shot compile and link of two sources" bash -c "$CC -O2 main.c lib.c -o app1 -lm && ./app1"
check "separate compile and link at -O3" bash -c "$CC -O3 -c lib.c -o lib.o && $CC -O3 -c main.c -o main.o && $CC -O3 main.o lib.o -o app2 -lm && ./app2"
check "ENZYME_AD_BEFORE_OPT=1 (the benchmarks' ablation) skips the pre-AD pipeline, still right" bash -c "ENZYME_AD_BEFORE_OPT=1 $CC -O2 main.c lib.c -o app-ablation -lm -### 2>&1 | grep -q 'pre-AD: none (ENZYME_AD_BEFORE_OPT)' && ENZYME_AD_BEFORE_OPT=1 $CC -O2 -c lib.c -o lib-abl.o -### 2>&1 | grep -q disable-llvm-passes && ENZYME_AD_BEFORE_OPT=1 $CC -O2 main.c lib.c -o app-ablation -lm && ./app-ablation"
check "@response file" bash -c "printf '%s\n' -O2 main.c lib.c -o app3 -lm > args.rsp && $CC @args.rsp && ./app3"
check "-Wl, and -L/-l flags" bash -c "$CC main.c lib.c -Wl,--as-needed -L/usr/lib -lm -o app4 && ./app4"
check "mixing a native object (gcc) and bitcode" bash -c "gcc -O2 -c -x c - -o native.o <<<'double twice(double x) { return 2 * x; }' && $CC main.c lib.c native.o -o app5 -lm && ./app5"
check "-shared library with derivatives inside" bash -c "
  printf '%s\n' '#include <enzyme/enzyme.h>' '#include \"lib.h\"' 'double denergy(double x) { return __enzyme_autodiff((void *)energy, x); }' > grad.c &&
  $CC -O2 -fPIC -shared grad.c lib.c -o libgrad.so -lm &&
  printf '%s\n' '#include <math.h>' 'double denergy(double);' 'int main(void) { return fabs(denergy(0.5) - (2.0 + cos(0.5))) > 1e-12; }' > use.c &&
  gcc use.c -L. -lgrad -lm -Wl,-rpath,. -o app6 && ./app6"
check "-### prints the commands and runs nothing" bash -c "$CC -O2 -### main.c lib.c -o never -lm 2>&1 | grep -q 'link-time AD' && test ! -e never"
check "--version | head -c 1: no panic when the reader stops early" bash -c \
  "for i in 1 2 3 4 5 6 7 8; do $CC --version | head -c 1 >/dev/null; echo rc=\${PIPESTATUS[0]}; done 2>&1 | grep -q 'panicked\|rc=70' && exit 1 || exit 0"
check "enzyme-fortran links C and Fortran objects with libm, as flang does" bash -c "
  printf '%s\n' 'subroutine heat(x, y) bind(c)' '  real(8), intent(in) :: x' '  real(8), intent(out) :: y' '  y = exp(x) * x' 'end subroutine' > heat.f90 &&
  printf '%s\n' '#include <math.h>' 'void heat(const double *x, double *y);' 'void __enzyme_autodiff(void *, ...);' \
    'int main(void) { double x = 0.5, dx = 0, y, dy = 1; __enzyme_autodiff((void *)heat, &x, &dx, &y, &dy);' \
    '  return fabs(dx - exp(0.5) * 1.5) > 1e-12; }' > fmain.c &&
  $CC -c fmain.c -o fmain.o && ${ENZYME_FC:-enzyme-fortran} -c heat.f90 -o heat.o && ${ENZYME_FC:-enzyme-fortran} fmain.o heat.o -o app_fortran && ./app_fortran"
check "a function of a user's shared library: the error says where its body is" bash -c "
  $CC -O2 -fPIC -shared $here/driver/mystery_kernel.c -o libmk.so -lm &&
  ! $CC -O2 $here/driver/shared_unregistered.c -L. -lmk -o never2 >log.txt 2>&1 &&
  grep -q 'defined in the shared library ./libmk.so' log.txt && grep -q '__enzyme_register_gradient_mystery_kernel' log.txt &&
  test ! -e never2"
check "... and the rule the message suggests makes it build, with the right derivative" bash -c "
  $CC -O2 $here/driver/shared_registered.c -L. -lmk -o app_shared -lm && LD_LIBRARY_PATH=. ./app_shared"
check "-g: derivative functions carry the lines of the primal code (reverse and forward)" bash -c "
  $CC -O0 -g $here/driver/lines.c -o app_lines0 -lm && ./app_lines0 &&
  for fn in diffe_f fwddiffe_f; do
    lines=\$(llvm-objdump-22 -l --disassemble-symbols=\$fn app_lines0 | grep -o 'lines.c:[0-9]*' | sort -u | tr '\\n' ' ')
    echo \"\$fn: \$lines\"; for l in 8 9 10; do grep -q \"lines.c:\$l \" <<<\"\$lines\" || exit 1; done
  done"
check "-g at -O2: valid debug info after the derivatives are inlined" bash -c "
  $CC -O2 -g $here/driver/lines.c -o app_lines2 -lm && ./app_lines2 && llvm-dwarfdump-22 --verify app_lines2 >verify.txt;
  # The linker merges string tails (\"t\" inside \"want\"), which the verifier reports; nothing else may fail.
  ! grep '^error:' verify.txt | grep -v 'invalid string offset\|Aggregated error counts'"
check "-g: DWARF 4 unless asked, so valgrind reads a program of several units" bash -c "
  $CC -O2 -g -c $here/driver/lines.c -o lines.o && llvm-dis-22 lines.o -o - | grep -q '\"Dwarf Version\", i32 4' &&
  $CC -O2 -gdwarf-5 -c $here/driver/lines.c -o lines5.o && llvm-dis-22 lines5.o -o - | grep -q '\"Dwarf Version\", i32 5' &&
  $CC -O2 -g lines.o lib.c -o app_dwarf -lm && ./app_dwarf &&
  { ! command -v valgrind >/dev/null || valgrind -q --error-exitcode=99 ./app_dwarf; }"
check "the engine reads no freed memory (a marker passed three times, under valgrind)" bash -c "
  if command -v valgrind >/dev/null; then
    valgrind -q --error-exitcode=99 $CC -O2 $here/driver/marker_twice.c -o app_markers -lm 2>valgrind.txt || { cat valgrind.txt; exit 1; }
    ! grep -q 'Invalid' valgrind.txt
  else $CC -O2 $here/driver/marker_twice.c -o app_markers -lm; fi && ./app_markers"
check "code away from derivatives is optimised once, and left with no attribute of ours" bash -c "
  rm -rf dump && mkdir dump && ENZYME_DUMP_IR=dump $CC -O2 main.c lib.c -o app_focus -lm && ./app_focus &&
  ! grep -q 'optnone\\|enzyme-rs-optimised' dump/final.ll"
check "--version names the tool and LLVM 22" bash -c "$CC --version | grep -q 'enzyme-rs' && $CC --version | grep -q 'LLVM 22'"
check "-v reports what was differentiated" bash -c "$CC -v main.c lib.c -o app7 -lm 2>&1 | grep -q 'differentiated: reverse mode of .energy.'"
check "-fenzyme-print-activity describes the analysis (and is not passed to clang)" bash -c "$CC -O2 -fenzyme-print-activity main.c lib.c -o app8 -lm 2>&1 | grep -q 'activity of .energy.' && ./app8"
check "enzyme-c++ builds C++" bash -c "printf '%s\n' '#include <enzyme/enzyme.h>' '#include <cmath>' 'static double f(double x) { return std::exp(x) * x; }' 'int main() { double x = 0.3; return std::fabs(__enzyme_autodiff<double>((void *)f, x) - std::exp(x) * (1 + x)) > 1e-12; }' > t.cpp && ${ENZYME_CXX:-enzyme-c++} -O2 t.cpp -o cxx && ./cxx"
# Enzyme's own build recipes load its plugins; the engine is built in here.
check "Enzyme's plugin flags are accepted (and said with -v to be unneeded)" bash -c "$CC -O2 -v -fplugin=/opt/enzyme/ClangEnzyme-22.so -Xclang -load -Xclang /opt/enzyme/ClangEnzyme-22.so -fpass-plugin=/opt/enzyme/LLVMEnzyme-22.so main.c lib.c -Wl,--as-needed,--load-pass-plugin=/opt/enzyme/LLDEnzyme-22.so -o app9 -lm 2>notes.txt && grep -q 'ClangEnzyme-22.so. is not needed' notes.txt && ./app9"
check "Enzyme's plugin flags on a compile step" bash -c "$CC -O2 -c -fplugin=/x/ClangEnzyme-22.so lib.c -o libp.o && $CC -O2 -fpass-plugin=/x/LLVMEnzyme-22.so main.c libp.o -o app10 -lm && ./app10"
check "-mllvm -enzyme-print-activity maps to -fenzyme-print-activity" bash -c "$CC -O2 -mllvm -enzyme-print-activity main.c lib.c -o app11 -lm 2>&1 | grep -q 'activity of .energy.'"
check "-mllvm -enzyme-runtime-activity gives every derivative run-time activity" bash -c "$CC -O2 -mllvm -enzyme-runtime-activity $here/driver/runtime_activity_flag.c -o app_ra && ./app_ra"
check "-mllvm -enzyme-<other> is refused, naming it" bash -c "! $CC -O2 -mllvm -enzyme-loose-types main.c lib.c -o app12 -lm 2>err.txt && grep -q 'enzyme-loose-types. is an option of Enzyme' err.txt && test ! -e app12"
# Sanitizers: compile steps leave AddressSanitizer out, the link step runs it
# after differentiation (derivatives instrumented too); UBSan checks stay.
cat >san.c <<'C'
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static double f(const double *x, int n) {
  double *t = malloc(n * sizeof(double)), s = 0;
  for (int i = 0; i < n; i++) t[i] = sin(x[i]) * x[i];
  for (int i = 0; i < n; i++) s += t[i] * t[(i + 1) % n];
  free(t);
  return s;
}
int main(int argc, char **argv) {
  double x[3] = {0.1, 0.2, 0.3}, dx[3] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
  double want = (cos(0.1) * 0.1 + sin(0.1)) * (sin(0.2) * 0.2 + sin(0.3) * 0.3);
  if (fabs(dx[0] - want) > 1e-12) return 1;
  if (argc > 1) { double *b = malloc(2 * sizeof(double)); b[argc + 1] = 1; printf("%g\n", b[0]); }
  return 0;
}
C
check "-fsanitize=address,undefined: derivative right, overflow found" bash -c "$CC -O2 -g -fsanitize=address,undefined san.c -o san -lm && ./san && ! ./san overflow 2>asan.txt && grep -q heap-buffer-overflow asan.txt"
check "-fsanitize=address with separate compile and link" bash -c "$CC -O1 -fsanitize=address -c san.c -o san.o && $CC -fsanitize=address san.o -o san2 -lm && ./san2"
# Textual IR given to a link step is differentiated like any bitcode.
check ".ll files on a link step" bash -c "${CLANG:-/usr/lib/llvm-22/bin/clang} -O1 -S -emit-llvm lib.c -o lib.ll && $CC -O2 main.c lib.ll -o app13 -lm && ./app13"
# enzyme-c++ compiles .c inputs as C++, as clang++ does.
check "enzyme-c++ treats .c inputs as C++" bash -c "printf '%s\n' '#include <cmath>' 'double energy(double x) { auto sq = [](double v) { return v * v; }; return 2.0 * sq(x) + std::sin(x); }' > libcxx.c && printf '%s\n' '#include <enzyme/enzyme.h>' '#include <cmath>' 'double energy(double x);' 'int main() { double x = 0.5; return std::fabs(__enzyme_autodiff<double>((void *)energy, x) - (4 * x + std::cos(x))) > 1e-12; }' > maincxx.cpp && ${ENZYME_CXX:-enzyme-c++} -std=c++17 maincxx.cpp libcxx.c -o app14 && ./app14"
# A function of thousands of straight-line statements: its derivatives are
# compiled apart (split_codegen), sharing a static table, a string and a
# static helper with the rest of the program; gradient against central
# differences, forward against reverse, with and without -g, and the same
# numbers with the split switched off.
awk 'BEGIN {
  srand(7);
  print "#include <enzyme/enzyme.h>\n#include <math.h>\n#include <stdio.h>";
  print "static const double w[5] = {0.5, -0.25, 0.125, 1.5, -0.75};";
  print "static double g(double v) { return v / (1.0 + v * v); }";
  print "static double big(const double *x, int m) {\n  double s = 0;\n  for (int k = 0; k < m; k++) {";
  print "    double v0 = x[k % 3], v1 = x[(k + 1) % 3];";
  for (i = 2; i < 2502; i++) {
    a = i - 1; b = int(rand() * i); op = int(rand() * 4);
    if (op == 0) e = sprintf("v%d * w[%d] + 0.25 * v%d", a, i % 5, b);
    else if (op == 1) e = sprintf("v%d + 0.5 * g(v%d)", a, b);
    else if (op == 2) e = sprintf("sin(v%d) - 0.5 * v%d", a, b);
    else e = sprintf("v%d / (1.0 + v%d * v%d)", a, b, b);
    printf "    double v%d = %s;\n", i, e;
  }
  print "    s += v2501;\n  }\n  return s;\n}";
  print "int main(void) {\n  double x[3] = {0.3, -0.2, 0.5}, dx[3] = {0};";
  print "  __enzyme_autodiff((void *)big, x, dx, 2);\n  int bad = 0;";
  print "  for (int i = 0; i < 3; i++) {\n    double h = 1e-6, xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, t[3] = {0};";
  print "    xp[i] += h;\n    xm[i] -= h;\n    t[i] = 1;";
  print "    double fd = (big(xp, 2) - big(xm, 2)) / (2 * h);";
  print "    double fw = __enzyme_fwddiff((void *)big, enzyme_dup, x, t, enzyme_const, 2);";
  print "    if (fabs(dx[i] - fd) > 1e-5 * (1 + fabs(fd)) || fabs(fw - dx[i]) > 1e-10 * (1 + fabs(fw))) {";
  print "      printf(\"d/dx%d: reverse %.17g forward %.17g differences %.17g\\n\", i, dx[i], fw, fd);\n      bad = 1;\n    }";
  print "    printf(\"%.17g\\n\", dx[i]);\n  }\n  return bad;\n}";
}' >huge.c
check "huge derivatives compiled apart: gradient and tangent right" bash -c "ENZYME_TIME=1 $CC -O2 huge.c -o huge -lm 2>huge.time && grep -q 'huge derivatives compiled apart' huge.time && ./huge >huge.out"
check "huge derivatives compiled apart, -O0 -g" bash -c "ENZYME_TIME=1 $CC -O0 -g huge.c -o huge0 -lm 2>huge0.time && grep -q 'huge derivatives compiled apart' huge0.time && ./huge0 >/dev/null"
check "huge derivatives compiled with the rest: the same numbers" bash -c "ENZYME_ABLATE=split-codegen ENZYME_TIME=1 $CC -O2 huge.c -o huge1 -lm 2>huge1.time && ! grep -q 'compiled apart' huge1.time && ./huge1 >huge1.out && cmp huge.out huge1.out"
# Errors the code generator reports and goes on from (clang stops on them)
# stop the build with LLVM's message, and no output is written: inline
# assembly whose operand does not fit its constraint, and a call left to a
# function declared with __attribute__((error)).
printf '%s\n' 'double __enzyme_autodiff(void *, ...);' 'double sq(double x) { return x * x; }' \
  'int g(int v) { int r; __asm__("movl %1, %0" : "=r"(r) : "n"(v)); return r; }' \
  'int main(int argc, char **argv) { return g(argc) + (__enzyme_autodiff((void *)sq, 1.0) != 2); }' >asm_error.c
check "inline assembly the code generator refuses: an error, no output" bash -c "! $CC -O2 asm_error.c -o asm_error 2>err.txt && grep -q \"code generation failed: constraint 'n' expects an integer constant expression (in inline assembly)\" err.txt && test ! -e asm_error"
printf '%s\n' 'double __enzyme_autodiff(void *, ...);' 'double sq(double x) { return x * x; }' \
  'extern void too_big(void) __attribute__((error("buffer too small")));' \
  'static inline void check_size(int n) { if (n > 4) too_big(); }' \
  'int main(void) { check_size(8); return __enzyme_autodiff((void *)sq, 1.0) != 2; }' >call_error.c
check "a call to a function with the error attribute left in the code: an error, no output" bash -c "! $CC -O2 call_error.c -o call_error 2>err.txt && grep -q 'too_big.*buffer too small' err.txt && test ! -e call_error"

# The same input gives the same output: the differentiated module of a
# program with several shadow globals and vector-mode derivatives, built
# three times (the order of hash maps once decided the order of the calls
# zeroing shadow globals).
check "the same program differentiates to the same module every time" bash -c "for k in 1 2 3; do mkdir -p same\$k && ENZYME_DUMP_IR=same\$k $CC -O2 -I$here/c $here/c/vector_reverse.c -o same -lm || exit 1; done && cmp same1/after-ad.ll same2/after-ad.ll && cmp same1/after-ad.ll same3/after-ad.ll"

# Parallel code generation (driver/src/split_codegen.rs): a test program of
# thousands of instructions is compiled in parts on a machine of several
# cores; its checks pass, as with one part, also with debug information (and
# in C++, with exceptions, comdats and typeinfo).
if [ "$(nproc)" -ge 2 ]; then
  check "parallel code generation: in parts, checks pass" bash -c "ENZYME_TIME=1 $CC -O2 -I$here/c $here/c/higher_order.c -o par -lm 2>par.time && grep -q 'code generated in [0-9]* parts' par.time && ./par"
  check "parallel code generation, -g: checks pass, debug information valid" bash -c "ENZYME_TIME=1 $CC -O2 -g -I$here/c $here/c/recursion_memory.c -o parg -lm 2>parg.time && grep -q 'code generated in' parg.time && ./parg && /usr/lib/llvm-22/bin/llvm-dwarfdump --verify parg | grep -q 'No errors'"
  check "parallel code generation, C++: checks pass" bash -c "ENZYME_TIME=1 ${ENZYME_CXX:-enzyme-c++} -O2 -I$here/c $here/c/cxx_maps.cpp -o parx 2>parx.time && grep -q 'code generated in' parx.time && ./parx"
  check "parallel code generation ablated: one part, checks pass" bash -c "ENZYME_ABLATE=parallel-codegen ENZYME_TIME=1 $CC -O2 -I$here/c $here/c/higher_order.c -o par1 -lm 2>par1.time && ! grep -q 'parts' par1.time && ./par1"
fi
echo "driver flags: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
