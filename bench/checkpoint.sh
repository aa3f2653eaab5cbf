#!/usr/bin/env bash
# Checkpointed time loops: the gradient of a 10^4-step integration taped
# whole and under enzyme/checkpoint.h's schemes (bench/checkpoint/integrate.c,
# enzyme-cc -O2): time, peak memory, steps run again. Every variant's
# gradient is checked first (against plain reverse mode, which is checked
# against central differences). Prints a markdown section on stdout
# (bench/run.sh puts it into results/latest.md).
# Usage: bench/checkpoint.sh [--check]   (--check: build and check only)
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if ! log=$("$CC" -O2 "$here/checkpoint/integrate.c" -o "$dir/integrate" -lm 2>&1); then
  echo "checkpointed integration: build failed" >&2
  echo "$log" >&2
  exit 1
fi
if [ "${1:-}" = "--check" ]; then
  "$dir/integrate" --check
  exit
fi
"$dir/integrate" --check >&2 || exit 1
echo "## Checkpointed time loops (\`enzyme/checkpoint.h\`)"
echo
echo "The gradient of 10^4 steps of a chain of 64 nonlinear oscillators (128 doubles of state, updated in place) with"
echo "respect to the initial state and 64 parameters. \`plain\`: the loop differentiated as any loop (every step's"
echo "values taped); the others: \`__enzyme_checkpoint_for\` with the scheme named (a snapshot is 1 KB). Peak MB is the"
echo "process's maximum resident size (the primal's is the baseline). Each gradient was checked against plain reverse"
echo "mode (1e-10), and that against central differences."
echo
echo "| variant | ms | / primal | peak MB | steps run again | snapshots held |"
echo "|---|---:|---:|---:|---:|---:|"
primal=
for v in primal plain revolve10 revolve100 periodic100 storeall; do
  read -r ms mb again slots _ < <(taskset -c 0 "$dir/integrate" "$v") || exit 1
  [ "$v" = primal ] && primal=$ms
  ratio=$(awk -v a="$ms" -v b="$primal" 'BEGIN { printf "%.2f", a / b }')
  case $v in
    primal | plain) again=-; slots=- ;;
  esac
  echo "| $v | $ms | ${ratio}x | $mb | $again | $slots |"
done
