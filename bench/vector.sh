#!/usr/bin/env bash
# Vector mode: whole Jacobians by forward mode at widths 1, 4, 8 and reverse
# mode at widths 1, 2, 4 (bench/vector/jacobians.c, enzyme-cc -O2): bundle
# adjustment, a Brusselator and a reaction network. Every
# width's Jacobian is checked first (against width 1, which is checked
# against central differences). Prints a markdown section on stdout
# (bench/run.sh puts it into results/latest.md).
# Usage: bench/vector.sh [--check]   (--check: build and check only)
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for flags in "" "-march=native"; do
  # shellcheck disable=SC2086
  if ! log=$("$CC" -O2 $flags "$here/vector/jacobians.c" -o "$dir/jacobians$flags" -lm 2>&1); then
    echo "vector-mode Jacobians: build failed ($flags)" >&2
    echo "$log" >&2
    exit 1
  fi
done
if [ "${1:-}" = "--check" ]; then
  "$dir/jacobians" --check
  exit
fi
"$dir/jacobians" --check >&2 || exit 1
"$dir/jacobians-march=native" --check >&2 || exit 1
rows=$(taskset -c 0 "$dir/jacobians") || { echo "$rows" >&2; exit 1; }
native=$(taskset -c 0 "$dir/jacobians-march=native" | tail -n +3) || { echo "$native" >&2; exit 1; }
echo "## Vector mode: whole Jacobians by width (ms)"
echo
echo "\`enzyme_width, N\`: one call carries N tangents (forward) or N seeds (reverse); the primal runs once per call."
echo "\`ba\`: the 2 x 15 block of each of 10^4 reprojections (15 forward lanes, or 2 reverse lanes; lanes past the"
echo "last column or row are zero); \`ode\`: the 48 x 48 Jacobian of a Brusselator right-hand side, 2000 times;"
echo "\`kin\`: the 16 x 16 Jacobian of a stiff reaction network's right-hand side (15 species and the temperature, 32"
echo "reversible Arrhenius reactions, the mechanism's table in mutable globals), 2000 times. The last column is the"
echo "time over width 1's (the same Jacobian by N times as many calls): the issue's goal is at most 0.5 for forward"
echo "width 8. Each width was checked against width 1 (to 1e-12), and width 1 against central differences."
echo
echo "$rows"
echo
echo "The same built with \`-march=native\` (here: $(grep -o -w 'avx512f\|avx2' /proc/cpuinfo | sort -u | paste -sd ' ' || true)), so the post-AD vectoriser"
echo "can pack the lanes into wider registers; the primal gets the same flags, and width 1 is not always faster for it):"
echo
echo "| benchmark | Jacobian | mode | width | time (ms) | / width 1 |"
echo "|---|---|---|---:|---:|---:|"
echo "$native"
