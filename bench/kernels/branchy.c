/* Micro kernel: a loop whose body branches on the data three ways. */
#include "../bench.h"
static const char *NAME = "branchy";
static int N;
static double *X, *DX;

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
  X = malloc(N * sizeof *X), DX = calloc(N, sizeof *DX);
  for (int i = 0; i < N; i++) X[i] = sin(1.7 * i);
}
static double primal(void) { return branchy(X, N); }
static void gradient(void) { __enzyme_autodiff((void *)branchy, enzyme_dup, X, DX, N); }
static int check(void) {
  memset(DX, 0, N * sizeof *DX);
  gradient();
  int f = 0;
  for (int i = 0; i < N; i += N / 7 + 1) f += check_close("d/dx", DX[i], fd_of(&X[i], 1e-7), 1e-5);
  return f;
}
#include "../harness.h"
