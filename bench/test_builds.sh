#!/usr/bin/env bash
# Build time of every self-checking program in tests/c: enzyme-cc -O2 (or
# enzyme-c++) against clang-22 -O2 (clang++-22) on the same file, the
# `__enzyme_*` calls left unresolved for clang (it cannot run, as in
# bench/run.sh's build table). Best of two builds each. Prints a markdown
# section on stdout: the ten slowest by ratio, and a summary (issue 12's
# goal: within 3x).
# Usage: bench/test_builds.sh [name-filter]
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../tests/c
CC=${ENZYME_CC:-enzyme-cc}
CXX=${ENZYME_CXX:-enzyme-c++}
CLANG=${CLANG:-$(command -v clang-22 || echo /usr/lib/llvm-22/bin/clang)}
CLANGXX=${CLANGXX:-$(command -v clang++-22 || echo /usr/lib/llvm-22/bin/clang++)}
include=$(dirname "$(command -v "$CC")")/../include
filter=${1:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ms() { date +%s%N | awk '{printf "%.0f", $1 / 1e6}'; }

rows=()
for f in "$src"/*.c "$src"/*.cpp; do
  name=$(basename "$f")
  [[ "$name" == *"$filter"* ]] || continue
  case "$f" in
    *.cpp) ours=$CXX theirs=$CLANGXX ;;
    *) ours=$CC theirs=$CLANG ;;
  esac
  # A program refused at -O2 on purpose (`// not at: -O2`, see tests/run-c-tests.sh) has no build to time.
  grep -q '^// not at: -O2\b' "$f" && continue
  libs=$(sed -n 's|^// link: ||p' "$f")
  best_ours= best_theirs=
  for _ in 1 2; do
    t0=$(ms)
    # shellcheck disable=SC2086
    "$ours" -O2 -I"$src" "$f" -o "$dir/ours" -lm $libs >/dev/null 2>&1 || { echo "FAIL $name: enzyme build" >&2; continue 2; }
    t1=$(ms)
    # shellcheck disable=SC2086
    "$theirs" -O2 -I"$src" -I"$include" "$f" -o "$dir/theirs" -lm $libs -Wl,--unresolved-symbols=ignore-all \
      >/dev/null 2>&1 || { echo "FAIL $name: clang build" >&2; continue 2; }
    t2=$(ms)
    [ -z "$best_ours" ] || [ $((t1 - t0)) -lt "$best_ours" ] && best_ours=$((t1 - t0))
    [ -z "$best_theirs" ] || [ $((t2 - t1)) -lt "$best_theirs" ] && best_theirs=$((t2 - t1))
  done
  rows+=("$(awk -v n="$name" -v a="$best_ours" -v b="$best_theirs" 'BEGIN {printf "%.2f| %s | %d | %d | %.1f |", a / b, n, a, b, a / b}')")
done
sorted=$(printf '%s\n' "${rows[@]}" | sort -t'|' -k1,1 -rn)
echo "## Build time of the test programs (ms)"
echo
echo "Every program in \`tests/c\` (\`bench/test_builds.sh\`): enzyme-cc -O2 against clang-22 -O2, best of two each;"
echo "the ten slowest by ratio."
echo
echo "| program | enzyme-cc -O2 | clang-22 -O2 | ratio |"
echo "|---|---|---|---|"
head -n 10 <<<"$sorted" | cut -d'|' -f2- | sed 's/^/|/'
echo
awk -F'|' '{n++; if ($1 > 3.0) over++; if (NR > 10 && $1 > rest) rest = $1}
  END {
    printf "%d programs; %d over 3x (issue 12'"'"'s goal)", n, over
    if (n > 10) printf "; the %d not listed are at most %.1fx", n - 10, rest
    print "."
  }' <<<"$sorted"
echo "The BLAS and LAPACK programs get bodies for the libraries' C interfaces (\`cblas_*\`, \`LAPACKE_*\`) from our"
echo "rules, so that their argument and layout logic is differentiated; those bodies are compiled with the program"
echo "(and inlined into \`main\`'s primal calls), where clang's build only calls the system libraries."
