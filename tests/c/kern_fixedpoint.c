/* Fixed-point iteration until convergence (x = cos(a x), a do-while with a
 * tolerance test and an iteration cap), compared with the implicit-function
 * derivative. */
#include "check.h"

static double fixed_point(double a) {
  double x = 0.5, prev;
  int it = 0;
  do {
    prev = x;
    x = cos(a * x);
  } while (fabs(x - prev) > 1e-15 && ++it < 500);
  return x;
}

int main(void) {
  double a = 0.8;
  double x = fixed_point(a);
  /* x = cos(a x) => dx/da = -sin(a x) x / (1 + a sin(a x)) */
  double want = -sin(a * x) * x / (1 + a * sin(a * x));
  CHECK_UNARY(fixed_point, a, want);
  return CHECK_DONE();
}
