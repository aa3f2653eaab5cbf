#!/usr/bin/env bash
# `make bench`: builds every kernel in bench/kernels with enzyme-cc -O2,
# checks its gradient against finite differences (at a small size), then
# times the primal and the gradient (best of repeated runs, pinned to one
# core) with their peak memory, and writes bench/results/latest.md.
# `run.sh --smoke`: the checks only (for CI; nothing timed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
CLANG=${CLANG:-$(command -v clang-22 || echo /usr/lib/llvm-22/bin/clang)}
smoke=0
[ "${1:-}" = "--smoke" ] && smoke=1
build=$here/build
rm -rf "$build" && mkdir -p "$build" "$here/results"
# kernel: check size, timed size, repetitions
declare -A CHECK=([dot]=1000 [logsumexp]=1000 [branchy]=1000 [brusselator]=50 [gmm]=50)
declare -A SIZE=([dot]=1000000 [logsumexp]=1000000 [branchy]=1000000 [brusselator]=500 [gmm]=1000)
declare -A REPS=([dot]=20 [logsumexp]=20 [branchy]=20 [brusselator]=5 [gmm]=20)
failed=0
rows=()
ms() { date +%s%N | awk '{printf "%.0f", $1 / 1e6}'; }
for src in "$here"/kernels/*.c; do
  k=$(basename "$src" .c)
  t0=$(ms)
  if ! "$CC" -O2 "$src" -o "$build/$k" -lm; then
    echo "FAIL $k: build"; failed=$((failed + 1)); continue
  fi
  t1=$(ms)
  ad_ms=$(ENZYME_TIME=1 "$CC" -O2 "$src" -o "$build/$k.timed" -lm 2>&1 | awk '/ differentiate:/ {print $3}')
  t2=$(ms)
  "$CLANG" -O2 -c "$src" -o "$build/$k.clang.o" -I"$(dirname "$(command -v "$CC")")/../include"
  t3=$(ms)
  if ! out=$("$build/$k" check "${CHECK[$k]}"); then
    echo "$out"; echo "FAIL $k: gradient check"; failed=$((failed + 1)); continue
  fi
  echo "ok   $k: gradient matches finite differences"
  [ $smoke -eq 1 ] && continue
  read -r _ _ _ tp mp < <("$build/$k" primal "${SIZE[$k]}" "${REPS[$k]}")
  read -r _ _ _ tg mg < <("$build/$k" gradient "${SIZE[$k]}" "${REPS[$k]}")
  ratio=$(awk -v a="$tg" -v b="$tp" 'BEGIN {printf "%.2f", a / b}')
  rows+=("| $k | ${SIZE[$k]} | $tp | $tg | ${ratio}x | $((mp / 1024)) | $((mg / 1024)) | $((t1 - t0)) | ${ad_ms:-?} | $((t3 - t2)) |")
done
if [ $smoke -eq 1 ]; then
  total=$(find "$here/kernels" -name '*.c' | wc -l)
  echo "benchmark checks: $((total - failed)) passed, $failed failed"
  [ $failed -eq 0 ]
  exit
fi
{
  echo "# Benchmark results"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, pinned to core 0"
  echo "- compilers: $("$CC" --version | head -n 1); $("$CLANG" --version | head -n 1)"
  echo "- flags: enzyme-cc -O2 for everything; times are the best of repeated runs (ms)"
  echo
  echo "| kernel | size | primal ms | gradient ms | gradient/primal | primal peak MB | gradient peak MB | enzyme-cc build ms | AD pass ms | clang-22 -O2 -c ms |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Gradients are checked against central finite differences before timing."
  echo "The clang column compiles only (it cannot link a program that asks for derivatives)."
} >"$here/results/latest.md"
cat "$here/results/latest.md"
[ $failed -eq 0 ]
