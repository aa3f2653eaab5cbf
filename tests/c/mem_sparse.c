/* Indirect indexing: a CSR sparse matrix-vector product (integer index
 * arrays constant, values and vector active) and a scatter-add assembly
 * y[idx[k]] += ... with repeated indices. */
#include "jacobian.h"

static const int rowptr[4] = {0, 2, 3, 5};
static const int cols[5] = {0, 2, 1, 0, 2};

/* x: 5 matrix values then 3 vector entries; y = A v */
static void csr_matvec(const double *x, double *y) {
  const double *vals = x, *v = x + 5;
  for (int r = 0; r < 3; r++) {
    double s = 0;
    for (int k = rowptr[r]; k < rowptr[r + 1]; k++) s += vals[k] * v[cols[k]];
    y[r] = s;
  }
}

static const int idx[6] = {0, 2, 1, 2, 0, 2};

static void scatter_add(const double *x, double *y) {
  for (int i = 0; i < 3; i++) y[i] = 0;
  for (int k = 0; k < 6; k++) y[idx[k]] += x[k] * x[(k + 1) % 6];
}

int main(void) {
  CHECK_JACOBIAN(csr_matvec, 8, 3, 1, 2, 3, 4, 5, 0.5, -1, 2);
  CHECK_JACOBIAN(scatter_add, 6, 3, 0.5, -1, 2, 0.25, 1.5, 3);
  return CHECK_DONE();
}
