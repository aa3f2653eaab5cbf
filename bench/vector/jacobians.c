/* Vector mode: whole Jacobians by forward mode at widths 1, 4 and 8 and by
 * reverse mode at widths 1, 2 and 4 (enzyme_width), on
 *   - ba:  ADBench's bundle-adjustment reprojection, 15 inputs (camera,
 *          point, weight) -> 2 errors, for every one of 10^4 observations;
 *   - ode: the right-hand side of a 1-D Brusselator on 24 periodic cells,
 *          48 states -> 48 rates (a dense-banded 48 x 48 Jacobian);
 *   - kin: a stiff reaction network's right-hand side, 15 species and the
 *          temperature (a dense 16 x 16 Jacobian; 64 Arrhenius rates).
 * Every Jacobian is checked against forward mode at width 1 (and that one
 * against central differences) before anything is timed. Prints one
 * markdown row per benchmark and mode: the time of the whole Jacobian and
 * its ratio to width 1. Built by bench/vector.sh with enzyme-cc -O2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern int enzyme_width, enzyme_dupv, enzyme_dupnoneedv, enzyme_const, enzyme_dup, enzyme_dupnoneed;
void __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff(void *, ...);

/* ---- ba: the reprojection of bench/kernels/ba.c (ba_model.h), one observation ---- */
enum { NCAM = 50, NPT = 2000, CAMP = 11, BA_IN = 15, BA_OUT = 2, NOBS = 10000 };
static double CAMS[NCAM * CAMP], PTS[NPT * 3], WS[NOBS], FEATS[NOBS * 2];
static int CIDX[NOBS], PIDX[NOBS];

#include "../kernels/ba_model.h"

static void ba_setup(void) {
  for (int c = 0; c < NCAM; c++) {
    double *cam = CAMS + c * CAMP;
    cam[0] = 0.1 * sin(c), cam[1] = 0.1 * cos(1.3 * c), cam[2] = 0.05 * sin(0.7 * c) + 0.01;
    cam[3] = 0.3 * sin(0.5 * c), cam[4] = 0.3 * cos(0.5 * c), cam[5] = -10 + 0.1 * c;
    cam[6] = 1 + 0.01 * c, cam[7] = 0.01 * sin(c), cam[8] = 0.01 * cos(c), cam[9] = 1e-3 * (1 + c % 3), cam[10] = 1e-4;
  }
  for (int p = 0; p < NPT; p++)
    PTS[3 * p] = sin(0.1 * p), PTS[3 * p + 1] = cos(0.07 * p), PTS[3 * p + 2] = 0.5 * sin(0.03 * p);
  for (int o = 0; o < NOBS; o++) {
    CIDX[o] = o % NCAM, PIDX[o] = (o * 7) % NPT, WS[o] = 0.8 + 0.2 * sin(o);
    FEATS[2 * o] = 0.01 * cos(o), FEATS[2 * o + 1] = 0.01 * sin(o);
  }
}

/* Jacobian of observation o, row-major 2 x 15, into J (NOBS blocks). */
#define BA_FORWARD(W)                                                                                          \
  static void ba_forward_##W(double *J) {                                                                     \
    double cs[W][CAMP], xs[W][3], ws[W][1], es[W][BA_OUT];                                                    \
    for (int o = 0; o < NOBS; o++) {                                                                          \
      const double *cam = CAMS + CIDX[o] * CAMP, *x = PTS + PIDX[o] * 3;                                      \
      double err[BA_OUT];                                                                                     \
      for (int c0 = 0; c0 < BA_IN; c0 += W) {                                                                 \
        memset(cs, 0, sizeof cs), memset(xs, 0, sizeof xs), memset(ws, 0, sizeof ws);                         \
        for (int l = 0; l < W && c0 + l < BA_IN; l++) {                                                       \
          int c = c0 + l;                                                                                     \
          if (c < CAMP)                                                                                       \
            cs[l][c] = 1;                                                                                     \
          else if (c < CAMP + 3)                                                                              \
            xs[l][c - CAMP] = 1;                                                                              \
          else                                                                                                \
            ws[l][0] = 1;                                                                                     \
        }                                                                                                     \
        __enzyme_fwddiff((void *)reproj, enzyme_width, W, enzyme_dupv, sizeof cs[0], cam, &cs[0][0],          \
                         enzyme_dupv, sizeof xs[0], x, &xs[0][0], enzyme_dupv, sizeof ws[0], WS + o, &ws[0][0], \
                         enzyme_const, FEATS + 2 * o, enzyme_dupnoneedv, sizeof es[0], err, &es[0][0]);        \
        for (int l = 0; l < W && c0 + l < BA_IN; l++)                                                         \
          for (int r = 0; r < BA_OUT; r++)                                                                    \
            J[o * BA_OUT * BA_IN + r * BA_IN + c0 + l] = es[l][r];                                            \
      }                                                                                                       \
    }                                                                                                         \
  }
BA_FORWARD(1)
BA_FORWARD(4)
BA_FORWARD(8)

#define BA_REVERSE(W)                                                                                        \
  static void ba_reverse_##W(double *J) {                                                                   \
    double cs[W][CAMP], xs[W][3], ws[W][1], es[W][BA_OUT];                                                  \
    for (int o = 0; o < NOBS; o++) {                                                                        \
      const double *cam = CAMS + CIDX[o] * CAMP, *x = PTS + PIDX[o] * 3;                                    \
      double err[BA_OUT];                                                                                   \
      for (int r0 = 0; r0 < BA_OUT; r0 += W) {                                                              \
        memset(cs, 0, sizeof cs), memset(xs, 0, sizeof xs), memset(ws, 0, sizeof ws), memset(es, 0, sizeof es); \
        for (int l = 0; l < W && r0 + l < BA_OUT; l++)                                                      \
          es[l][r0 + l] = 1;                                                                                \
        __enzyme_autodiff((void *)reproj, enzyme_width, W, enzyme_dupv, sizeof cs[0], cam, &cs[0][0],       \
                          enzyme_dupv, sizeof xs[0], x, &xs[0][0], enzyme_dupv, sizeof ws[0], WS + o, &ws[0][0], \
                          enzyme_const, FEATS + 2 * o, enzyme_dupnoneedv, sizeof es[0], err, &es[0][0]);     \
        for (int l = 0; l < W && r0 + l < BA_OUT; l++) {                                                    \
          double *row = J + o * BA_OUT * BA_IN + (r0 + l) * BA_IN;                                          \
          memcpy(row, cs[l], sizeof cs[l]), memcpy(row + CAMP, xs[l], sizeof xs[l]), row[CAMP + 3] = ws[l][0]; \
        }                                                                                                   \
      }                                                                                                     \
    }                                                                                                       \
  }
BA_REVERSE(1)
BA_REVERSE(2)
BA_REVERSE(4)

/* ---- ode: a 1-D Brusselator's right-hand side, u and v on 24 cells ---- */
enum { CELLS = 24, DIM = 2 * CELLS, ODE_REPS = 2000 };
static double Y0[DIM];

__attribute__((noinline)) void rhs(const double *y, double *dy) {
  const double a = 1.0, b = 3.0, alpha = 0.02 * CELLS * CELLS;
  for (int i = 0; i < CELLS; i++) {
    int l = (i + CELLS - 1) % CELLS, r = (i + 1) % CELLS;
    double u = y[2 * i], v = y[2 * i + 1];
    double lap_u = y[2 * l] - 2 * u + y[2 * r], lap_v = y[2 * l + 1] - 2 * v + y[2 * r + 1];
    dy[2 * i] = a + u * u * v - (b + 1) * u + alpha * lap_u;
    dy[2 * i + 1] = b * u - u * u * v + alpha * lap_v;
  }
}

/* ---- kin: a stiff reaction network's right-hand side (the Jacobian a stiff
 * solver asks for at every Newton step): 15 species and the temperature,
 * 32 reversible reactions with Arrhenius rates k = A T^b exp(-E / T), mass
 * action, and the temperature driven by the reactions' heat over a
 * T-dependent heat capacity. The mechanism's numbers are made up (a fixed
 * pseudo-random table), its shape is a real one's. ---- */
enum { KSP = 15, KDIM = KSP + 1, KRX = 32, KIN_REPS = 2000 };
typedef struct {
  int in[2], out[2];
  double A, b, E, Ar, br, Er, h0, h1;
} reaction;
static reaction RX[KRX];
static double CP[KSP][3], K0[KDIM];

static void kin_setup(void) {
  unsigned s = 12345;
#define NEXT() (s = s * 1103515245u + 12345u, ((s >> 8) & 0xffff) / 65536.0)
  for (int j = 0; j < KRX; j++) {
    reaction *r = &RX[j];
    r->in[0] = j % KSP, r->in[1] = (j * 7 + 3) % KSP, r->out[0] = (j * 5 + 1) % KSP, r->out[1] = (j * 11 + 6) % KSP;
    r->A = 1 + 9 * NEXT(), r->b = 2 * NEXT() - 1, r->E = 1000 + 9000 * NEXT();
    r->Ar = 1 + 9 * NEXT(), r->br = 2 * NEXT() - 1, r->Er = 2000 + 12000 * NEXT();
    r->h0 = 1e4 * (NEXT() - 0.5), r->h1 = 2 * (NEXT() - 0.5);
  }
  for (int i = 0; i < KSP; i++)
    CP[i][0] = 20 + 10 * NEXT(), CP[i][1] = 1e-2 * NEXT(), CP[i][2] = 1e-6 * NEXT();
#undef NEXT
  for (int i = 0; i < KSP; i++)
    K0[i] = 0.05 + 0.5 * (i % 4) / 3.0 + 0.01 * i;
  K0[KSP] = 1200;
}

__attribute__((noinline)) void kinetics(const double *y, double *dy) {
  const double T = y[KSP], logT = log(T), invT = 1 / T;
  double heat = 0, cp = 0;
  for (int i = 0; i < KSP; i++)
    dy[i] = 0, cp += y[i] * (CP[i][0] + T * (CP[i][1] + T * CP[i][2]));
  for (int j = 0; j < KRX; j++) {
    const reaction *r = &RX[j];
    double kf = r->A * exp(r->b * logT - r->E * invT), kr = r->Ar * exp(r->br * logT - r->Er * invT);
    double q = kf * y[r->in[0]] * y[r->in[1]] - kr * y[r->out[0]] * y[r->out[1]];
    dy[r->in[0]] -= q, dy[r->in[1]] -= q, dy[r->out[0]] += q, dy[r->out[1]] += q;
    heat -= (r->h0 + r->h1 * T) * q;
  }
  dy[KSP] = heat / cp;
}

/* Column-major for forward (column j = dy/dy_j), row-major for reverse:
 * both store J[r][c] at r * DIM + c. */
#define JAC_FORWARD(NAME, F, Y, N, W)                                                                      \
  static void NAME##_forward_##W(double *J) {                                                             \
    double seeds[W][N], outs[W][N], out[N];                                                               \
    for (int c0 = 0; c0 < N; c0 += W) {                                                                   \
      memset(seeds, 0, sizeof seeds);                                                                     \
      for (int l = 0; l < W; l++)                                                                         \
        seeds[l][c0 + l] = 1;                                                                             \
      __enzyme_fwddiff((void *)F, enzyme_width, W, enzyme_dupv, sizeof seeds[0], Y, &seeds[0][0],         \
                       enzyme_dupnoneedv, sizeof outs[0], out, &outs[0][0]);                              \
      for (int l = 0; l < W; l++)                                                                         \
        for (int r = 0; r < N; r++)                                                                       \
          J[r * N + c0 + l] = outs[l][r];                                                                 \
    }                                                                                                     \
  }
#define JAC_REVERSE(NAME, F, Y, N, W)                                                                      \
  static void NAME##_reverse_##W(double *J) {                                                             \
    double adj[W][N], seeds[W][N], out[N];                                                                \
    for (int r0 = 0; r0 < N; r0 += W) {                                                                   \
      memset(adj, 0, sizeof adj), memset(seeds, 0, sizeof seeds);                                         \
      for (int l = 0; l < W; l++)                                                                         \
        seeds[l][r0 + l] = 1;                                                                             \
      __enzyme_autodiff((void *)F, enzyme_width, W, enzyme_dupv, sizeof adj[0], Y, &adj[0][0],            \
                        enzyme_dupnoneedv, sizeof seeds[0], out, &seeds[0][0]);                           \
      for (int l = 0; l < W; l++)                                                                         \
        memcpy(J + (r0 + l) * N, adj[l], sizeof adj[l]);                                                  \
    }                                                                                                     \
  }
/* Forward widths 1, 4, 8 and reverse widths 1, 2, 4 of one right-hand side. */
#define JACOBIANS(NAME, F, Y, N)                                                                           \
  JAC_FORWARD(NAME, F, Y, N, 1)                                                                            \
  JAC_FORWARD(NAME, F, Y, N, 4)                                                                            \
  JAC_FORWARD(NAME, F, Y, N, 8)                                                                            \
  JAC_REVERSE(NAME, F, Y, N, 1)                                                                            \
  JAC_REVERSE(NAME, F, Y, N, 2)                                                                            \
  JAC_REVERSE(NAME, F, Y, N, 4)
JACOBIANS(ode, rhs, Y0, DIM)
JACOBIANS(kin, kinetics, K0, KDIM)

/* ---- checks and timing ---- */
static int failures;

static void check_same(const char *what, const double *got, const double *want, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (!(fabs(got[k] - want[k]) <= 1e-12 * (1 + fabs(want[k])))) {
      printf("FAIL %s: entry %zu is %.17g, want %.17g\n", what, k, got[k], want[k]);
      failures++;
      return;
    }
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Best of `reps` runs of `f` repeated `inner` times, in ms. */
static double best_ms(void (*f)(double *), double *J, int inner, int reps) {
  double best = 1e30;
  for (int k = 0; k < reps; k++) {
    double t = now();
    for (int i = 0; i < inner; i++)
      f(J);
    t = now() - t;
    best = t < best ? t : best;
  }
  return 1e3 * best;
}

/* Central differences (relative step) against the Jacobian J[r * n + c] of f at y. */
static void check_differences(const char *name, void (*f)(const double *, double *), const double *y, int n,
                              const double *J) {
  double yp[DIM], ym[DIM], fp[DIM], fm[DIM];
  for (int c = 0; c < n; c++) {
    double h = 1e-6 * (1 + fabs(y[c]));
    memcpy(yp, y, n * sizeof *y), memcpy(ym, y, n * sizeof *y);
    yp[c] += h, ym[c] -= h;
    f(yp, fp), f(ym, fm);
    for (int r = 0; r < n; r++) {
      double fd = (fp[r] - fm[r]) / (2 * h), ad = J[r * n + c];
      if (!(fabs(fd - ad) <= 1e-5 * (1 + fabs(ad)))) {
        printf("FAIL %s finite difference: entry (%d, %d): %.10g vs %.10g\n", name, r, c, ad, fd);
        failures++;
      }
    }
  }
}

typedef struct {
  const char *mode;
  int width;
  void (*f)(double *);
} variant;

static void run(const char *name, const char *what, const variant *vs, int nv, double *J, double *ref, size_t n,
                int inner, int reps, int timed) {
  for (int k = 0; k < nv; k++) {
    memset(J, 0, n * sizeof *J);
    vs[k].f(J);
    char label[64];
    snprintf(label, sizeof label, "%s %s width %d", name, vs[k].mode, vs[k].width);
    check_same(label, J, ref, n);
  }
  if (!timed)
    return;
  double base[2] = {0, 0};
  for (int k = 0; k < nv; k++) {
    double ms = best_ms(vs[k].f, J, inner, reps);
    int m = vs[k].mode[0] == 'r';
    if (vs[k].width == 1)
      base[m] = ms;
    printf("| %s | %s | %s | %d | %.2f | %.2f |\n", name, what, vs[k].mode, vs[k].width, ms, ms / base[m]);
  }
}

int main(int argc, char **argv) {
  int timed = !(argc > 1 && strcmp(argv[1], "--check") == 0);
  ba_setup(), kin_setup();
  for (int i = 0; i < DIM; i++)
    Y0[i] = (i % 2 ? 3.0 : 1.0) + 0.1 * sin(i);

  /* The references: forward mode at width 1, checked against central differences. */
  size_t nba = (size_t)NOBS * BA_OUT * BA_IN;
  double *ba_ref = malloc(nba * sizeof(double)), *ba_J = malloc(nba * sizeof(double));
  ba_forward_1(ba_ref);
  for (int o = 0; o < NOBS; o += 997) {
    double cam[CAMP], x[3], w = WS[o], ep[2], em[2], h = 1e-6;
    memcpy(cam, CAMS + CIDX[o] * CAMP, sizeof cam);
    memcpy(x, PTS + PIDX[o] * 3, sizeof x);
    for (int c = 0; c < BA_IN; c++) {
      double *v = c < CAMP ? &cam[c] : c < CAMP + 3 ? &x[c - CAMP] : &w, v0 = *v;
      *v = v0 + h, reproj(cam, x, &w, FEATS + 2 * o, ep);
      *v = v0 - h, reproj(cam, x, &w, FEATS + 2 * o, em);
      *v = v0;
      for (int r = 0; r < BA_OUT; r++) {
        double fd = (ep[r] - em[r]) / (2 * h), ad = ba_ref[o * BA_OUT * BA_IN + r * BA_IN + c];
        if (!(fabs(fd - ad) <= 1e-5 * (1 + fabs(ad)))) {
          printf("FAIL ba finite difference: observation %d, entry (%d, %d): %.10g vs %.10g\n", o, r, c, ad, fd);
          failures++;
        }
      }
    }
  }
  double *ode_ref = malloc(DIM * DIM * sizeof(double)), *ode_J = malloc(DIM * DIM * sizeof(double));
  double *kin_ref = malloc(KDIM * KDIM * sizeof(double)), *kin_J = malloc(KDIM * KDIM * sizeof(double));
  ode_forward_1(ode_ref), kin_forward_1(kin_ref);
  check_differences("ode", rhs, Y0, DIM, ode_ref);
  check_differences("kin", kinetics, K0, KDIM, kin_ref);

  const variant ba[] = {{"forward", 1, ba_forward_1}, {"forward", 4, ba_forward_4}, {"forward", 8, ba_forward_8},
                        {"reverse", 1, ba_reverse_1}, {"reverse", 2, ba_reverse_2}, {"reverse", 4, ba_reverse_4}};
  const variant ode[] = {{"forward", 1, ode_forward_1}, {"forward", 4, ode_forward_4},
                         {"forward", 8, ode_forward_8}, {"reverse", 1, ode_reverse_1},
                         {"reverse", 2, ode_reverse_2}, {"reverse", 4, ode_reverse_4}};
  const variant kin[] = {{"forward", 1, kin_forward_1}, {"forward", 4, kin_forward_4},
                         {"forward", 8, kin_forward_8}, {"reverse", 1, kin_reverse_1},
                         {"reverse", 2, kin_reverse_2}, {"reverse", 4, kin_reverse_4}};
  if (timed) {
    printf("| benchmark | Jacobian | mode | width | time (ms) | / width 1 |\n");
    printf("|---|---|---|---:|---:|---:|\n");
  }
  run("ba", "10^4 blocks of 2 x 15", ba, 6, ba_J, ba_ref, nba, 1, 5, timed);
  run("ode", "48 x 48, x2000", ode, 6, ode_J, ode_ref, DIM * DIM, ODE_REPS, 5, timed);
  run("kin", "16 x 16, x2000", kin, 6, kin_J, kin_ref, KDIM * KDIM, KIN_REPS, 5, timed);
  free(ba_ref), free(ba_J), free(ode_ref), free(ode_J), free(kin_ref), free(kin_J);
  if (failures) {
    printf("jacobians: %d checks failed\n", failures);
    return 1;
  }
  if (!timed)
    printf("jacobians: every width agrees with forward width 1, which agrees with finite differences\n");
  return 0;
}
