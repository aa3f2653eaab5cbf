/* A 1-D finite-volume Burgers solver with a minmod-limited reconstruction
 * (fmin, fmax, fabs, branches), periodic boundaries, state copied and
 * updated in place over many steps: d(final state)/d(initial state). */
#include <string.h>
#include "jacobian.h"

#define NC 12
#define STEPS 60

static double minmod(double a, double b) {
  if (a * b <= 0) return 0;
  return fabs(a) < fabs(b) ? a : b;
}

static double flux(double ul, double ur) { /* Rusanov flux for f(u) = u^2 / 2 */
  double s = fmax(fabs(ul), fabs(ur));
  return 0.25 * (ul * ul + ur * ur) - 0.5 * s * (ur - ul);
}

static void burgers(const double *x, double *y) {
  double u[NC], un[NC], f[NC + 1];
  const double dt = 0.02, dx = 0.1;
  memcpy(u, x, sizeof u);
  for (int n = 0; n < STEPS; n++) {
    for (int i = 0; i <= NC; i++) {
      int l = (i - 1 + NC) % NC, r = i % NC;
      int ll = (l - 1 + NC) % NC, rr = (r + 1) % NC;
      double ul = u[l] + 0.5 * minmod(u[l] - u[ll], u[r] - u[l]);
      double ur = u[r] - 0.5 * minmod(u[r] - u[l], u[rr] - u[r]);
      f[i] = flux(ul, ur);
    }
    for (int i = 0; i < NC; i++) un[i] = u[i] - dt / dx * (f[i + 1] - f[i]);
    memcpy(u, un, sizeof u);
  }
  y[0] = u[3];
  y[1] = u[7];
  y[2] = u[0] * u[NC - 1];
}

int main(void) {
  CHECK_JACOBIAN(burgers, NC, 3, 0.5, 0.8, 1.2, 1.0, 0.6, 0.4, 0.3, 0.45, 0.7, 0.9, 0.65, 0.55);
  return CHECK_DONE();
}
