/* Data-dependent control flow in linear algebra: Householder QR whose
 * reflector signs come from the data, and a selection sort that moves values
 * by swapping. */
#include "jacobian.h"

#define N 4

/* Householder QR in place: each reflector's sign is chosen from the data to
 * avoid cancellation; outputs the diagonal of R and the log of |det A|. */
static void householder(const double *x, double *y) {
  double a[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) a[i][j] = x[(i * N + j) % 6] * (1 + 0.3 * ((i + 2 * j) % 3)) + (i == 3 - j ? 1.5 : 0);
  for (int k = 0; k < N - 1; k++) {
    double norm = 0;
    for (int i = k; i < N; i++) norm += a[i][k] * a[i][k];
    norm = sqrt(norm);
    double alpha = a[k][k] > 0 ? -norm : norm;
    double v[N], vv = 0;
    for (int i = 0; i < N; i++) v[i] = i < k ? 0 : a[i][k];
    v[k] -= alpha;
    for (int i = k; i < N; i++) vv += v[i] * v[i];
    for (int j = k; j < N; j++) {
      double d = 0;
      for (int i = k; i < N; i++) d += v[i] * a[i][j];
      for (int i = k; i < N; i++) a[i][j] -= 2 * d / vv * v[i];
    }
  }
  double logdet = 0;
  for (int k = 0; k < N; k++) logdet += log(fabs(a[k][k]));
  y[0] = a[0][0];
  y[1] = a[2][2] * a[3][3];
  y[2] = logdet;
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
  CHECK_JACOBIAN(householder, 6, 3, 0.3, 1.7, -0.4, 0.9, 2.2, 0.6);
  CHECK_JACOBIAN(selection_sort_weighted, 6, 2, 0.3, 1.7, -0.4, 0.9, 1.2, 0.6);
  return CHECK_DONE();
}
