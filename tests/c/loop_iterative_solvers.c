/* Iterative linear algebra: Gauss-Seidel sweeps in place until the update
 * is small, Jacobi with two buffers, and power iteration with a
 * normalisation in every step. */
#include "jacobian.h"

#define N 5

/* A = tridiag(-1, 4 + x_i, -1), b = 1: solve by Gauss-Seidel to 1e-13 */
static void gauss_seidel(const double *x, double *y) {
  double u[N] = {0};
  double change;
  int sweeps = 0;
  do {
    change = 0;
    for (int i = 0; i < N; i++) {
      double r = 1.0;
      if (i > 0) r += u[i - 1];
      if (i < N - 1) r += u[i + 1];
      double v = r / (4 + x[i]);
      change += fabs(v - u[i]);
      u[i] = v;
    }
  } while (change > 1e-14 && ++sweeps < 200);
  y[0] = u[0] + 2 * u[2];
  y[1] = u[N - 1] * u[1];
}

static void jacobi(const double *x, double *y) {
  double a[N] = {0}, b[N];
  for (int it = 0; it < 60; it++) {
    for (int i = 0; i < N; i++) {
      double r = x[i];
      if (i > 0) r += a[i - 1];
      if (i < N - 1) r += a[i + 1];
      b[i] = r / 3.0;
    }
    for (int i = 0; i < N; i++) a[i] = b[i];
  }
  double s = 0;
  for (int i = 0; i < N; i++) s += (i + 1) * a[i];
  y[0] = s;
}

/* dominant eigenvalue of a symmetric matrix built from x, by Rayleigh
 * quotient after many normalised power steps */
static void power_iteration(const double *x, double *y) {
  double m[3][3] = {{4 + x[0], x[1], 0.5}, {x[1], 2, x[2]}, {0.5, x[2], 1}};
  double v[3] = {1, 1, 1}, w[3];
  for (int it = 0; it < 80; it++) {
    double norm = 0;
    for (int i = 0; i < 3; i++) {
      w[i] = 0;
      for (int j = 0; j < 3; j++) w[i] += m[i][j] * v[j];
      norm += w[i] * w[i];
    }
    norm = sqrt(norm);
    for (int i = 0; i < 3; i++) v[i] = w[i] / norm;
  }
  double num = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) num += v[i] * m[i][j] * v[j];
  y[0] = num;
}

int main(void) {
  CHECK_JACOBIAN(gauss_seidel, N, 2, 0.1, 0.5, 0.2, 0.9, 0.3);
  CHECK_JACOBIAN(jacobi, N, 1, 1.0, -0.5, 0.25, 2.0, 0.75);
  CHECK_JACOBIAN(power_iteration, 3, 1, 0.3, 0.7, 0.4);
  return CHECK_DONE();
}
