// expect: `uses_rec` makes a call of `power_rec` that stays a call (recursion): not supported in split forward mode (`__enzyme_fwdsplit`) yet
// expect: fwdsplit_recursion.c:16
/* The tangent sweep replays the function's own code from its tape; a
 * recursive call would need the callee's tangent sweep too. */
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_fwdsplit(void *, ...);
__attribute__((noinline)) double power_rec(double x, int n) { return n == 0 ? 1.0 : x * power_rec(x, n - 1); }
__attribute__((noinline)) double uses_rec(double x) { return power_rec(x, 5) + x; }

int main(void) {
  void *tape = __enzyme_augmentfwd((void *)uses_rec, 3.0);
  // (lines of their own, so the location below is the call's)
  double d =
      0.0 +
      0.0 +
      __enzyme_fwdsplit((void *)uses_rec, 3.0, 1.0, tape);
  return d > 0;
}
