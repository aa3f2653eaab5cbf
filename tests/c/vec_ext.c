/* Explicit SIMD with clang's vector extensions: vector arithmetic, lane
 * reads and writes, shuffles, elementwise math, a max reduction, and vector
 * loads and stores through the arrays, in loops. */
#include "jacobian.h"
#include "vector.h"

typedef float v4f __attribute__((vector_size(16)));

/* Weighted sum of squares over blocks of four, lanes combined at the end. */
static void blocks(const double *x, double *y) {
  v4d acc = {0, 0, 0, 0};
  const v4d w = {1, 2, 3, 4};
  for (int i = 0; i < 8; i += 4) {
    v4d v = load4(x + i);
    acc += v * v * w - v / (v * v + 1);
  }
  y[0] = acc[0] * acc[1] + acc[2] - acc[3];
}

/* Shuffles and lane inserts: a rotate, an interleave, a swizzle with a lane used twice. */
static void shuffles(const double *x, double *y) {
  v4d a = load4(x), b = load4(x + 4);
  v4d rot = __builtin_shufflevector(a, a, 1, 2, 3, 0);
  v4d mix = __builtin_shufflevector(a, b, 0, 4, 1, 5);
  v4d dup = __builtin_shufflevector(b, b, 3, 3, 0, 2);
  v4d r = rot * mix + dup * a;
  r[2] = x[1] * x[6];
  store4(y, r);
  y[4] = r[0] * r[3];
}

/* Elementwise math and a max reduction (the derivative goes to the winning lane). */
static void elementwise(const double *x, double *y) {
  v4d a = load4(x), b = load4(x + 4);
  v4d s = __builtin_elementwise_sqrt(a * a + 1);
  v4d e = __builtin_elementwise_exp(-b * b);
  v4d f = __builtin_elementwise_fma(a, b, s);
  v4d m = __builtin_elementwise_max(a, b);
  y[0] = __builtin_reduce_max(f + e);
  v4d sn = __builtin_elementwise_sin(m);
  y[1] = sn[0] + sn[1] * sn[2] + sn[3];
}

/* An in-place vector update over an array, read back as scalars. */
static void smooth(const double *x, double *y) {
  double buf[8];
  memcpy(buf, x, sizeof buf);
  for (int step = 0; step < 3; step++) {
    for (int i = 0; i < 8; i += 4) {
      v4d v = load4(buf + i);
      v4d nb = __builtin_shufflevector(v, v, 1, 0, 3, 2);
      store4(buf + i, 0.5 * v + 0.25 * nb * v);
    }
  }
  for (int i = 0; i < 8; i++) y[i] = buf[i];
}

/* Float vectors, widened to double. */
static void floats(const double *x, double *y) {
  v4f a = {(float)x[0], (float)x[1], (float)x[2], (float)x[3]};
  v4f b = a * a + 0.5f * a;
  y[0] = (double)b[0] + (double)b[1] * (double)b[2] - (double)b[3];
}

/* The float lanes against their analytic derivative, both modes. */
static void check_floats(void) {
  const double x0[4] = {0.5, -1.0, 2.0, 0.25};
  double x[4], dx[4] = {0}, y[1], dy[1] = {1}, want[4];
  memcpy(x, x0, sizeof x);
  double b[4];
  for (int k = 0; k < 4; k++) b[k] = x0[k] * x0[k] + 0.5 * x0[k];
  want[0] = 2 * x0[0] + 0.5;
  want[1] = (2 * x0[1] + 0.5) * b[2];
  want[2] = b[1] * (2 * x0[2] + 0.5);
  want[3] = -(2 * x0[3] + 0.5);
  __enzyme_autodiff_v((void *)floats, enzyme_dup, x, dx, enzyme_dup, y, dy);
  for (int k = 0; k < 4; k++) {
    CHECK("float vector lanes, reverse vs analytic", dx[k], want[k], TOL_FLOAT);
    double tx[4] = {0}, ty[1];
    tx[k] = 1;
    __enzyme_fwddiff_v((void *)floats, enzyme_dup, x, tx, enzyme_dup, y, ty);
    CHECK("float vector lanes, forward vs reverse", ty[0], dx[k], TOL_FLOAT);
  }
}

int main(void) {
  check_floats();
  CHECK_JACOBIAN(blocks, 8, 1, 0.5, -1.0, 2.0, 0.25, 1.5, -0.5, 0.75, -2.0);
  CHECK_JACOBIAN(shuffles, 8, 5, 0.5, -1.0, 2.0, 0.25, 1.5, -0.5, 0.75, -2.0);
  CHECK_JACOBIAN(elementwise, 8, 2, 0.5, -1.0, 2.0, 0.25, 1.5, -0.5, 0.75, -2.0);
  CHECK_JACOBIAN(smooth, 8, 8, 0.5, -1.0, 2.0, 0.25, 1.5, -0.5, 0.75, -2.0);
  return CHECK_DONE();
}
