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
#define HAVE_FORWARD
#define FD_H 1e-7
#include "../harness.h"
