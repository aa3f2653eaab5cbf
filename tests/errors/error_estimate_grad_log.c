// expect: the program defines `enzymeLogGrad`, an Enzyme log that error estimates do not call
// expect: error_estimate_grad_log.c:13
/* Enzyme calls `enzymeLogGrad` in reverse mode only: a program that defines
 * it beside an error estimate expects calls that never come. */
#include <stdio.h>
double __enzyme_error_estimate(void *, ...);
void enzymeLogGrad(const char *id, double grad) { printf("%s %g\n", id, grad); }
double f(double x) { return x * x; }

int main(void) {
  double e;
  enzymeLogGrad("start", 0);
  e = __enzyme_error_estimate((void *)f, 3.0, 0.0);
  return e > 0;
}
