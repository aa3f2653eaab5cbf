/* Copies inside loops: a row copied into a work buffer on every outer
 * iteration (shadow addresses per iteration), float rows, and a rolling
 * history buffer shifted with memmove each step. */
#include <string.h>
#include "jacobian.h"

static void row_norms(const double *x, double *y) {
  double work[3];
  for (int r = 0; r < 3; r++) {
    memcpy(work, x + 3 * r, sizeof work);
    double s = 0;
    for (int k = 0; k < 3; k++) s += work[k] * work[k] * (k + 1);
    y[r] = sqrt(s);
  }
}

static void float_rows(const double *x, double *y) {
  float in[4], out[4];
  for (int i = 0; i < 4; i++) in[i] = (float)x[i];
  for (int step = 0; step < 3; step++) {
    memcpy(out, in, sizeof in);
    for (int i = 0; i < 4; i++) in[i] = out[i] * 0.5f + out[(i + 1) % 4] * out[i];
  }
  for (int i = 0; i < 4; i++) y[i] = in[i];
}

static void history(const double *x, double *y) {
  double h[4] = {0, 0, 0, 0};
  double s = 0;
  for (int t = 0; t < 6; t++) {
    memmove(h + 1, h, 3 * sizeof(double)); /* shift the history by one */
    h[0] = x[t % 3] * (t + 1);
    s += h[0] * h[3] + h[1];
  }
  y[0] = s;
}

int main(void) {
  CHECK_JACOBIAN(row_norms, 9, 3, 1, 2, 3, 0.5, -1, 0.25, 2, 0.75, -0.5);
  /* float arithmetic inside: compare with a float-sized tolerance */
  {
    double x0[4] = {0.5, -0.25, 0.75, 0.125}, x[4], y[4], dx[4], dy[4];
    for (int j = 0; j < 4; j++) {
      for (int k = 0; k < 4; k++) x[k] = x0[k], dx[k] = 0, dy[k] = k == j;
      __enzyme_autodiff_v((void *)float_rows, enzyme_dup, x, dx, enzyme_dup, y, dy);
      for (int i = 0; i < 4; i++) {
        double h = 1e-3, xp[4], xm[4], yp[4], ym[4];
        for (int k = 0; k < 4; k++) xp[k] = xm[k] = x0[k];
        xp[i] += h;
        xm[i] -= h;
        float_rows(xp, yp);
        float_rows(xm, ym);
        CHECK("float rows reverse vs finite difference", dx[i], (yp[j] - ym[j]) / (2 * h), 2e-3);
      }
    }
  }
  CHECK_JACOBIAN(history, 3, 1, 0.5, -1.5, 2.0);
  return CHECK_DONE();
}
