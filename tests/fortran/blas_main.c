/* Jacobian of the Fortran kernel calling BLAS (blas_kernels.f90): reverse
 * against finite differences, forward against reverse. */
#include "jacobian.h"

void products(const double *x, double *y);

int main(void) {
  CHECK_JACOBIAN(products, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  return CHECK_DONE();
}
