/* Data-dependent control flow in linear algebra: LU with partial pivoting
 * (row swaps in place, chosen by magnitude) to solve a system and take a
 * determinant, and a selection sort that moves values by swapping. */
#include "jacobian.h"

#define N 4

static void lu_solve(const double *x, double *y) {
  double a[N][N], b[N];
  int sign = 1;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) a[i][j] = x[(i * N + j) % 6] * (1 + 0.3 * ((i + 2 * j) % 3)) + (i == 3 - j ? 1.5 : 0);
    b[i] = 1 + i;
  }
  for (int k = 0; k < N; k++) {
    int p = k;
    for (int i = k + 1; i < N; i++)
      if (fabs(a[i][k]) > fabs(a[p][k])) p = i;
    if (p != k) {
      sign = -sign;
      for (int j = 0; j < N; j++) {
        double t = a[k][j];
        a[k][j] = a[p][j];
        a[p][j] = t;
      }
      double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
    for (int i = k + 1; i < N; i++) {
      double l = a[i][k] / a[k][k];
      for (int j = k; j < N; j++) a[i][j] -= l * a[k][j];
      b[i] -= l * b[k];
    }
  }
  double det = sign;
  for (int k = 0; k < N; k++) det *= a[k][k];
  for (int i = N - 1; i >= 0; i--) {
    for (int j = i + 1; j < N; j++) b[i] -= a[i][j] * b[j];
    b[i] /= a[i][i];
  }
  y[0] = det;
  y[1] = b[0];
  y[2] = b[3] - b[1];
}

static void selection_sort_weighted(const double *x, double *y) {
  double v[6];
  for (int i = 0; i < 6; i++) v[i] = x[i] * x[i] - x[(i + 1) % 6];
  for (int i = 0; i < 5; i++) {
    int m = i;
    for (int j = i + 1; j < 6; j++)
      if (v[j] < v[m]) m = j;
    double t = v[i];
    v[i] = v[m];
    v[m] = t;
  }
  double s = 0;
  for (int i = 0; i < 6; i++) s += (i + 1) * v[i];
  y[0] = s;
  y[1] = v[5] - v[0];
}

int main(void) {
  CHECK_JACOBIAN(lu_solve, 6, 3, 0.3, 1.7, -0.4, 0.9, 2.2, 0.6);
  CHECK_JACOBIAN(selection_sort_weighted, 6, 2, 0.3, 1.7, -0.4, 0.9, 1.2, 0.6);
  return CHECK_DONE();
}
