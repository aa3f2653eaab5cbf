/* Micro kernel: logsumexp with the max trick (a data-dependent pick). */
#include "../bench.h"
static const char *NAME = "logsumexp";
static int N;
static double *X, *DX, *TX;

static double lse(const double *x, int n) {
  double m = x[0], s = 0;
  for (int i = 1; i < n; i++) m = x[i] > m ? x[i] : m;
  for (int i = 0; i < n; i++) s += exp(x[i] - m);
  return m + log(s);
}

static void setup(int n) {
  N = n ? n : 1000000;
  X = malloc(N * sizeof *X), DX = calloc(N, sizeof *DX), TX = malloc(N * sizeof *TX);
  for (int i = 0; i < N; i++) X[i] = sin(0.37 * i) * 3;
}
static int params(struct param *p) {
  p[0] = (struct param){"x", X, DX, TX, N};
  return 1;
}
static double primal(void) { return lse(X, N); }
static void reverse(void) { __enzyme_autodiff((void *)lse, enzyme_dup, X, DX, N); }
static double forward(void) { return __enzyme_fwddiff((void *)lse, enzyme_dup, X, TX, N); }
/* The adjoint is the softmax. */
static void hand(void) {
  double l = lse(X, N);
  for (int i = 0; i < N; i++) DX[i] += exp(X[i] - l);
}
#define HAVE_FORWARD
#define HAVE_HAND
#define FD_TOL 1e-6
#include "../harness.h"
