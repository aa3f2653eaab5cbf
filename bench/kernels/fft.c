/* An FFT round trip: an iterative radix-2 FFT of n complex values, the
 * inverse transform, then sum(sin(re)) + sum(im^2)/2 of the result
 * (n = 2^16 by default; n must be a power of two). The transforms run in
 * a heap buffer of their own; the twiddles are a constant table. */
#include "../bench.h"
static const char *NAME = "fft";
static int N;
static double *X, *DX, *TX, *TW;

/* The bit reversal: a permutation that is its own inverse and its own
 * transpose (so the hand-written adjoint uses it as it is). */
static void bit_reverse(double *a, int n) {
  for (int i = 1, j = 0; i < n; i++) {
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      double re = a[2 * i], im = a[2 * i + 1];
      a[2 * i] = a[2 * j], a[2 * i + 1] = a[2 * j + 1], a[2 * j] = re, a[2 * j + 1] = im;
    }
  }
}

static void fft(double *a, const double *tw, int n, int inverse) {
  bit_reverse(a, n);
  for (int len = 2; len <= n; len <<= 1)
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; k++) {
        double wr = tw[2 * (k * (n / len))], wi = inverse ? -tw[2 * (k * (n / len)) + 1] : tw[2 * (k * (n / len)) + 1];
        double *u = a + 2 * (i + k), *v = a + 2 * (i + k + len / 2);
        double vr = v[0] * wr - v[1] * wi, vi = v[0] * wi + v[1] * wr;
        v[0] = u[0] - vr, v[1] = u[1] - vi, u[0] += vr, u[1] += vi;
      }
}

static double roundtrip(const double *x, const double *tw, int n) {
  double *a = malloc(2 * n * sizeof *a), f = 0;
  for (int i = 0; i < 2 * n; i++) a[i] = x[i];
  fft(a, tw, n, 0);
  fft(a, tw, n, 1);
  for (int i = 0; i < n; i++) f += sin(a[2 * i] / n) + 0.5 * (a[2 * i + 1] / n) * (a[2 * i + 1] / n);
  free(a);
  return f;
}

static void setup(int n) {
  N = n ? n : 1 << 16;
  if (N & (N - 1)) {
    fprintf(stderr, "fft: n = %d is not a power of two\n", N);
    exit(2);
  }
  X = malloc(2 * N * sizeof *X), DX = calloc(2 * N, sizeof *DX), TX = malloc(2 * N * sizeof *TX);
  TW = malloc(N * sizeof *TW); /* exp(-2 pi i k / n), k < n/2 */
  for (int k = 0; k < N / 2; k++) TW[2 * k] = cos(2 * M_PI * k / N), TW[2 * k + 1] = -sin(2 * M_PI * k / N);
  for (int i = 0; i < 2 * N; i++) X[i] = sin(0.61 * i) + 0.5;
}
static int params(struct param *p) {
  p[0] = (struct param){"x", X, DX, TX, 2 * N};
  return 1;
}
static double primal(void) { return roundtrip(X, TW, N); }
static void reverse(void) { __enzyme_autodiff((void *)roundtrip, enzyme_dup, X, DX, enzyme_const, TW, N); }
static double forward(void) { return __enzyme_fwddiff((void *)roundtrip, enzyme_dup, X, TX, enzyme_const, TW, N); }
/* The round trip is the identity, so the gradient is cos(re) for the real
 * parts and im for the imaginary parts: a check with no differences taken. */
static void analytic(void) {
  for (int i = 0; i < N; i++) DX[2 * i] += cos(X[2 * i]), DX[2 * i + 1] += X[2 * i + 1];
}
/* Hand-written adjoint. The transform is linear, so its adjoint is its
 * transpose: the butterfly stages transposed in reverse order (each
 * butterfly u' = u + w v, v' = u - w v gives u = u' + v', v = conj(w) (u' - v')),
 * then the bit reversal, which is its own transpose. */
static void fft_adjoint(double *g, const double *tw, int n, int inverse) {
  for (int len = n; len >= 2; len >>= 1)
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; k++) {
        double wr = tw[2 * (k * (n / len))], wi = inverse ? -tw[2 * (k * (n / len)) + 1] : tw[2 * (k * (n / len)) + 1];
        double *u = g + 2 * (i + k), *v = g + 2 * (i + k + len / 2);
        double tr = u[0] - v[0], ti = u[1] - v[1];
        u[0] += v[0], u[1] += v[1];
        v[0] = tr * wr + ti * wi, v[1] = ti * wr - tr * wi;
      }
  bit_reverse(g, n);
}
static void hand(void) {
  static double *a, *g; /* work buffers made once, as a hand-tuned code would */
  if (!a) a = malloc(2 * N * sizeof *a), g = malloc(2 * N * sizeof *g);
  for (int i = 0; i < 2 * N; i++) a[i] = X[i];
  fft(a, TW, N, 0);
  fft(a, TW, N, 1);
  for (int i = 0; i < N; i++) g[2 * i] = cos(a[2 * i] / N) / N, g[2 * i + 1] = a[2 * i + 1] / ((double)N * N);
  fft_adjoint(g, TW, N, 1);
  fft_adjoint(g, TW, N, 0);
  for (int i = 0; i < 2 * N; i++) DX[i] += g[i];
}
#define HAVE_FORWARD
#define HAVE_HAND
#define HAVE_ANALYTIC
#include "../harness.h"
