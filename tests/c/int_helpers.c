/* Calls to integer-only helpers of the program (pure, not inlined at -O0)
 * inside differentiated code, and a variadic-free mix of int and float work. */
#include "check.h"

static int clampi(int k, int lo, int hi) { return k < lo ? lo : (k > hi ? hi : k); }
static int degree(int n) { return clampi(n * 2 - 1, 1, 5); }

static double f(double x, int n) {
  int d = degree(n);
  double r = 1.0;
  switch (d) {
  case 1: r = x; break;
  case 3: r = x * x * x; break;
  default: r = x * x * x * x * x; break;
  }
  return r + (double)clampi(n, 0, 9) * x;
}

int main(void) {
  double x = 1.4;
  int ns[] = {0, 1, 2, 3, 7};
  double want[] = {1.0, 1.0 + 1.0, 3 * x * x + 2.0, 5 * pow(x, 4) + 3.0, 5 * pow(x, 4) + 7.0};
  for (int i = 0; i < 5; i++) {
    double r = __enzyme_autodiff((void *)f, x, ns[i]);
    double t = __enzyme_fwddiff((void *)f, x, 1.0, ns[i]);
    double h = 1e-6, fd = (f(x + h, ns[i]) - f(x - h, ns[i])) / (2 * h);
    CHECK("reverse vs analytic", r, want[i], TOL_EXACT);
    CHECK("forward vs reverse", t, r, TOL_MODES);
    CHECK("finite difference vs analytic", fd, want[i], TOL_FD);
  }
  return CHECK_DONE();
}
