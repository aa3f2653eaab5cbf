// expect: `enzymeLogError` has another type than the one Enzyme calls it with
// expect: declare it `void enzymeLogError(const char *id, double err)`
// expect: error_estimate_log.c:15
/* Enzyme calls a program's `enzymeLogError(id, err)` with each operation's
 * error; one of another type would be called wrongly. */
#include <stdio.h>
double __enzyme_error_estimate(void *, ...);
void enzymeLogError(double err) { printf("%g\n", err); }
double f(double x) { return x * x; }

int main(void) {
  double e;
  enzymeLogError(0);
  e =
      __enzyme_error_estimate((void *)f, 3.0, 0.0);
  return e > 0;
}
