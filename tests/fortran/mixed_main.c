/* C calling Fortran: a C objective over the Fortran kernels (bind(C)),
 * differentiated in one module across both languages. */
#include "jacobian.h"

double wave(double x);
void norm(int n, const double *x, double *r);
void relax(int n, double *u);

/* y0 = norm(relax(x)) * wave(x0), y1 = relax(x)[2] */
static void objective(const double *x, double *y) {
  double u[5], r;
  for (int i = 0; i < 5; i++) u[i] = x[i];
  relax(5, u);
  norm(5, u, &r);
  y[0] = r * wave(x[0]);
  y[1] = u[2];
}

int main(void) {
  CHECK_JACOBIAN(objective, 5, 2, 0.5, -1.0, 2.0, 0.25, 1.5);
  return CHECK_DONE();
}
