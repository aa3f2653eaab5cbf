# Sums a `callgrind_annotate` listing by kind of code, for bench/run.sh:
# prints "derivative libm memory other" instruction counts.
/^ *[0-9,]+ +\(/ {
  n = $1
  gsub(/,/, "", n)
  f = $0
  if (f ~ /diffe_|augmented_|enzyme_rs\.|:reverse /) d += n
  else if (f ~ /libm|\/math\/|e_exp|e_log|s_sin|s_tan/) l += n
  else if (f ~ /malloc|realloc|free|memcpy|memmove|memset|_int_|cfree/) m += n
  else if (f !~ /PROGRAM TOTALS/) o += n
}
END { printf "%d %d %d %d\n", d, l, m, o }
