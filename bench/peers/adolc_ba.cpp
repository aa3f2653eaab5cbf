/* Peer: the bundle-adjustment Jacobian of kernels/ba.c by ADOL-C. Each
 * observation's reprojection error is a function of 17 inputs (camera 11,
 * point 3, weight 1, and the 2 feature coordinates, which are inputs so one
 * tape serves every observation); the driver `jacobian` gives its 2 x 17
 * block, of which the first 15 columns are kept.
 *   retape: record each observation's tape, then its Jacobian
 *   reuse:  two tapes recorded once (the rotation's two branches), replayed
 * `dump` prints the Jacobian in kernels/ba.c's order. */
#include <adolc/adolc.h>

#include <cmath>
#include <vector>

#include "peer.h"

enum { NCAM = 50, NPT = 2000, CAMP = 11, COLS = CAMP + 3 + 1, NIN = COLS + 2 };

template <class T> static void cross(const T *a, const T *b, T *c) {
  c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

template <class T> static void reproj(const T *in, T *err) {
  const T *cam = in, *x = in + CAMP, &w = in[CAMP + 3], *feat = in + COLS;
  T d[3] = {x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]}, xc[3], wx[3];
  T sq = cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2];
  if (sq != 0) {
    T theta = sqrt(sq), c = cos(theta), s = sin(theta), u[3] = {cam[0] / theta, cam[1] / theta, cam[2] / theta};
    cross(u, d, wx);
    T t = (u[0] * d[0] + u[1] * d[1] + u[2] * d[2]) * (1 - c);
    for (int i = 0; i < 3; i++) xc[i] = d[i] * c + wx[i] * s + u[i] * t;
  } else {
    cross(cam, d, wx);
    for (int i = 0; i < 3; i++) xc[i] = d[i] + wx[i];
  }
  T px = xc[0] / xc[2], py = xc[1] / xc[2], rsq = px * px + py * py;
  T l = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
  err[0] = w * (px * l * cam[6] + cam[7] - feat[0]);
  err[1] = w * (py * l * cam[6] + cam[8] - feat[1]);
}

static double CAMS[NCAM * CAMP], PTS[NPT * 3];
static std::vector<double> W, FEATS, JAC;
static int NOBS;

static void inputs(int i, double *in) {
  std::memcpy(in, CAMS + (i % NCAM) * CAMP, CAMP * sizeof(double));
  std::memcpy(in + CAMP, PTS + (7L * i) % NPT * 3, 3 * sizeof(double));
  in[CAMP + 3] = W[i], in[COLS] = FEATS[2 * i], in[COLS + 1] = FEATS[2 * i + 1];
}

static void record(short tag, const double *in) {
  adouble a[NIN], e[2];
  double y[2];
  trace_on(tag);
  for (int j = 0; j < NIN; j++) a[j] <<= in[j];
  reproj(a, e);
  e[0] >>= y[0], e[1] >>= y[1];
  trace_off();
}

static void block(short tag, int i, double *in) {
  static double r0[NIN], r1[NIN];
  static double *rows[2] = {r0, r1};
  jacobian(tag, 2, NIN, in, rows);
  double *out = JAC.data() + (size_t)i * (2 * COLS + 1);
  std::memcpy(out, r0, COLS * sizeof(double)), std::memcpy(out + COLS, r1, COLS * sizeof(double));
  out[2 * COLS] = -2 * W[i];
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "reuse";
  NOBS = argc > 2 && atoi(argv[2]) ? atoi(argv[2]) : 10000;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  pin_to_core0();
  for (int c = 0; c < NCAM; c++) {
    double *cam = CAMS + c * CAMP;
    cam[0] = 0.1 * sin(c), cam[1] = 0.1 * cos(1.3 * c), cam[2] = c == 0 ? 0 : 0.05 * sin(0.7 * c);
    cam[3] = 0.3 * sin(0.5 * c), cam[4] = 0.3 * cos(0.5 * c), cam[5] = -10 + 0.1 * c;
    cam[6] = 1 + 0.01 * c, cam[7] = 0.01 * sin(c), cam[8] = 0.01 * cos(c), cam[9] = 1e-3 * (1 + c % 3), cam[10] = 1e-4;
  }
  for (int i = 0; i < NPT * 3; i++) PTS[i] = sin(0.91 * i);
  W.resize(NOBS), FEATS.resize(2 * NOBS), JAC.resize((size_t)NOBS * (2 * COLS + 1));
  for (int i = 0; i < NOBS; i++) {
    W[i] = 0.8 + 0.1 * sin(i);
    FEATS[2 * i] = 0.05 * sin(0.3 * i), FEATS[2 * i + 1] = 0.05 * cos(0.2 * i);
  }
  double in[NIN];
  inputs(1, in), record(1, in); /* camera 1 rotates */
  inputs(0, in), record(2, in); /* camera 0 does not */
  auto reuse = [] {
    double in[NIN];
    for (int i = 0; i < NOBS; i++) inputs(i, in), block(i % NCAM == 0 ? 2 : 1, i, in);
  };
  if (!strcmp(mode, "dump")) {
    reuse();
    for (double j : JAC) std::printf("%.17g\n", j);
  } else if (!strcmp(mode, "retape")) {
    time_mode("adolc-ba", mode, NOBS, reps, [] {
      double in[NIN];
      for (int i = 0; i < NOBS; i++) inputs(i, in), record(3, in), block(3, i, in);
    });
  } else if (!strcmp(mode, "reuse")) {
    time_mode("adolc-ba", mode, NOBS, reps, reuse);
  } else {
    std::fprintf(stderr, "adolc_ba: unknown mode `%s`\n", mode);
    return 2;
  }
  return 0;
}
