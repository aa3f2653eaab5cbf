/* A copy of memory inside a parallel region, in reverse mode: its adjoints
 * would be moved without atomics, so it is refused by name. */
#include <string.h>
void __enzyme_autodiff(void *, ...);

static void rows(const double *x, double *y, int n, int m) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double t[64];
    memcpy(t, x + (long)i * m, (size_t)m * sizeof(double));
    double s = 0;
    for (int j = 0; j < m; j++) s += t[j] * t[(j + 1) % m];
    y[i] = s;
  }
}

int main(void) {
  double x[64] = {0}, dx[64] = {0}, y[8], dy[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  __enzyme_autodiff((void *)rows, x, dx, y, dy, 8, 8);
  return (int)dx[0];
}
