/* Micro kernel: logsumexp with the max trick (a data-dependent pick). */
#include "../bench.h"
static const char *NAME = "logsumexp";
static int N;
static double *X, *DX;

static double lse(const double *x, int n) {
  double m = x[0], s = 0;
  for (int i = 1; i < n; i++) m = x[i] > m ? x[i] : m;
  for (int i = 0; i < n; i++) s += exp(x[i] - m);
  return m + log(s);
}

static void setup(int n) {
  N = n ? n : 1000000;
  X = malloc(N * sizeof *X), DX = calloc(N, sizeof *DX);
  for (int i = 0; i < N; i++) X[i] = sin(0.37 * i) * 3;
}
static double primal(void) { return lse(X, N); }
static void gradient(void) { __enzyme_autodiff((void *)lse, enzyme_dup, X, DX, N); }
static int check(void) {
  memset(DX, 0, N * sizeof *DX);
  gradient();
  int f = 0;
  for (int i = 0; i < N; i += N / 7 + 1) f += check_close("d/dx", DX[i], fd_of(&X[i], 1e-6), 1e-6);
  return f;
}
#include "../harness.h"
