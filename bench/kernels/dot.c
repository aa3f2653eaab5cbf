/* Micro kernel: a dot product x·y, gradient with respect to both. */
#include "../bench.h"
static const char *NAME = "dot";
static int N;
static double *X, *Y, *DX, *DY;

static double dot(const double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

static void setup(int n) {
  N = n ? n : 1000000;
  X = malloc(N * sizeof *X), Y = malloc(N * sizeof *Y), DX = calloc(N, sizeof *DX), DY = calloc(N, sizeof *DY);
  for (int i = 0; i < N; i++) X[i] = sin(i), Y[i] = cos(0.5 * i);
}
static double primal(void) { return dot(X, Y, N); }
static void gradient(void) { __enzyme_autodiff((void *)dot, enzyme_dup, X, DX, enzyme_dup, Y, DY, N); }
static int check(void) {
  memset(DX, 0, N * sizeof *DX);
  memset(DY, 0, N * sizeof *DY);
  gradient();
  int f = 0;
  for (int i = 0; i < N; i += N / 7 + 1) f += check_close("d/dx", DX[i], fd_of(&X[i], 1e-6), 1e-6);
  return f;
}
#include "../harness.h"
