/* The Thomas algorithm for a tridiagonal system (an implicit heat step),
 * forward elimination and back substitution in place, repeated. */
#include "jacobian.h"

#define N 6
static void implicit_steps(const double *x, double *y) {
  double u[N], c[N], d[N];
  for (int i = 0; i < N; i++) u[i] = x[i];
  const double r = 0.4;
  for (int step = 0; step < 3; step++) {
    /* (1 + 2r) u_i - r u_{i-1} - r u_{i+1} = u_i(old) */
    c[0] = -r / (1 + 2 * r);
    d[0] = u[0] / (1 + 2 * r);
    for (int i = 1; i < N; i++) {
      double m = (1 + 2 * r) + r * c[i - 1];
      c[i] = -r / m;
      d[i] = (u[i] + r * d[i - 1]) / m;
    }
    u[N - 1] = d[N - 1];
    for (int i = N - 2; i >= 0; i--) u[i] = d[i] - c[i] * u[i + 1];
  }
  for (int i = 0; i < N; i++) y[i] = u[i] * u[i];
}

int main(void) {
  CHECK_JACOBIAN(implicit_steps, N, N, 1, 0.5, 2, 1.5, 0.25, 0.75);
  return CHECK_DONE();
}
