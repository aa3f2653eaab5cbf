/* enzyme-rs mixed template: C calls a Fortran kernel; the gradient goes
 * through both languages, checked against finite differences. `make test`. */
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>

void smooth_energy(int n, const double *x, double *e);

static double objective(const double *x, int n) {
  double e;
  smooth_energy(n, x, &e);
  return e * e;
}

int main(void) {
  enum { N = 5 };
  double x[N] = {0.1, 0.5, -0.3, 0.9, 0.2}, dx[N] = {0};
  __enzyme_autodiff((void *)objective, enzyme_dup, x, dx, enzyme_const, N);
  double worst = 0;
  for (int i = 0; i < N; i++) {
    double xp[N], xm[N];
    for (int k = 0; k < N; k++) xp[k] = xm[k] = x[k];
    xp[i] += 1e-6;
    xm[i] -= 1e-6;
    double fd = (objective(xp, N) - objective(xm, N)) / 2e-6;
    printf("d/dx[%d]: %.10f (finite difference %.10f)\n", i, dx[i], fd);
    worst = fmax(worst, fabs(dx[i] - fd));
  }
  printf("largest difference: %.1e -> %s\n", worst, worst < 1e-6 ? "OK" : "MISMATCH");
  return worst < 1e-6 ? 0 : 1;
}
