/* An explicit ODE integration: the 2-D Brusselator on a periodic 32x32 grid
 * (u, v with diffusion), forward Euler over many steps, the state updated
 * in place. Gradient of the final mean of u with respect to the initial
 * state and the parameters A, B. */
#include "../bench.h"
static const char *NAME = "brusselator";
enum { G = 32 };
static int STEPS;
static double *U0, *DU0, P[2] = {1.0, 3.4}, DP[2];

static void integrate_(double *uv, const double *p, int steps) {
  static double nu[2 * G * G];
  const double a = p[0], b = p[1], alpha = 0.002, h = 0.001;
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < G; i++)
      for (int j = 0; j < G; j++) {
        int k = i * G + j, up = ((i + G - 1) % G) * G + j, dn = ((i + 1) % G) * G + j;
        int lf = i * G + (j + G - 1) % G, rt = i * G + (j + 1) % G;
        double u = uv[k], v = uv[G * G + k];
        double lu = uv[up] + uv[dn] + uv[lf] + uv[rt] - 4 * u;
        double lv = uv[G * G + up] + uv[G * G + dn] + uv[G * G + lf] + uv[G * G + rt] - 4 * v;
        nu[k] = u + h * (a + u * u * v - (b + 1) * u + alpha * lu * G * G);
        nu[G * G + k] = v + h * (b * u - u * u * v + alpha * lv * G * G);
      }
    for (int k = 0; k < 2 * G * G; k++) uv[k] = nu[k];
  }
}

static double objective(const double *uv0, const double *p, int steps) {
  double uv[2 * G * G];
  for (int k = 0; k < 2 * G * G; k++) uv[k] = uv0[k];
  integrate_(uv, p, steps);
  double m = 0;
  for (int k = 0; k < G * G; k++) m += uv[k];
  return m / (G * G);
}

static void setup(int n) {
  STEPS = n ? n : 500;
  U0 = malloc(2 * G * G * sizeof *U0), DU0 = calloc(2 * G * G, sizeof *DU0);
  for (int k = 0; k < G * G; k++) U0[k] = 1 + 0.2 * sin(0.1 * k), U0[G * G + k] = 3 + 0.1 * cos(0.07 * k);
}
static double primal(void) { return objective(U0, P, STEPS); }
static void gradient(void) {
  __enzyme_autodiff((void *)objective, enzyme_dup, U0, DU0, enzyme_dup, P, DP, STEPS);
}
static int check(void) {
  memset(DU0, 0, 2 * G * G * sizeof *DU0);
  DP[0] = DP[1] = 0;
  gradient();
  int f = 0;
  f += check_close("d/dA", DP[0], fd_of(&P[0], 1e-6), 1e-5);
  f += check_close("d/dB", DP[1], fd_of(&P[1], 1e-6), 1e-5);
  for (int k = 0; k < 2 * G * G; k += 301) f += check_close("d/du0", DU0[k], fd_of(&U0[k], 1e-6), 1e-5);
  return f;
}
#include "../harness.h"
