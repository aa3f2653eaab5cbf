/* A recursive function (no loops): x^n by repeated squaring. */
#include "check.h"

static double ipow(double x, int n) {
  if (n == 0)
    return 1.0;
  if (n % 2 == 0) {
    double h = ipow(x, n / 2);
    return h * h;
  }
  return x * ipow(x, n - 1);
}

static double p7(double x) { return ipow(x, 7); }

int main(void) {
  double x = 1.1;
  CHECK_UNARY(p7, x, 7 * pow(x, 6));
  for (int n = 0; n < 6; n++) {
    double r = __enzyme_autodiff((void *)ipow, x, n);
    double t = __enzyme_fwddiff((void *)ipow, enzyme_dup, x, 1.0, enzyme_const, n);
    double want = n == 0 ? 0.0 : n * pow(x, n - 1);
    CHECK("ipow reverse", r, want, TOL_EXACT);
    CHECK("ipow forward vs reverse", t, r, TOL_MODES);
  }
  return CHECK_DONE();
}
