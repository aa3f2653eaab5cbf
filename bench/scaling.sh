#!/usr/bin/env bash
# Build time against function size: a function of N straight-line
# statements (products, sums, sines and quotients, each using the one before
# and a random earlier one) in a loop, differentiated in reverse mode, for N
# from 200 to 8000. Times `enzyme-cc -O2` (compile, link, AD) with each
# link-time phase (ENZYME_TIME=1), and `clang-22 -O2` on the same file; checks
# the gradient against central finite differences first. Prints a markdown
# section on stdout (bench/run.sh puts it into results/latest.md).
# Usage: bench/scaling.sh [SIZES...]
set -u
CC=${ENZYME_CC:-enzyme-cc}
CLANG=${CLANG:-$(command -v clang-22 || echo /usr/lib/llvm-22/bin/clang)}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(200 500 1000 2000 4000 8000)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ms() { date +%s%N | awk '{printf "%.0f", $1 / 1e6}'; }

# The program: f(x) over m loop iterations; main checks the gradient against
# central differences (relative 1e-5) and exits non-zero if it is off.
generate() { # N file
  awk -v n="$1" 'BEGIN {
    srand(1);
    print "#include <math.h>\n#include <stdio.h>\ndouble __enzyme_autodiff(void *, ...);";
    print "static double f(const double *x, int m) {\n  double s = 0;\n  for (int k = 0; k < m; k++) {";
    print "    double v0 = x[k % 4], v1 = x[(k + 1) % 4];";
    for (i = 2; i < n + 2; i++) {
      a = i - 1; b = int(rand() * i); op = int(rand() * 4);
      if (op == 0) e = sprintf("v%d * v%d", a, b);
      else if (op == 1) e = sprintf("v%d + 0.5 * v%d", a, b);
      else if (op == 2) e = sprintf("sin(v%d) - 0.5 * v%d", a, b);
      else e = sprintf("v%d / (1.0 + v%d * v%d)", a, b, b);
      printf "    double v%d = %s;\n", i, e;
    }
    printf "    s += v%d;\n  }\n  return s;\n}\n", n + 1;
    print "int main(void) {\n  double x[4] = {0.1, 0.2, 0.3, 0.4}, dx[4] = {0};";
    print "  __enzyme_autodiff((void *)f, x, dx, 3);\n  int bad = 0;";
    print "  for (int i = 0; i < 4; i++) {\n    double h = 1e-6, xp[4], xm[4];";
    print "    for (int k = 0; k < 4; k++) xp[k] = xm[k] = x[k];\n    xp[i] += h;\n    xm[i] -= h;";
    print "    double fd = (f(xp, 3) - f(xm, 3)) / (2 * h);";
    print "    if (fabs(dx[i] - fd) > 1e-5 * (1 + fabs(fd))) { printf(\"d/dx%d: %g, differences %g\\n\", i, dx[i], fd); bad = 1; }";
    print "  }\n  return bad;\n}";
  }' >"$2"
}

rows=()
for n in "${sizes[@]}"; do
  src=$dir/s$n.c
  generate "$n" "$src"
  t0=$(ms)
  phases=$(ENZYME_TIME=1 "$CC" -O2 "$src" -o "$dir/s$n" -lm 2>&1) || { echo "$phases" >&2; echo "FAIL scaling $n: build" >&2; exit 1; }
  t1=$(ms)
  "$dir/s$n" >&2 || { echo "FAIL scaling $n: gradient" >&2; exit 1; }
  t2=$(ms)
  "$CLANG" -O2 "$src" -o "$dir/c$n" -lm -Wl,--unresolved-symbols=ignore-all
  t3=$(ms)
  phase() { awk -v p="$1" 'index($0, p ":") {print $(NF - 1)}' <<<"$phases" | head -n 1; }
  echo "ok   scaling $n statements: $((t1 - t0)) ms (clang $((t3 - t2)) ms)" >&2
  rows+=("| $n | $((t1 - t0)) | $(phase "pre-AD pipeline") | $(phase differentiate) | $(phase "post-AD pipeline") | $(phase "code generation") | $((t3 - t2)) | $(awk -v a=$((t1 - t0)) -v b=$((t3 - t2)) 'BEGIN {printf "%.1f", a / b}') |")
done
echo "## Build time against function size (ms)"
echo
echo "One function of N straight-line statements in a loop, reverse mode (\`bench/scaling.sh\`); its gradient is checked"
echo "against central differences first. Phases from \`ENZYME_TIME=1\`. Derivatives over 8,000 instructions with a block of"
echo "over 4,000 (here from 2,000 statements on) are compiled apart by the code generator's fast path"
echo "(\`driver/src/split_codegen.rs\`; \`ENZYME_ABLATE=split-codegen\` compiles them with the rest)."
echo
echo "| statements | enzyme-cc -O2 | pre-AD pipeline | AD pass | post-AD pipeline | code generation | clang-22 -O2 | ratio |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
