/* ADBench's bundle adjustment: the Jacobian of the reprojection errors.
 * Each observation projects a 3-D point through a camera of 11 parameters
 * (Rodrigues rotation, centre, focal length, principal point, two radial
 * distortion terms) and weighs the 2-D error by w; each also has the weight
 * residual 1 - w^2. The Jacobian is sparse: per observation a 2 x 15 block
 * (camera, point, weight) and one entry -2w. Our Jacobian takes two reverse
 * passes (one per error component) or 15 forward passes per observation.
 * n cameras, m points, p = N observations (default 10^4). */
#define CUSTOM_CHECK
#include "../bench.h"
static const char *NAME = "ba";
enum { NCAM = 50, NPT = 2000, CAMP = 11, COLS = CAMP + 3 + 1 };
static int NOBS;
static double CAMS[NCAM * CAMP], PTS[NPT * 3], *W, *FEATS, *ERRS, *JAC;
static int *CIDX, *PIDX;

#include "ba_model.h"

static void setup(int n) {
  NOBS = n ? n : 10000;
  for (int c = 0; c < NCAM; c++) {
    double *cam = CAMS + c * CAMP;
    cam[0] = 0.1 * sin(c), cam[1] = 0.1 * cos(1.3 * c), cam[2] = c == 0 ? 0 : 0.05 * sin(0.7 * c); /* c = 0: no rotation */
    cam[3] = 0.3 * sin(0.5 * c), cam[4] = 0.3 * cos(0.5 * c), cam[5] = -10 + 0.1 * c;
    cam[6] = 1 + 0.01 * c, cam[7] = 0.01 * sin(c), cam[8] = 0.01 * cos(c), cam[9] = 1e-3 * (1 + c % 3), cam[10] = 1e-4;
  }
  for (int i = 0; i < NPT * 3; i++) PTS[i] = sin(0.91 * i);
  W = malloc(NOBS * sizeof *W), FEATS = malloc(2 * NOBS * sizeof *FEATS), ERRS = malloc(3 * NOBS * sizeof *ERRS);
  CIDX = malloc(NOBS * sizeof *CIDX), PIDX = malloc(NOBS * sizeof *PIDX);
  JAC = calloc((size_t)NOBS * (2 * COLS + 1), sizeof *JAC);
  for (int i = 0; i < NOBS; i++) {
    CIDX[i] = i % NCAM, PIDX[i] = (int)((7L * i) % NPT), W[i] = 0.8 + 0.1 * sin(i);
    FEATS[2 * i] = 0.05 * sin(0.3 * i), FEATS[2 * i + 1] = 0.05 * cos(0.2 * i);
  }
}

/* All residuals: 2 per observation, then one weight residual each. */
static double primal(void) {
  for (int i = 0; i < NOBS; i++) reproj(CAMS + CIDX[i] * CAMP, PTS + PIDX[i] * 3, W + i, FEATS + 2 * i, ERRS + 2 * i);
  for (int i = 0; i < NOBS; i++) ERRS[2 * NOBS + i] = 1 - W[i] * W[i];
  return ERRS[0];
}

/* Row r of observation i's block is at JAC + i * (2 COLS + 1) + r * COLS, in
 * the order camera, point, weight; the weight residual's entry is last. */
static void reverse(void) {
  for (int i = 0; i < NOBS; i++) {
    double *row = JAC + (size_t)i * (2 * COLS + 1), err[2];
    for (int r = 0; r < 2; r++) {
      double *jr = row + r * COLS, derr[2] = {r == 0, r == 1};
      memset(jr, 0, COLS * sizeof *jr);
      __enzyme_autodiff((void *)reproj, enzyme_dup, CAMS + CIDX[i] * CAMP, jr, enzyme_dup, PTS + PIDX[i] * 3,
                        jr + CAMP, enzyme_dup, W + i, jr + CAMP + 3, enzyme_const, FEATS + 2 * i, enzyme_dupnoneed, err,
                        derr);
    }
    row[2 * COLS] = -2 * W[i];
  }
}

static void forward(void) {
  for (int i = 0; i < NOBS; i++) {
    double *row = JAC + (size_t)i * (2 * COLS + 1), err[2], derr[2];
    for (int c = 0; c < COLS; c++) {
      double t[COLS] = {0};
      t[c] = 1;
      __enzyme_fwddiff((void *)reproj, enzyme_dup, CAMS + CIDX[i] * CAMP, t, enzyme_dup, PTS + PIDX[i] * 3, t + CAMP,
                       enzyme_dup, W + i, t + CAMP + 3, enzyme_const, FEATS + 2 * i, enzyme_dupnoneed, err, derr);
      row[c] = derr[0], row[COLS + c] = derr[1];
    }
    row[2 * COLS] = -2 * W[i];
  }
}

/* Central differences of observation i's errors in one of its inputs. */
static double fd_entry(int i, int r, int c) {
  double cam[CAMP], x[3], w = W[i], ep[2], em[2], h = 1e-6;
  memcpy(cam, CAMS + CIDX[i] * CAMP, sizeof cam), memcpy(x, PTS + PIDX[i] * 3, sizeof x);
  double *v = c < CAMP ? cam + c : c < CAMP + 3 ? x + c - CAMP : &w, keep = *v;
  *v = keep + h, reproj(cam, x, &w, FEATS + 2 * i, ep);
  *v = keep - h, reproj(cam, x, &w, FEATS + 2 * i, em);
  return (ep[r] - em[r]) / (2 * h);
}

static int check(void) {
  int f = 0;
  size_t len = (size_t)NOBS * (2 * COLS + 1);
  reverse();
  double *rev = malloc(len * sizeof *rev);
  memcpy(rev, JAC, len * sizeof *rev);
  for (int i = 0; i < NOBS; i += NOBS / 17 + 1) /* camera 0 has no rotation: the other branch */
    for (int r = 0; r < 2; r++)
      for (int c = 0; c < COLS; c++)
        f += check_close("reverse Jacobian vs finite difference", rev[(size_t)i * (2 * COLS + 1) + r * COLS + c],
                         fd_entry(i, r, c), 1e-5);
  memset(JAC, 0, len * sizeof *JAC);
  forward();
  for (size_t e = 0; e < len; e++) f += check_close("forward Jacobian vs reverse", JAC[e], rev[e], 1e-9);
  free(rev);
  return f;
}

static void dump(void) {
  reverse();
  for (size_t e = 0; e < (size_t)NOBS * (2 * COLS + 1); e++) printf("%.17g\n", JAC[e]);
}
#define HAVE_FORWARD
#include "../harness.h"
