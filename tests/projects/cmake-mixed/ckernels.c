/* The C part: a damped sum that calls the Fortran kernel `wave`. */
#include <math.h>

double wave(double x);

double damped(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += wave(x[i]) * exp(-0.1 * i);
  return s;
}
