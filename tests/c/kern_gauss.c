/* Solving A z = b by Gaussian elimination with partial pivoting, in place on
 * local copies: the Jacobian of z with respect to A and b. */
#include "jacobian.h"

#define N 3
static void solve(const double *in, double *z) {
  double a[N][N], b[N];
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) a[i][j] = in[i * N + j];
    b[i] = in[N * N + i];
  }
  for (int k = 0; k < N; k++) {
    int p = k;
    for (int i = k + 1; i < N; i++)
      if (fabs(a[i][k]) > fabs(a[p][k])) p = i;
    for (int j = 0; j < N; j++) {
      double t = a[k][j];
      a[k][j] = a[p][j];
      a[p][j] = t;
    }
    double t = b[k];
    b[k] = b[p];
    b[p] = t;
    for (int i = k + 1; i < N; i++) {
      double f = a[i][k] / a[k][k];
      for (int j = k; j < N; j++) a[i][j] -= f * a[k][j];
      b[i] -= f * b[k];
    }
  }
  for (int i = N - 1; i >= 0; i--) {
    double s = b[i];
    for (int j = i + 1; j < N; j++) s -= a[i][j] * z[j];
    z[i] = s / a[i][i];
  }
}

int main(void) {
  CHECK_JACOBIAN(solve, 12, 3, 1, 2, 0.5, 4, -1, 1, 0.5, 3, 2, 1, -2, 0.75);
  return CHECK_DONE();
}
