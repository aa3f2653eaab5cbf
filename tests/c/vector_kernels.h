/* Functions both vector-mode tests differentiate (tests/c/vector_*.c). */
#ifndef VECTOR_KERNELS_H
#define VECTOR_KERNELS_H
#include <math.h>
#include <stdlib.h>

__attribute__((noinline)) double scalar2(double x, double y) { return x * y + 1.0 / x + sin(y) * exp(x * 0.5); }

/* y = A tanh(B x) through a heap temporary and loops (values on the tape). */
enum { N = 4, M = 3 };
static const double A[M][N] = {{0.5, -1.0, 0.25, 2.0}, {1.5, 0.3, -0.7, 0.1}, {-0.2, 0.9, 1.1, -1.3}};
static const double B[N][N] = {
    {1.0, 0.2, -0.3, 0.4}, {0.1, -0.8, 0.5, 0.3}, {0.7, 0.6, 0.2, -0.1}, {-0.4, 0.3, 0.9, 0.5}};

__attribute__((noinline)) void layer(const double *x, double *y) {
  double *h = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = 0; j < N; j++)
      s += B[i][j] * x[j];
    h[i] = tanh(s);
  }
  for (int i = 0; i < M; i++) {
    double s = 0;
    for (int j = 0; j < N; j++)
      s += A[i][j] * h[j];
    y[i] = s;
  }
  free(h);
}

/* A global written and read back: one shadow per lane. */
static double scratch[N];
__attribute__((noinline)) double through_global(const double *x) {
  for (int i = 0; i < N; i++)
    scratch[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < N; i++)
    s += scratch[i] * x[(i + 1) % N];
  return s;
}

/* Column j of layer's Jacobian by central differences. */
static void layer_fd_column(const double *x, int j, double *col) {
  double xp[N], xm[N], yp[M], ym[M], h = 1e-6;
  for (int k = 0; k < N; k++)
    xp[k] = xm[k] = x[k];
  xp[j] += h;
  xm[j] -= h;
  layer(xp, yp);
  layer(xm, ym);
  for (int i = 0; i < M; i++)
    col[i] = (yp[i] - ym[i]) / (2 * h);
}

#endif
