/* Micro kernel: a dot product x·y, gradient with respect to both. */
#include "../bench.h"
static const char *NAME = "dot";
static int N;
static double *X, *Y, *DX, *DY, *TX, *TY;

static double dot(const double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

static void setup(int n) {
  N = n ? n : 1000000;
  X = malloc(N * sizeof *X), Y = malloc(N * sizeof *Y), DX = calloc(N, sizeof *DX), DY = calloc(N, sizeof *DY);
  TX = malloc(N * sizeof *TX), TY = malloc(N * sizeof *TY);
  for (int i = 0; i < N; i++) X[i] = sin(i), Y[i] = cos(0.5 * i);
}
static int params(struct param *p) {
  p[0] = (struct param){"x", X, DX, TX, N};
  p[1] = (struct param){"y", Y, DY, TY, N};
  return 2;
}
static double primal(void) { return dot(X, Y, N); }
static void reverse(void) { __enzyme_autodiff((void *)dot, enzyme_dup, X, DX, enzyme_dup, Y, DY, N); }
static double forward(void) { return __enzyme_fwddiff((void *)dot, enzyme_dup, X, TX, enzyme_dup, Y, TY, N); }
static void hand(void) {
  for (int i = 0; i < N; i++) DX[i] += Y[i], DY[i] += X[i];
}
#define HAVE_FORWARD
#define HAVE_HAND
#include "../harness.h"
