#!/usr/bin/env bash
# Rust edit-and-rebuild time through `cargo enzyme`: makes the Rust template
# (`cargo enzyme new`), builds it once, then edits `src/main.rs` (a new
# constant, so rustc recompiles the crate) and rebuilds, three times per
# profile, and reports the best rebuild with the link-time phases
# (ENZYME_TIME written to a file: cargo hides a linker's stderr). The
# program's gradient test runs first (`cargo enzyme test`), so what is
# timed is a program whose derivatives are checked. Prints a markdown
# section on stdout (bench/run.sh puts it into results/latest.md).
set -u
CARGO_ENZYME=${CARGO_ENZYME:-cargo-enzyme}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ms() { date +%s%N | awk '{printf "%.0f", $1 / 1e6}'; }
cd "$dir" || exit 1
"$CARGO_ENZYME" enzyme new relink >/dev/null || { echo "FAIL rust relink: cargo enzyme new" >&2; exit 1; }
cd relink || exit 1
t0=$(ms)
"$CARGO_ENZYME" enzyme test --release >test.log 2>&1 || { cat test.log >&2; echo "FAIL rust relink: the template's test" >&2; exit 1; }
first_test=$(($(ms) - t0))

echo "## Rust edit and rebuild (ms)"
echo
echo "The Rust template (\`cargo enzyme new\`): one edit of \`src/main.rs\`, then \`cargo enzyme build\` (rustc, then"
echo "the link: merge, pre-AD pipeline, AD, post-AD pipeline, code generation, system linker). Best of three."
echo "The first \`cargo enzyme test --release\` of a fresh project (std and the enzyme crate built too) took $first_test ms."
echo
echo "| profile | rebuild | link phases (sum) | pre-AD pipeline | AD pass | post-AD pipeline | code generation |"
echo "|---|---|---|---|---|---|---|"
edit=0
for profile in --release ""; do
  "$CARGO_ENZYME" enzyme build $profile >/dev/null 2>&1 || { echo "FAIL rust relink: build" >&2; exit 1; }
  best=""
  for _ in 1 2 3; do
    edit=$((edit + 1))
    printf '\nconst _EDIT_%s: u32 = %s;\n' "$edit" "$edit" >>src/main.rs
    rm -f times.txt
    t0=$(ms)
    ENZYME_TIME="$dir/relink/times.txt" "$CARGO_ENZYME" enzyme build $profile >build.log 2>&1 ||
      { cat build.log >&2; echo "FAIL rust relink: rebuild" >&2; exit 1; }
    total=$(($(ms) - t0))
    if [ -z "$best" ] || [ "$total" -lt "${best%% *}" ]; then
      phase() { awk -v p="$1" -F': ' '$2 == p { sub(/ ms/, "", $3); printf "%.0f", $3 }' times.txt; }
      pre=$(phase "pre-AD pipeline")
      ad=$(phase "differentiate")
      post=$(phase "post-AD pipeline")
      gen=$(phase "code generation")
      link=$(awk -F': ' '{ sub(/ ms/, "", $3); s += $3 } END { printf "%.0f", s }' times.txt)
      best="$total $pre $ad $post $gen $link"
    fi
  done
  read -r total pre ad post gen link <<<"$best"
  echo "| ${profile:---debug} | $total | $link | ${pre:-0} | $ad | $post | $gen |" | sed 's/--debug/debug/; s/--release/release/'
done
echo
echo "The link phases are those ENZYME_TIME reports; merging the bitcode and the system linker come on top."
