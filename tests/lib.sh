# Shared by the test scripts: counting and reporting results.
# Source it after setting `build` (the script's output directory); it
# empties that directory.
rm -rf "$build" && mkdir -p "$build"
passed=0
failed=0

# report NAME EXIT-CODE: one "ok"/"FAIL" line, counted.
report() {
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1"; fi
}
