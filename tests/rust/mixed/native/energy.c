/* The C part: the energy of a chain of particles, through the Fortran pair
 * potential, plus a soft confinement. */
#include <math.h>

double pair(double r);

double chain_energy(const double *x, int n) {
  double e = 0;
  for (int i = 1; i < n; i++) e += pair(fabs(x[i] - x[i - 1]));
  for (int i = 0; i < n; i++) e += 0.01 * x[i] * x[i];
  return e;
}
