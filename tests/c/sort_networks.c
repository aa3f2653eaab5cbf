/* Sorting the way generic code does: elements moved by `memcpy` of their
 * size between places chosen by comparisons (a branchless network), and a
 * pivot found through a pointer that a recursive function returns, read
 * only to compare. The permutation carries the derivatives; comparisons
 * carry none. Checked in closed form (away from ties), against central
 * differences, forward against reverse. */
#include "check.h"
#include <string.h>

/* Sorts four doubles into `out`: each place gets the smaller or larger of
 * two, chosen by a comparison, moved as bytes. */
static void sort4(const double *v, double *out) {
  double t[4];
  const double *a = v[1] < v[0] ? &v[1] : &v[0], *b = v[1] < v[0] ? &v[0] : &v[1];
  const double *c = v[3] < v[2] ? &v[3] : &v[2], *d = v[3] < v[2] ? &v[2] : &v[3];
  memcpy(&t[0], *c < *a ? c : a, sizeof(double));
  memcpy(&t[3], *d < *b ? b : d, sizeof(double));
  const double *lo = *c < *a ? a : c, *hi = *d < *b ? d : b;
  memcpy(&t[1], *hi < *lo ? hi : lo, sizeof(double));
  memcpy(&t[2], *hi < *lo ? lo : hi, sizeof(double));
  memcpy(out, t, sizeof t);
}

/* The median of nine (a ninther), by a recursive search that returns a
 * pointer, as Rust's `median3_rec` does: the values behind the pointers it
 * returns are only compared. */
__attribute__((noinline)) static const double *median9(const double *a, int n) {
  const double *x = a, *y = a + 1, *z = a + 2;
  if (n >= 9) {
    x = median9(a, 3), y = median9(a + 3, 3), z = median9(a + 6, 3);
  }
  int p = *x < *y, q = *x < *z;
  if (p == q)
    return ((*y < *z) ^ p) ? z : y;
  return x;
}

static double weighted(const double *v) {
  double s[4];
  sort4(v, s);
  int k = (int)(median9(v, 9) - v);
  return s[0] + 2 * s[1] + 3 * s[2] * s[2] + 4 * s[3] + (k + 1) * v[k] * v[k];
}

int main(void) {
  double cases[3][9] = {{0.3, -1.2, 2.5, 0.9, 1.7, -0.4, 3.1, 0.05, -2.6},
                        {4.0, 3.0, 2.0, 1.0, 0.5, 7.0, -1.0, 2.2, 5.5},
                        {-0.5, 0.25, -2.0, 1.5, 0.8, -3.3, 1.1, 4.4, 0.6}};
  for (int c = 0; c < 3; c++) {
    double *v = cases[c], d[9] = {0};
    __enzyme_autodiff((void *)weighted, enzyme_dup, v, d);
    /* Closed form: the rank of each element gives its weight. */
    double want[9] = {0};
    for (int i = 0; i < 4; i++) {
      int rank = 0;
      for (int j = 0; j < 4; j++)
        rank += v[j] < v[i];
      want[i] = rank == 2 ? 6 * v[i] : (double)(rank + 1);
    }
    int k = (int)(median9(v, 9) - v);
    want[k] += 2 * (k + 1) * v[k];
    for (int i = 0; i < 9; i++) {
      CHECK("reverse vs closed form", d[i], want[i], TOL_EXACT);
      double dv[9] = {0};
      dv[i] = 1;
      CHECK("forward vs reverse", __enzyme_fwddiff((void *)weighted, enzyme_dup, v, dv), d[i], TOL_MODES);
      double p[9], m[9], h = 1e-6;
      memcpy(p, v, sizeof p), memcpy(m, v, sizeof m);
      p[i] += h, m[i] -= h;
      CHECK("finite difference vs closed form", (weighted(p) - weighted(m)) / (2 * h), want[i], TOL_FD);
    }
  }
  return CHECK_DONE();
}
