#!/usr/bin/env bash
# `make bench`: for every benchmark below,
#   1. builds it with enzyme-cc -O2, and again with the ablation switch
#      ENZYME_AD_BEFORE_OPT=1 (differentiate unoptimised IR, optimise after);
#   2. checks both builds' derivatives (against finite differences, forward
#      against reverse, hand-written against ours; see bench.h) and stops on
#      a failure;
#   3. times the primal and each derivative mode (best of repeated runs in
#      each of three processes, pinned to core 0), with peak memory, and
#      counts their instructions under callgrind, with a profile of reverse
#      mode by kind of code;
#   4. for GMM and BA, checks and times the peers (ADOL-C, JAX on CPU)
#      against our derivative, number by number;
#   5. times the enzyme-cc build against clang-22 -O2 -c, and the AD pass on
#      its own (ENZYME_TIME=1); then build time against function size
#      (bench/scaling.sh, 200 to 8000 statements), every test program's build
#      beside clang's (bench/test_builds.sh), and a Rust edit's rebuild
#      through cargo enzyme (bench/rust_relink.sh);
#   6. vector mode: whole Jacobians by width (bench/vector.sh);
#   7. OpenMP and MPI: parallel stencils' derivatives at 1 and 2 threads and ranks
#      (bench/parallel.sh);
#   8. checkpointed time loops: a 10^4-step integration's gradient taped whole
#      and under each scheme of enzyme/checkpoint.h (bench/checkpoint.sh);
# and writes bench/results/latest.md.
# `run.sh --smoke`: steps 1 and 2 only (for CI; nothing timed).
# Environment: BENCH_INSTR=0 skips the instruction counts; BENCH_VENV is the
# virtual environment with JAX (made on first use from PyPI); BENCH_ONLY=REGEX
# runs only the benchmarks whose names match.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CC=${ENZYME_CC:-enzyme-cc}
CLANG=${CLANG:-$(command -v clang-22 || echo /usr/lib/llvm-22/bin/clang)}
CLANGXX=${CLANGXX:-$(command -v clang++-22 || echo /usr/lib/llvm-22/bin/clang++)}
VENV=${BENCH_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/enzyme-rs/bench-venv}
smoke=0
[ "${1:-}" = "--smoke" ] && smoke=1
build=$here/build
rm -rf "$build" && mkdir -p "$build" "$here/results"

# name | source | extra flags (comma-separated, - for none) | check size | timed size | repetitions | peers
BENCHES=(
  "dot dot.c - 1000 1000000 20 -"
  "logsumexp logsumexp.c - 1000 1000000 20 -"
  "branchy branchy.c - 1000 1000000 20 -"
  "fft fft.c - 64 65536 10 -"
  "brusselator brusselator.c - 50 500 5 -"
  "gmm-d10-k5 gmm.c -DGMM_D=10,-DGMM_K=5 50 1000 20 gmm"
  "gmm-d20-k25 gmm.c -DGMM_D=20,-DGMM_K=25 20 1000 5 gmm"
  "gmm-d20-k25 gmm.c -DGMM_D=20,-DGMM_K=25 20 10000 3 gmm"
  "ba ba.c - 100 10000 10 ba"
  "lstm-l2 lstm.c -DLSTM_L=2 30 1024 10 -"
  "lstm-l4 lstm.c -DLSTM_L=4 30 1024 10 -"
)

# Levers of ENZYME_ABLATE (see driver/src/pipeline.rs).
LEVERS=(tape-reuse bounded-tapes tape-scope store-forwarding settled-slots exact-visits entry-tables sum-steps)
failed=0 checked=0
ours=() peers=() ablation=() builds=() where=()
ms() { date +%s%N | awk '{printf "%.0f", $1 / 1e6}'; }
# `timed CMD...`: the harness's line "name mode n best_ms peak_kb" from the
# best of three processes (a process's placement in memory moves its time too).
timed() {
  for _ in 1 2 3; do "$@"; done | sort -g -k4 | head -n 1
}
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "" || b == "" || b + 0 == 0) print "?"; else printf "%.2f", a / b}'; }
# Largest relative difference between two files of numbers, one per line.
# Whether a peer's derivative (file $2) agrees with ours (file $1) to relative 1e-8;
# prints the largest difference either way.
agrees() {
  local d
  d=$(maxdiff "$1" "$2")
  echo "$d"
  awk -v d="$d" 'BEGIN {exit !(d <= 1e-8)}'
}
maxdiff() {
  paste "$1" "$2" | awk 'BEGIN {m = 0} NF != 2 {m = 1e300} {d = $1 - $2; if (d < 0) d = -d; a = $2 < 0 ? -$2 : $2;
    r = d / (1 + a); if (r > m) m = r} END {if (NR == 0) m = 1e300; printf "%.3g", m}'
}
# Instructions of one run of a mode (callgrind: repeatable, unlike times);
# the profile stays in $build/NAME.MODE.callgrind.
instructions() {
  valgrind --tool=callgrind --callgrind-out-file="$build/$1.$2.callgrind" "$build/$1" "$2" "$3" 0 2>&1 >/dev/null |
    awk '/Collected/ {print $4}'
}
# A profile by kind of code: derivative, libm, allocation and copies, the
# rest; instructions as "derivative libm memory other" (see profile.awk).
profile() { callgrind_annotate --threshold=100 "$build/$1.$2.callgrind" 2>/dev/null | awk -f "$here/profile.awk"; }
# The goals of issue 15, from the facts this run measured ("name n mode ms
# primal_ms peak_MB" per line; "jax" lines carry JAX's time, "build" lines the
# enzyme-cc and clang build times). BA's forward mode takes 15 directions.
goals() {
  awk '
    function yn(ok) { return ok ? "yes" : "no" }
    { key = $1 " n=" $2 }
    $3 == "reverse" { rev[key] = $4; prim[key] = $5; peak[key] = $6; order[++n] = key; name[key] = $1 }
    $3 == "hand" { hand[key] = $4; hpeak[key] = $6 }
    $3 == "forward" { fwd[key] = $4 / $5 / ($1 == "ba" ? 15 : 1) }
    $3 == "jax" && $4 + 0 > 0 { jax[key] = $4 }
    $3 == "build" { build[$1] = $4 / $5 }
    END {
      worst = 0; gmm_ok = 1; jax_ok = 1; hand_worst = 0; mem_worst = 0; fwd_worst = 0; build_worst = 0
      for (i = 1; i <= n; i++) {
        k = order[i]; r = rev[k] / prim[k]; lg += log(r)
        if (r > worst) { worst = r; wk = k }
        if (name[k] ~ /^gmm/) {
          gl = gl sprintf("%s%.2fx", gl == "" ? "" : ", ", r); if (r > 2.5) gmm_ok = 0
          if (k in jax) { jl = jl sprintf("%s%.2f", jl == "" ? "" : ", ", rev[k] / jax[k]); if (rev[k] >= jax[k]) jax_ok = 0 }
        }
        if (k in hand) {
          h = rev[k] / hand[k]; hl = hl sprintf("%s%s %.2f", hl == "" ? "" : ", ", name[k], h)
          if (h > hand_worst) { hand_worst = h; hk = k }
          m = peak[k] / (hpeak[k] > 0 ? hpeak[k] : 1); if (m > mem_worst) { mem_worst = m; mk = k }
        }
        if ((k in fwd) && fwd[k] > fwd_worst) { fwd_worst = fwd[k]; fk = k }
      }
      for (b in build) if (build[b] > build_worst) { build_worst = build[b]; bk = b }
      g = exp(lg / n)
      print "| goal | measured | met |"
      print "|---|---|---|"
      printf "| gradient / primal at most 2.0 (geometric mean over the suite) | %.2fx | %s |\n", g, yn(g <= 2)
      printf "| no gradient over 3x the primal | worst: %s, %.2fx | %s |\n", wk, worst, yn(worst <= 3)
      printf "| GMM at most 2.5x at every size | %s | %s |\n", gl, yn(gmm_ok)
      printf "| GMM faster than JAX at every size (time over JAX'"'"'s) | %s | %s |\n", jl == "" ? "n/a" : jl, yn(jax_ok && jl != "")
      printf "| within 1.3x of the hand-written adjoint | %s | %s |\n", hl, yn(hand_worst <= 1.3)
      printf "| peak memory at most 2x the hand adjoint'"'"'s | worst: %s, %d MB against %d MB | %s |\n", mk, peak[mk], hpeak[mk], yn(mem_worst <= 2)
      printf "| enzyme-cc -O2 build at most 2x clang-22 -O2 | worst: %s, %.2fx | %s |\n", bk, build_worst, yn(build_worst <= 2)
      printf "| forward mode at most 1.5x the primal per direction | worst: %s, %.2fx | %s |\n", fk, fwd_worst, yn(fwd_worst <= 1.5)
    }' "$1"
}
count_instr=0
[ $smoke -eq 0 ] && [ "${BENCH_INSTR:-1}" != 0 ] && command -v valgrind >/dev/null && count_instr=1

# Peers: available or the reason they are not.
adolc=""
jax=""
if [ $smoke -eq 0 ]; then
  [ -f /usr/include/adolc/adolc.h ] || adolc="n/a (libadolc-dev not installed)"
  if ! "$VENV/bin/python" -c "import jax" 2>/dev/null; then
    echo "setting up JAX in $VENV (once)"
    if ! { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q jax; } >"$build/venv.log" 2>&1; then
      jax="n/a (pip install jax failed: see bench/build/venv.log)"
    fi
  fi
fi

for line in "${BENCHES[@]}"; do
  read -r name src flags nchk nrun reps peer <<<"$line"
  [[ "$name" =~ ${BENCH_ONLY:-.} ]] || continue
  cflags=()
  [ "$flags" != - ] && IFS=, read -r -a cflags <<<"$flags"
  bin=$build/$name
  if [ ! -x "$bin" ]; then
    "$CC" -O2 "${cflags[@]}" "$here/kernels/$src" -o "$bin" -lm || { fail "$name: build"; continue; }
    ENZYME_AD_BEFORE_OPT=1 "$CC" -O2 "${cflags[@]}" "$here/kernels/$src" -o "$bin.ablation" -lm ||
      { fail "$name: build with ENZYME_AD_BEFORE_OPT=1"; continue; }
    # The engine's speed levers, one switched off at a time (same derivatives).
    for lever in "${LEVERS[@]}"; do
      ENZYME_ABLATE=$lever "$CC" -O2 "${cflags[@]}" "$here/kernels/$src" -o "$bin.no-$lever" -lm ||
        { fail "$name: build with ENZYME_ABLATE=$lever"; continue 2; }
    done
    for b in "$bin" "$bin.ablation" "${LEVERS[@]/#/$bin.no-}"; do
      checked=$((checked + 1))
      if ! out=$("$b" check "$nchk"); then
        echo "$out"; fail "$name ($(basename "$b")): derivative check"; continue 2
      fi
    done
    echo "ok   $name: derivatives checked (and with AD before optimisation)"
    if [ $smoke -eq 0 ]; then
      ad_ms=$(ENZYME_TIME=1 "$CC" -O2 "${cflags[@]}" "$here/kernels/$src" -o "$bin.timed" -lm 2>&1 |
        awk '/ differentiate:/ {print $3}')
      inc=-I"$(dirname "$(command -v "$CC")")/../include"
      # Build times: the best of three of each (one build varies by tens of
      # milliseconds on this machine).
      best_of_3() {
        local best=999999 k t
        for k in 1 2 3; do
          t=$(ms)
          "$@" || return 1
          t=$(($(ms) - t))
          [ "$t" -lt "$best" ] && best=$t
        done
        echo "$best"
      }
      ours_ms=$(best_of_3 "$CC" -O2 "${cflags[@]}" "$here/kernels/$src" -o "$bin.timed" -lm)
      # Code generation on one thread (driver/src/split_codegen.rs's parts off).
      one_thread_ms=$(ENZYME_ABLATE=parallel-codegen best_of_3 "$CC" -O2 "${cflags[@]}" "$here/kernels/$src" \
        -o "$bin.timed" -lm)
      clang_c_ms=$(best_of_3 "$CLANG" -O2 "${cflags[@]}" -c "$here/kernels/$src" -o "$bin.clang.o" "$inc")
      # The same program compiled and linked by clang alone; the __enzyme_*
      # calls stay unresolved (it is never run).
      clang_ms=$(best_of_3 "$CLANG" -O2 "${cflags[@]}" "$here/kernels/$src" -o "$bin.clang" "$inc" -lm \
        -Wl,--unresolved-symbols=ignore-all)
      builds+=("| $name | $ours_ms | $one_thread_ms | ${ad_ms:-?} | $clang_ms | $clang_c_ms |")
      echo "$name - build $ours_ms $clang_ms -" >>"$build/facts"
    fi
  fi
  [ $smoke -eq 1 ] && continue

  label="$name n=$nrun"
  read -r _ _ _ tp mp < <(timed "$bin" primal "$nrun" "$reps")
  ip="" base=""
  if [ $count_instr -eq 1 ]; then
    base=$(instructions "$name" none "$nrun")
    ip=$(instructions "$name" primal "$nrun")
    ip=$((ip - base))
    read -r b_d b_l b_m b_o < <(profile "$name" none)
  fi
  ours+=("| $label | primal | $tp | 1 | 1 | $((mp / 1024)) |")
  declare -A t=()
  for mode in $("$bin" modes); do
    [ "$mode" = primal ] && continue
    read -r _ _ _ tm mm < <(timed "$bin" "$mode" "$nrun" "$reps")
    t[$mode]=$tm
    [ "$mode" = reverse ] && m_rev=$mm
    im=""
    if [ $count_instr -eq 1 ]; then
      im=$(($(instructions "$name" "$mode" "$nrun") - base))
      if [ "$mode" = reverse ]; then
        read -r d l m o < <(profile "$name" reverse)
        pct() { awk -v a="$1" -v b="$2" -v t="$im" 'BEGIN {printf "%.0f%%", 100 * (a - b) / t}'; }
        where+=("| $label | $(ratio "$im" "$ip")x | $(pct "$d" "$b_d") | $(pct "$l" "$b_l") | $(pct "$m" "$b_m") | $(pct "$o" "$b_o") | $(((mm - mp) / 1024)) |")
      fi
    fi
    ours+=("| | $mode | $tm | $(ratio "$tm" "$tp")x | $(ratio "$im" "$ip")x | $((mm / 1024)) |")
    echo "$name $nrun $mode $tm $tp $((mm / 1024))" >>"$build/facts"
  done
  read -r _ _ _ ta _ < <(timed "$bin.ablation" reverse "$nrun" "$reps")
  row="| $label | ${t[reverse]} ($((m_rev / 1024)) MB) | $ta ($(ratio "$ta" "${t[reverse]}")x) |"
  for lever in "${LEVERS[@]}"; do
    read -r _ _ _ tl ml < <(timed "$bin.no-$lever" reverse "$nrun" "$reps")
    row+=" $tl ($(ratio "$tl" "${t[reverse]}")x, $((ml / 1024)) MB) |"
  done
  ablation+=("$row")

  [ "$peer" = - ] && { unset t; continue; }
  # Peers: each checked against our reverse derivative, then timed.
  "$bin" dump "$nrun" >"$build/$name.ours.txt"
  a_reuse=$adolc a_retape=$adolc j_time=$jax
  if [ -z "$adolc" ]; then
    pbin=$build/adolc-$name
    if [ -x "$pbin" ] || "$CLANGXX" -O2 "${cflags[@]}" "$here/peers/adolc_$peer.cpp" -o "$pbin" -ladolc; then
      (cd "$build" && "$pbin" dump "$nrun" >"$build/$name.adolc.txt")
      if d=$(agrees "$build/$name.ours.txt" "$build/$name.adolc.txt"); then
        read -r _ _ _ a_reuse _ < <(cd "$build" && timed "$pbin" reuse "$nrun" "$reps")
        read -r _ _ _ a_retape _ < <(cd "$build" && timed "$pbin" retape "$nrun" "$reps")
      else
        fail "$name: ADOL-C's derivative differs from ours by $d"; a_reuse="differs" a_retape="differs"
      fi
    else
      a_reuse="build failed" a_retape="build failed"
    fi
  fi
  if [ -z "$jax" ]; then
    jargs=("$peer")
    [ "$peer" = gmm ] && jargs+=("${cflags[0]#-DGMM_D=}" "${cflags[1]#-DGMM_K=}")
    "$VENV/bin/python" "$here/peers/jax_peers.py" "${jargs[@]}" dump "$nrun" 1 >"$build/$name.jax.txt"
    if d=$(agrees "$build/$name.ours.txt" "$build/$name.jax.txt"); then
      read -r _ _ _ j_time _ < <("$VENV/bin/python" "$here/peers/jax_peers.py" "${jargs[@]}" time "$nrun" "$reps")
    else
      fail "$name: JAX's derivative differs from ours by $d"; j_time="differs"
    fi
  fi
  fastest=$(printf '%s\n' "$a_reuse" "$a_retape" "$j_time" | awk '$1 + 0 > 0 {if (m == "" || $1 < m) m = $1} END {print m}')
  peers+=("| $label | ${t[reverse]} | ${t[hand]:--} | $a_reuse | $a_retape | $j_time | ${fastest:-?} | $(ratio "${t[reverse]}" "$fastest")x |")
  echo "$name $nrun jax $j_time - -" >>"$build/facts"
  unset t
done

if [ $smoke -eq 1 ]; then
  # Vector mode's Jacobians: every width against width 1 and finite differences.
  checked=$((checked + 1))
  "$here/vector.sh" --check >/dev/null || fail "vector-mode Jacobians"
  checked=$((checked + 1))
  "$here/parallel.sh" --check >/dev/null || fail "OpenMP derivatives"
  checked=$((checked + 1))
  "$here/checkpoint.sh" --check >/dev/null || fail "checkpointed time loops"
  echo "benchmark checks: $((checked - failed)) passed, $failed failed"
  [ $failed -eq 0 ]
  exit
fi
# Build time against function size (the gradients are checked there too).
scaling=$("$here/scaling.sh") || fail "build-time scaling"
# Build time of every test program beside clang's (about 2.5 minutes).
test_builds=$("$here/test_builds.sh") || fail "test program builds"
# Rust edit-and-rebuild time through cargo enzyme (the template's test first).
relink=$("$here/rust_relink.sh") || fail "Rust relink"
# Vector mode: Jacobians by width.
vector=$("$here/vector.sh") || fail "vector-mode Jacobians"
# OpenMP and MPI: parallel stencils' derivatives at 1 and 2 threads and ranks.
parallel=$("$here/parallel.sh") || fail "OpenMP derivatives"
# Checkpointed time loops: a 10^4-step integration with and without.
checkpoint=$("$here/checkpoint.sh") || fail "checkpointed time loops"

{
  echo "# Benchmark results"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; every timed process pinned to core 0"
  echo "- compilers: $("$CC" --version | head -n 1); $("$CLANG" --version | head -n 1)"
  echo "- flags: enzyme-cc -O2 for our builds, clang++-22 -O2 for ADOL-C's ($(dpkg-query -W -f '${Version}' libadolc-dev 2>/dev/null || echo '?'))," \
    "JAX $("$VENV/bin/python" -c 'import jax; print(jax.__version__)' 2>/dev/null || echo '?') on CPU, float64, jit, one thread"
  echo "- times: best of repeated runs after a warm-up, in ms; instructions: callgrind, one run less the setup"
  echo
  echo "## Issue 15's goals in this run"
  echo
  goals "$build/facts"
  echo
  echo "Where the remaining time goes: the instruction profile and the ablation table below, and bench/README.md"
  echo "(\"Known gaps\"), which says per benchmark what is left and why."
  echo
  echo "## Our derivatives against the primal"
  echo
  echo "Modes: \`reverse\` is \`__enzyme_autodiff\` (a gradient, or for \`ba\` the whole sparse Jacobian, two reverse"
  echo "passes per observation); \`forward\` is \`__enzyme_fwddiff\`, one directional derivative (for \`ba\`, the whole"
  echo "Jacobian, 15 passes per observation); \`hand\` is a hand-written adjoint in C."
  echo
  echo "| benchmark | mode | ms | time / primal | instructions / primal | peak MB |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${ours[@]}"
  echo
  if [ ${#where[@]} -gt 0 ]; then
    echo "## Where reverse mode spends its instructions"
    echo
    echo "callgrind, one run less the setup's. Derivative code is ours: the kernel's \`reverse\` (never inlined, so the"
    echo "derivative inlined into it is counted here) and the \`diffe_*\` and \`augmented_*\` functions; libm is the elementary"
    echo "functions the primal and its partials call; memory is malloc, realloc (tapes growing), free, memcpy and memset"
    echo "(zeroing the adjoints too; valgrind counts each step of a \`rep movs\`/\`rep stos\` as an instruction, so this"
    echo "column overstates their time); other is the rest (the primal's own code, the harness)."
    echo "The last column is the peak memory over the primal's: mostly tape."
    echo
    echo "| benchmark | instructions / primal | derivative code | libm | memory | other | extra peak MB |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${where[@]}"
    echo
  fi
  echo "## Against the peers (gradient or Jacobian, ms)"
  echo
  echo "ADOL-C \"reused\" replays a tape recorded once (valid while control flow does not change); \"retaped\" records it"
  echo "for each evaluation, as new inputs require in general."
  echo
  echo "| benchmark | enzyme-rs | hand-written | ADOL-C reused | ADOL-C retaped | JAX | fastest peer | enzyme-rs / fastest peer |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${peers[@]}"
  echo
  echo "## Ablation: what each lever buys (reverse mode, ms)"
  echo
  echo "Each column switches one lever off: differentiating before optimising (\`ENZYME_AD_BEFORE_OPT=1\`), then"
  echo "the engine's (\`ENZYME_ABLATE=lever\`): \`tape-reuse\`, a tape starting at the capacity it reached in the last"
  echo "call and large tape buffers kept for the next call (not returned to the system and faulted in again), the shadows of"
  echo "large \`malloc\` blocks taken from them too;"
  echo "\`bounded-tapes\`, the tape of a loop whose iterations per call have a proven constant bound made once at the start,"
  echo "on the stack when small (no growth tests, no malloc); \`tape-scope\`, the tapes' records an alias scope of their own that"
  echo "every other access of a derivative is marked not to alias (so the optimiser moves tape reads out of inner loops"
  echo "past the adjoint stores there); \`store-forwarding\`, a load of a local array that an earlier loop filled computed"
  echo "again in the reverse sweep from what was stored (GMM's \`xc = x - mean\`) instead of taped; \`settled-slots\`, a load"
  echo "of a local array that no write can follow read again in the reverse sweep (GMM's \`exp(q)\` per component) instead"
  echo "of taped; \`exact-visits\`, the first instance of each entry of a loop whose iterations per entry follow from its"
  echo "bounds (an \`!=\` test, a step of one) computed in the reverse sweep instead of taped (GMM's triangular product);"
  echo "\`entry-tables\`, integer values of a loop that repeat from one entry to the next (GMM's running offset into the"
  echo "packed triangle, and which columns have rows below the diagonal) kept once per iteration number, not per instance;"
  echo "\`sum-steps\`, a loop that only adds to a sum reaching the result unscaled reversed an iteration at a time, right"
  echo "after the iteration (GMM's loop over points: nothing of it kept for the reverse sweep)."
  echo "In brackets: the time over the default's, and peak memory."
  echo
  echo "| benchmark | all levers (default) | AD before optimisation | without tape reuse | without bounded tapes | without the tape scope | without store forwarding | without settled slots | without exact visits | without entry tables | without sum steps |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${ablation[@]}"
  echo
  echo "## Build time (ms)"
  echo
  echo "Each the best of three builds. The second column: the same with code generation on one thread"
  echo "(\`ENZYME_ABLATE=parallel-codegen\`; by default a module of over 2,000 instructions is compiled in parts"
  echo "on up to 4 threads)."
  echo
  echo "| benchmark | enzyme-cc -O2 (compile, link, AD) | the same, code generation on one thread | AD pass alone | clang-22 -O2 (compile, link) | clang-22 -O2 -c |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${builds[@]}"
  echo
  echo "$scaling"
  echo
  echo "$test_builds"
  echo
  echo "$relink"
  echo
  echo "$vector"
  echo
  echo "$parallel"
  echo
  echo "$checkpoint"
  echo
  echo "Every derivative was checked before it was timed: ours against central finite differences, forward against"
  echo "reverse, hand-written against ours, the peers against ours number by number (relative 1e-8)."
  echo "clang alone links the program with the \`__enzyme_*\` calls left unresolved (it cannot run); it shows the cost of"
  echo "an ordinary build of the same source."
} >"$here/results/latest.md"
cat "$here/results/latest.md"
[ $failed -eq 0 ]
