/* Trip counts that vary: inner loops running zero times for some outer
 * iterations, steps other than one, counting down, starts from variables,
 * and a loop entered zero times altogether. */
#include "jacobian.h"

static int base = 2;

static void strict_triangle(const double *x, double *y) {
  double s = 0;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < i; j++) /* zero iterations when i == 0 */
      s += x[i] * x[j] * (j + 1);
  y[0] = s;
}

static void strides(const double *x, double *y) {
  double s = 0, t = 0;
  for (int i = base; i < 9; i += 3) s += x[i % 5] * i;       /* step 3 from a variable start */
  for (int i = 8; i >= 0; i -= 2) t = t * 0.5 + x[i / 2] * i; /* counting down by 2 */
  y[0] = s;
  y[1] = t;
}

static void maybe_empty(const double *x, double *y) {
  double s = x[0];
  for (int i = 0; i < base - 2; i++) s *= x[1]; /* base - 2 may be zero */
  for (int i = 0; i < 3; i++) {
    int n = (i * base) % 3;                       /* 0, 2, 1 or so: some empty */
    for (int k = 0; k < n; k++) s += x[2 + k] * s;
  }
  y[0] = s;
}

int main(void) {
  CHECK_JACOBIAN(strict_triangle, 5, 1, 0.5, -1, 2, 0.25, 1.5);
  for (base = 0; base < 4; base++) {
    CHECK_JACOBIAN(strides, 5, 2, 0.5, -1, 2, 0.25, 1.5);
    CHECK_JACOBIAN(maybe_empty, 5, 1, 0.9, 1.1, 0.3, -0.2, 0.4);
  }
  return CHECK_DONE();
}
