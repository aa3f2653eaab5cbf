/* 1-D and 2-D stencils over many sweeps (Jacobi smoothing in place,
 * alternating buffers), and a long reduction. */
#include "jacobian.h"

#define N1 8
static void smooth1d(const double *x, double *y) {
  double u[N1], v[N1];
  for (int i = 0; i < N1; i++) u[i] = x[i];
  for (int sweep = 0; sweep < 50; sweep++) {
    v[0] = u[0];
    v[N1 - 1] = u[N1 - 1];
    for (int i = 1; i < N1 - 1; i++) v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1] + 0.01 * u[i] * u[i];
    for (int i = 0; i < N1; i++) u[i] = v[i];
  }
  for (int i = 0; i < N1; i++) y[i] = u[i];
}

#define N2 5
static void heat2d(const double *x, double *y) {
  double u[N2][N2];
  for (int i = 0; i < N2; i++)
    for (int j = 0; j < N2; j++) u[i][j] = x[i * N2 + j];
  for (int sweep = 0; sweep < 20; sweep++)
    for (int i = 1; i < N2 - 1; i++)
      for (int j = 1; j < N2 - 1; j++) /* Gauss-Seidel: in place */
        u[i][j] = 0.2 * (u[i][j] + u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
  y[0] = u[N2 / 2][N2 / 2];
  y[1] = u[1][1] * u[1][2];
}

static double sum_sin_times(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += sin(x[i]) * x[i];
  return s;
}

int main(void) {
  CHECK_JACOBIAN(smooth1d, N1, N1, 1, 2, 0.5, -1, 3, 0.25, 2, 1);
  CHECK_JACOBIAN(heat2d, 25, 2, 1, 2, 3, 4, 5, 0, 1, 0, 1, 0, 2, 2, 2, 2, 2, 1, 0, 1, 0, 1, 5, 4, 3, 2, 1);
  enum { M = 100000 };
  static double x[M], dx[M];
  for (int i = 0; i < M; i++) x[i] = 0.001 * i - 3.0;
  __enzyme_autodiff((void *)sum_sin_times, enzyme_dup, x, dx, M);
  int bad = 0;
  for (int i = 0; i < M; i++) bad += !close_enough(dx[i], cos(x[i]) * x[i] + sin(x[i]), TOL_EXACT);
  CHECK("long reduction: entries off", bad, 0, 0);
  return CHECK_DONE();
}
