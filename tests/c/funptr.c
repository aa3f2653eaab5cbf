/* Calls through function pointers whose target is known at the
 * `__enzyme_*` call: an integrator taking its right-hand side, and a
 * quadrature rule taking its integrand. */
#include "jacobian.h"

typedef double (*field)(double t, double y);

static double decay(double t, double y) { return -0.5 * y + sin(t); }

static double euler(field f, double y0, int steps) {
  double y = y0, t = 0, h = 0.01;
  for (int k = 0; k < steps; k++) {
    y += h * f(t, y);
    t += h;
  }
  return y;
}

static double simpson(double (*g)(double, double), double a, double b, double p) {
  int n = 20;
  double h = (b - a) / n, s = g(a, p) + g(b, p);
  for (int i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * g(a + i * h, p);
  return s * h / 3;
}

static double gauss_bump(double x, double p) { return exp(-p * x * x); }

int main(void) {
  /* d y(T) / d y0 for the linear ODE is exp(-0.5 T) exactly in the limit; Euler gives (1 - 0.5 h)^steps */
  double d = __enzyme_autodiff((void *)euler, decay, 1.5, 200);
  CHECK("euler d y / d y0", d, pow(1 - 0.5 * 0.01, 200), TOL_EXACT);
  double t = __enzyme_fwddiff((void *)euler, decay, 1.5, 1.0, 200);
  CHECK("euler forward vs reverse", t, d, TOL_MODES);
  /* d/dp of the integral, and by finite differences */
  double dp = __enzyme_autodiff((void *)simpson, gauss_bump, enzyme_const, -1.0, enzyme_const, 1.0, 0.8);
  double h = 1e-6;
  double fd = (simpson(gauss_bump, -1, 1, 0.8 + h) - simpson(gauss_bump, -1, 1, 0.8 - h)) / (2 * h);
  CHECK("quadrature d/dp vs finite difference", dp, fd, TOL_FD);
  double tp = __enzyme_fwddiff((void *)simpson, gauss_bump, enzyme_const, -1.0, enzyme_const, 1.0, 0.8, 1.0);
  CHECK("quadrature forward vs reverse", tp, dp, TOL_MODES);
  return CHECK_DONE();
}
