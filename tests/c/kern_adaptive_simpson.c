/* Adaptive Simpson quadrature: recursion (depth-limited) on scalars with
 * the integrand passed as a function pointer known at the call. */
#include "check.h"

typedef double (*integrand)(double x, double p);

static double simpson(integrand f, double a, double b, double p) {
  double m = 0.5 * (a + b);
  return (b - a) / 6 * (f(a, p) + 4 * f(m, p) + f(b, p));
}

static double adapt(integrand f, double a, double b, double p, double whole, int depth) {
  double m = 0.5 * (a + b);
  double l = simpson(f, a, m, p), r = simpson(f, m, b, p);
  if (depth == 0 || fabs(l + r - whole) < 1e-10) return l + r;
  return adapt(f, a, m, p, l, depth - 1) + adapt(f, m, b, p, r, depth - 1);
}

static double bump(double x, double p) { return exp(-p * x * x) * cos(x); }

static double integral(integrand f, double p) { return adapt(f, -1.0, 1.0, p, simpson(f, -1.0, 1.0, p), 6); }

int main(void) {
  double p = 0.7;
  double d = __enzyme_autodiff((void *)integral, bump, p);
  double h = 1e-5;
  double fd = (integral(bump, p + h) - integral(bump, p - h)) / (2 * h);
  CHECK("d/dp of the integral vs finite difference", d, fd, 1e-6);
  CHECK("forward vs reverse", __enzyme_fwddiff((void *)integral, bump, p, 1.0), d, TOL_MODES);
  return CHECK_DONE();
}
