// expect: the program defines `enzymeLogError`, Enzyme's per-operation error log: not supported, it would never be called
// expect: error_estimate_log.c:14
/* Enzyme calls a program's `enzymeLogError` with each operation's error;
 * ignoring it would leave the program printing nothing. */
#include <stdio.h>
double __enzyme_error_estimate(void *, ...);
void enzymeLogError(const char *id, double err) { printf("%s %g\n", id, err); }
double f(double x) { return x * x; }

int main(void) {
  double e;
  enzymeLogError("start", 0);
  e =
      __enzyme_error_estimate((void *)f, 3.0, 0.0);
  return e > 0;
}
