/* Repeated matrix products in place (A^5 of a 2x2 matrix), a switch inside a
 * loop, and a do-while counting down. */
#include "jacobian.h"

static void matpow(const double *a, double *r) {
  double m[4] = {1, 0, 0, 1};
  for (int k = 0; k < 5; k++) {
    double t[4];
    t[0] = m[0] * a[0] + m[1] * a[2];
    t[1] = m[0] * a[1] + m[1] * a[3];
    t[2] = m[2] * a[0] + m[3] * a[2];
    t[3] = m[2] * a[1] + m[3] * a[3];
    for (int i = 0; i < 4; i++) m[i] = t[i];
  }
  for (int i = 0; i < 4; i++) r[i] = m[i];
}

static void per_element_ops(const double *x, double *y) {
  for (int i = 0; i < 6; i++) {
    switch (i % 3) {
    case 0: y[i] = sin(x[i]); break;
    case 1: y[i] = x[i] * x[i - 1]; break;
    default: y[i] = exp(x[i] / 2); break;
    }
  }
}

static void countdown(const double *x, double *y) {
  int k = 5;
  double s = 1;
  do {
    s = s * x[0] + x[1];
  } while (--k > 0);
  y[0] = s;
}

int main(void) {
  CHECK_JACOBIAN(matpow, 4, 4, 0.9, 0.2, -0.3, 1.1);
  CHECK_JACOBIAN(per_element_ops, 6, 6, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6);
  CHECK_JACOBIAN(countdown, 2, 1, 0.9, 0.3);
  return CHECK_DONE();
}
