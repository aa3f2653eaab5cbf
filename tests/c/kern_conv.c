/* 1-D convolution with a kernel: Jacobian with respect to signal and kernel. */
#include "jacobian.h"

#define S 7
#define W 3
static void conv(const double *in, double *out) {
  const double *sig = in, *ker = in + S;
  for (int i = 0; i + W <= S; i++) {
    double s = 0;
    for (int k = 0; k < W; k++) s += sig[i + k] * ker[k];
    out[i] = s * s; /* squared response */
  }
}

int main(void) {
  CHECK_JACOBIAN(conv, S + W, S - W + 1, 1, -1, 2, 0.5, 0, 3, -2, 0.25, 0.5, -0.75);
  return CHECK_DONE();
}
