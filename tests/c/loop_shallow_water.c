/* 1-D shallow water equations (Lax-Friedrichs) on 12 cells over 200 steps,
 * two state arrays swapped by pointer each step, reflecting walls; the
 * output is the final height field's energy and two probes. */
#include "jacobian.h"

enum { CELLS = 12, STEPS = 200 };
static const double G = 9.81, DT = 0.002, DX = 0.1;

static void flux(double h, double hu, double *fh, double *fhu) {
  double u = hu / h;
  *fh = hu;
  *fhu = hu * u + 0.5 * G * h * h;
}

/* x[0..CELLS-1]: initial height perturbation; the velocity starts at rest. */
static void swe(const double *x, double *y) {
  double a[2][CELLS + 2], b[2][CELLS + 2];
  double(*cur)[CELLS + 2] = a, (*next)[CELLS + 2] = b;
  for (int i = 1; i <= CELLS; i++) {
    cur[0][i] = 1.0 + 0.1 * x[i - 1];
    cur[1][i] = 0;
  }
  for (int s = 0; s < STEPS; s++) {
    /* reflecting walls: ghost cells mirror the velocity */
    cur[0][0] = cur[0][1];
    cur[1][0] = -cur[1][1];
    cur[0][CELLS + 1] = cur[0][CELLS];
    cur[1][CELLS + 1] = -cur[1][CELLS];
    for (int i = 1; i <= CELLS; i++) {
      double fl[2], fr[2];
      flux(cur[0][i - 1], cur[1][i - 1], &fl[0], &fl[1]);
      flux(cur[0][i + 1], cur[1][i + 1], &fr[0], &fr[1]);
      for (int k = 0; k < 2; k++)
        next[k][i] = 0.5 * (cur[k][i - 1] + cur[k][i + 1]) - 0.5 * DT / DX * (fr[k] - fl[k]);
    }
    double(*t)[CELLS + 2] = cur;
    cur = next;
    next = t;
  }
  double e = 0;
  for (int i = 1; i <= CELLS; i++) e += 0.5 * G * cur[0][i] * cur[0][i] + 0.5 * cur[1][i] * cur[1][i] / cur[0][i];
  y[0] = e;
  y[1] = cur[0][3];
  y[2] = cur[1][8];
}

int main(void) {
  CHECK_JACOBIAN(swe, CELLS, 3, 0.5, -0.2, 0.8, 0.1, -0.6, 0.3, 0.9, -0.4, 0.2, 0.7, -0.1, 0.4);
  return CHECK_DONE();
}
