/* Copies the optimiser turns into integer loads and stores (a small memcpy
 * becomes `load i64` / `store i64`, a small memset `store i64 0`): run-time
 * sizes including 0, copies under `if`, in loops and in small helpers,
 * overlapping shifts by one element, a local scalar copied into an output
 * slot, a constant copied over an output. Every Jacobian is checked in both
 * modes against finite differences. */
#include <string.h>
#include "jacobian.h"

static void copy(double *d, const double *s, int n) {
  if (n > 0)
    memcpy(d, s, n * sizeof(double));
}

/* The smallest case: a local scalar copied into an output slot under an `if`. */
static void scalar_into_slot(const double *x, double *y) {
  double l = x[0] * x[0];
  copy(y, &l, 1);
  double m = x[1] * x[0];
  copy(y + 1, &m, 0); /* size 0: y[1] keeps what the caller had */
  y[1] = m + y[1] * 0.0;
}

/* memcpy(&out[j], &l, sizeof l) in a loop. */
static void slots_in_loop(const double *x, double *y) {
  for (int j = 0; j < 3; j++) {
    double l = sin(x[j]) * x[(j + 1) % 3];
    memcpy(&y[j], &l, sizeof l);
  }
}

/* Overlapping shift by one element, with a run-time size. */
static int count = 3;
static void shift_by_one(const double *x, double *y) {
  double t[4];
  for (int j = 0; j < 4; j++) t[j] = x[j] * (j + 1);
  memmove(t + 1, t, count * sizeof(double));
  for (int j = 0; j < 4; j++) y[j] = t[j] * t[j];
}

/* A constant copied over an output slot: its derivative is zero there. */
static const double konst = 2.5;
static void constant_over_output(const double *x, double *y) {
  y[0] = x[0] * x[1];
  y[1] = x[1];
  memcpy(&y[1], &konst, sizeof konst);
  y[2] = exp(x[0]);
  memset(&y[2], 0, sizeof(double)); /* zero bytes over a double */
}

/* Copies chosen at run time, through a helper, inside a loop. */
static void copies_under_branches(const double *x, double *y) {
  double buf[3];
  for (int j = 0; j < 3; j++) {
    double v = x[j] * x[j] * (j + 1);
    if (x[j] > 0.5)
      copy(&buf[j], &v, 1);
    else
      memcpy(&buf[j], &x[j], sizeof(double));
  }
  for (int j = 0; j < 3; j++) copy(&y[j], &buf[2 - j], 1);
}

int main(void) {
  CHECK_JACOBIAN(scalar_into_slot, 2, 2, 3.0, 0.5);
  CHECK_JACOBIAN(slots_in_loop, 3, 3, 0.3, 1.2, -0.7);
  CHECK_JACOBIAN(shift_by_one, 4, 4, 0.3, 1.2, -0.7, 2.0);
  CHECK_JACOBIAN(constant_over_output, 2, 3, 0.3, 1.2);
  CHECK_JACOBIAN(copies_under_branches, 3, 3, 0.3, 1.2, -0.7);
  CHECK_JACOBIAN(copies_under_branches, 3, 3, 0.9, 0.2, 0.7);
  count = 0;
  CHECK_JACOBIAN(shift_by_one, 4, 4, 0.3, 1.2, -0.7, 2.0);
  return CHECK_DONE();
}
