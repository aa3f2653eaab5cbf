/* switch statements choosing among formulas, with an integer parameter. */
#include "check.h"

static double pick(double x, int k) {
  double r;
  switch (k) {
  case 0:
    r = x * x;
    break;
  case 1:
  case 2:
    r = exp(x);
    break;
  case 7:
    return log(x);
  default:
    r = 5.0 * x;
  }
  return r + x;
}

int main(void) {
  double x = 0.8;
  double want[] = {2 * x + 1, exp(x) + 1, exp(x) + 1, 6.0, 1.0 / x};
  int ks[] = {0, 1, 2, 3, 7};
  for (int i = 0; i < 5; i++) {
    double r = __enzyme_autodiff((void *)pick, x, ks[i]);
    double t = __enzyme_fwddiff((void *)pick, x, 1.0, ks[i]);
    double h = 1e-6;
    double fd = (pick(x + h, ks[i]) - pick(x - h, ks[i])) / (2 * h);
    CHECK("pick reverse", r, want[i], TOL_EXACT);
    CHECK("pick forward vs reverse", t, r, TOL_MODES);
    CHECK("pick finite difference", fd, want[i], TOL_FD);
  }
  return CHECK_DONE();
}
