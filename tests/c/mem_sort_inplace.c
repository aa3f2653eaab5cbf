/* Sorting active memory in place (bubble sort swaps values through
 * pointers), then a weighted sum; and an in-place matrix transpose. */
#include "jacobian.h"

static void sort_in_place(double *v, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j + 1 < n - i; j++)
      if (v[j] > v[j + 1]) {
        double t = v[j];
        v[j] = v[j + 1];
        v[j + 1] = t;
      }
}

static void sorted_weighted(const double *x, double *y) {
  double v[5];
  for (int i = 0; i < 5; i++) v[i] = x[i] * x[i];
  sort_in_place(v, 5);
  double s = 0;
  for (int i = 0; i < 5; i++) s += (i + 1) * v[i];
  y[0] = s;
}

static void transpose_in_place(double *m, int n) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double t = m[i * n + j];
      m[i * n + j] = m[j * n + i];
      m[j * n + i] = t;
    }
}

static void transposed_products(const double *x, double *y) {
  double m[9];
  for (int i = 0; i < 9; i++) m[i] = x[i];
  transpose_in_place(m, 3);
  for (int i = 0; i < 3; i++) y[i] = m[i] * x[i + 3] + sin(m[i + 6]);
}

int main(void) {
  CHECK_JACOBIAN(sorted_weighted, 5, 1, 1.5, -0.5, 2.0, 0.25, -1.25);
  CHECK_JACOBIAN(transposed_products, 9, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  return CHECK_DONE();
}
