/* Gradient of an energy defined in a static library, checked against the
 * analytic force and a central finite difference. */
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>
#include "physics.h"

typedef struct {
  double dx, dtheta;
} grad;
grad __enzyme_autodiff_grad(void *, ...);

int main(void) {
  double x = 0.12, th = 0.4;
  grad g = __enzyme_autodiff_grad((void *)total_energy, x, th);
  double fx = __enzyme_fwddiff((void *)total_energy, x, 1.0, th, 0.0);
  double want_dx = 40.0 * x, want_dth = 9.81 * 2.0 * 0.8 * sin(th);
  double h = 1e-6;
  double fd_dth = (total_energy(x, th + h) - total_energy(x, th - h)) / (2 * h);
  int ok = fabs(g.dx - want_dx) < 1e-12 && fabs(g.dtheta - want_dth) < 1e-12 && fabs(fx - g.dx) < 1e-12 &&
           fabs(fd_dth - want_dth) < 1e-6;
  printf("dE/dx = %.12f (want %.12f), dE/dtheta = %.12f (want %.12f): %s\n", g.dx, want_dx, g.dtheta, want_dth,
         ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
