/* Hand-vectorised loops with clang's vector extensions: a 1-D stencil over
 * many sweeps with neighbour lanes from shuffles, a dot product finished by
 * a horizontal shuffle-add, Horner's rule on four lanes at once, and a
 * softmax over lanes with a max reduction. */
#include "jacobian.h"
#include "vector.h"

typedef v4d v4;
#define ld load4
#define st store4

/* u[i] += 0.2 (u[i-1] - 2u[i] + u[i+1]) on 8 cells with fixed ends, 30 sweeps. */
static void stencil(const double *x, double *y) {
  double u[8];
  memcpy(u, x, sizeof u);
  for (int sweep = 0; sweep < 30; sweep++) {
    v4 a = ld(u), b = ld(u + 4);
    v4 left_a = __builtin_shufflevector(a, a, 0, 0, 1, 2);
    v4 right_a = __builtin_shufflevector(a, b, 1, 2, 3, 4);
    v4 left_b = __builtin_shufflevector(a, b, 3, 4, 5, 6);
    v4 right_b = __builtin_shufflevector(b, b, 1, 2, 3, 3);
    v4 na = a + 0.2 * (left_a - 2 * a + right_a);
    v4 nb = b + 0.2 * (left_b - 2 * b + right_b);
    na[0] = u[0];
    nb[3] = u[7];
    st(u, na);
    st(u + 4, nb);
  }
  for (int i = 0; i < 8; i++) y[i] = u[i];
}

/* Dot product of the two halves, weighted, accumulated on lanes. */
static void dot(const double *x, double *y) {
  v4 acc = {0, 0, 0, 0};
  for (int rep = 1; rep <= 3; rep++) {
    v4 a = ld(x), b = ld(x + 4);
    acc += a * b * (double)rep + a * a / (double)rep;
  }
  v4 h = acc + __builtin_shufflevector(acc, acc, 2, 3, 0, 1);
  h = h + __builtin_shufflevector(h, h, 1, 0, 3, 2);
  y[0] = h[0];
}

/* p(t) = sum c_k t^k for four points at once; c from x[4..7]. */
static void horner(const double *x, double *y) {
  v4 t = ld(x), p = {0, 0, 0, 0};
  for (int k = 7; k >= 4; k--) p = p * t + x[k];
  st(y, p);
}

static void softmax(const double *x, double *y) {
  v4 a = ld(x);
  double m = __builtin_reduce_max(a);
  v4 e = __builtin_elementwise_exp(a - m);
  double s = e[0] + e[1] + e[2] + e[3];
  st(y, e / s);
}

int main(void) {
  CHECK_JACOBIAN(stencil, 8, 8, 0.1, 0.9, -0.3, 0.4, 1.2, -0.8, 0.5, 0.2);
  CHECK_JACOBIAN(dot, 8, 1, 0.1, 0.9, -0.3, 0.4, 1.2, -0.8, 0.5, 0.2);
  CHECK_JACOBIAN(horner, 8, 4, 0.1, 0.9, -0.3, 0.4, 1.2, -0.8, 0.5, 0.2);
  CHECK_JACOBIAN(softmax, 4, 4, 0.1, 0.9, -0.3, 0.4);
  return CHECK_DONE();
}
