/* Cholesky factorisation of a symmetric positive definite 3x3 matrix
 * (square roots, divisions, triangular loops), in place. */
#include "jacobian.h"

#define N 3
static void cholesky(const double *in, double *l) {
  for (int i = 0; i < N * N; i++) l[i] = 0;
  for (int j = 0; j < N; j++) {
    double s = in[j * N + j];
    for (int k = 0; k < j; k++) s -= l[j * N + k] * l[j * N + k];
    l[j * N + j] = sqrt(s);
    for (int i = j + 1; i < N; i++) {
      double t = in[i * N + j];
      for (int k = 0; k < j; k++) t -= l[i * N + k] * l[j * N + k];
      l[i * N + j] = t / l[j * N + j];
    }
  }
}

int main(void) {
  CHECK_JACOBIAN(cholesky, 9, 9, 4, 2, 0.6, 2, 5, 1, 0.6, 1, 3);
  return CHECK_DONE();
}
