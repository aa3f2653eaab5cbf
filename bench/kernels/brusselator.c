/* An explicit ODE integration: the 2-D Brusselator on a periodic 32x32 grid
 * (u, v with diffusion), forward Euler over many steps, the state updated
 * in place. Gradient of the final mean of u with respect to the initial
 * state and the parameters A, B. */
#include "../bench.h"
static const char *NAME = "brusselator";
enum { G = 32 };
static int STEPS;
static double *U0, *DU0, P[2] = {1.0, 3.4}, DP[2];

/* One Euler step from `uv` into `nu` (the primal's, and the hand adjoint's forward sweep). */
static void step(const double *uv, double *nu, double a, double b) {
  const double alpha = 0.002, h = 0.001;
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
}

static void integrate_(double *uv, const double *p, int steps) {
  static double nu[2 * G * G];
  for (int s = 0; s < steps; s++) {
    step(uv, nu, p[0], p[1]);
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

static double *STATES, *TU0, TP[2];
static void setup(int n) {
  STEPS = n ? n : 500;
  U0 = malloc(2 * G * G * sizeof *U0), DU0 = calloc(2 * G * G, sizeof *DU0), TU0 = malloc(2 * G * G * sizeof *TU0);
  STATES = malloc((size_t)(STEPS + 1) * 2 * G * G * sizeof *STATES);
  for (int k = 0; k < G * G; k++) U0[k] = 1 + 0.2 * sin(0.1 * k), U0[G * G + k] = 3 + 0.1 * cos(0.07 * k);
}
static int params(struct param *p) {
  p[0] = (struct param){"uv0", U0, DU0, TU0, 2 * G * G};
  p[1] = (struct param){"p", P, DP, TP, 2};
  return 2;
}
static double primal(void) { return objective(U0, P, STEPS); }
static void reverse(void) {
  __enzyme_autodiff((void *)objective, enzyme_dup, U0, DU0, enzyme_dup, P, DP, STEPS);
}
static double forward(void) {
  return __enzyme_fwddiff((void *)objective, enzyme_dup, U0, TU0, enzyme_dup, P, TP, STEPS);
}
/* Hand-written adjoint: every state is stored on the way forward (what a
 * person would write first), then one backward sweep per step. */
static void hand(void) {
  const double a = P[0], b = P[1], alpha = 0.002, h = 0.001, c = h * alpha * G * G;
  enum { S = 2 * G * G };
  memcpy(STATES, U0, S * sizeof *STATES);
  for (int s = 0; s < STEPS; s++) step(STATES + (size_t)s * S, STATES + (size_t)(s + 1) * S, a, b);
  static double adj[S], old[S];
  for (int k = 0; k < S; k++) adj[k] = k < G * G ? 1.0 / (G * G) : 0;
  double da = 0, db = 0;
  for (int s = STEPS - 1; s >= 0; s--) {
    const double *uv = STATES + (size_t)s * S;
    memset(old, 0, sizeof old);
    for (int i = 0; i < G; i++)
      for (int j = 0; j < G; j++) {
        int k = i * G + j, up = ((i + G - 1) % G) * G + j, dn = ((i + 1) % G) * G + j;
        int lf = i * G + (j + G - 1) % G, rt = i * G + (j + 1) % G;
        double u = uv[k], v = uv[G * G + k], au = adj[k], av = adj[G * G + k];
        old[k] += au * (1 + h * (2 * u * v - (b + 1)) - 4 * c) + av * h * (b - 2 * u * v);
        old[G * G + k] += au * h * u * u + av * (1 - h * u * u - 4 * c);
        old[up] += au * c, old[dn] += au * c, old[lf] += au * c, old[rt] += au * c;
        old[G * G + up] += av * c, old[G * G + dn] += av * c, old[G * G + lf] += av * c, old[G * G + rt] += av * c;
        da += au * h;
        db += h * u * (av - au);
      }
    memcpy(adj, old, sizeof adj);
  }
  for (int k = 0; k < S; k++) DU0[k] += adj[k];
  DP[0] += da, DP[1] += db;
}
#define HAVE_FORWARD
#define HAVE_HAND
#include "../harness.h"
