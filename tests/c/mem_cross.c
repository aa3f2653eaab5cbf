/* Arrays through pointers: the cross product (3 -> 3), the inverse of a
 * 2x2 matrix (4 -> 4) and polar coordinates written in place (2 -> 2). */
#include "jacobian.h"

static void cross(const double *x, double *y) {
  const double *a = x, *b = x + 3;
  y[0] = a[1] * b[2] - a[2] * b[1];
  y[1] = a[2] * b[0] - a[0] * b[2];
  y[2] = a[0] * b[1] - a[1] * b[0];
}

static void inverse2(const double *m, double *inv) {
  double det = m[0] * m[3] - m[1] * m[2];
  inv[0] = m[3] / det;
  inv[1] = -m[1] / det;
  inv[2] = -m[2] / det;
  inv[3] = m[0] / det;
}

static void polar(const double *x, double *y) {
  y[0] = x[0];
  y[1] = x[1];
  double r = y[0], t = y[1]; /* read back what was just written */
  y[0] = r * cos(t);          /* and overwrite it */
  y[1] = r * sin(t);
}

int main(void) {
  CHECK_JACOBIAN(cross, 6, 3, 1.0, 2.0, 3.0, -1.0, 0.5, 2.0);
  CHECK_JACOBIAN(inverse2, 4, 4, 2.0, 0.5, -1.0, 3.0);
  CHECK_JACOBIAN(polar, 2, 2, 1.5, 0.7);
  return CHECK_DONE();
}
