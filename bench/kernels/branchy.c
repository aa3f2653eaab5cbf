/* Micro kernel: a loop whose body branches on the data three ways. */
#include "../bench.h"
static const char *NAME = "branchy";
static int N;
static double *X, *DX, *TX;

static double branchy(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double v = x[i];
    if (v > 0.5)
      s += v * v;
    else if (v > -0.5)
      s += sin(v) * s * 1e-6 + v;
    else
      s -= exp(v);
  }
  return s;
}

static void setup(int n) {
  N = n ? n : 1000000;
  X = malloc(N * sizeof *X), DX = calloc(N, sizeof *DX), TX = malloc(N * sizeof *TX);
  for (int i = 0; i < N; i++) X[i] = sin(1.7 * i);
}
static int params(struct param *p) {
  p[0] = (struct param){"x", X, DX, TX, N};
  return 1;
}
static double primal(void) { return branchy(X, N); }
static void reverse(void) { __enzyme_autodiff((void *)branchy, enzyme_dup, X, DX, N); }
static double forward(void) { return __enzyme_fwddiff((void *)branchy, enzyme_dup, X, TX, N); }
/* By hand: the forward sweep keeps each step's partials (with respect to
 * x[i], and to the sum before it), so the reverse sweep calls no libm; the
 * two buffers are kept from call to call (as the tapes are). */
static void hand(void) {
  static double *by_x, *by_s;
  if (!by_x) by_x = malloc(N * sizeof *by_x), by_s = malloc(N * sizeof *by_s);
  double s = 0;
  for (int i = 0; i < N; i++) {
    double v = X[i];
    if (v > 0.5) {
      s += v * v;
      by_x[i] = 2 * v, by_s[i] = 1;
    } else if (v > -0.5) {
      double sv = sin(v);
      by_x[i] = cos(v) * s * 1e-6 + 1, by_s[i] = 1 + sv * 1e-6;
      s += sv * s * 1e-6 + v;
    } else {
      double e = exp(v);
      s -= e;
      by_x[i] = -e, by_s[i] = 1;
    }
  }
  double ds = 1;
  for (int i = N - 1; i >= 0; i--) {
    DX[i] += ds * by_x[i];
    ds *= by_s[i];
  }
}
#define HAVE_FORWARD
#define HAVE_HAND
#define FD_H 1e-7
#include "../harness.h"
