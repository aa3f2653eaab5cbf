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

/* Hand-written Jacobian: one forward pass per observation keeping what the
 * adjoint needs, then the adjoint (reverse) of each error component from it
 * (two cheap reverse passes sharing the forward one). Rows as in `reverse`. */
static void cross3(const double *a, const double *b, double *c) { cross(a, b, c); }
static void hand(void) {
  for (int i = 0; i < NOBS; i++) {
    const double *cam = CAMS + CIDX[i] * CAMP, *x = PTS + PIDX[i] * 3, w = W[i], *feat = FEATS + 2 * i;
    double *row = JAC + (size_t)i * (2 * COLS + 1);
    double d[3] = {x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]}, xc[3], wv[3] = {0}, wxd[3];
    double sq = cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2], theta = 0, c = 1, s = 0, wd = 0;
    if (sq != 0) {
      theta = sqrt(sq), c = cos(theta), s = sin(theta);
      for (int k = 0; k < 3; k++) wv[k] = cam[k] / theta;
      cross3(wv, d, wxd);
      wd = wv[0] * d[0] + wv[1] * d[1] + wv[2] * d[2];
      for (int k = 0; k < 3; k++) xc[k] = d[k] * c + wxd[k] * s + wv[k] * wd * (1 - c);
    } else {
      cross3(cam, d, wxd);
      for (int k = 0; k < 3; k++) xc[k] = d[k] + wxd[k];
    }
    double px = xc[0] / xc[2], py = xc[1] / xc[2], rsq = px * px + py * py;
    double l = 1 + cam[9] * rsq + cam[10] * rsq * rsq, f = cam[6];
    for (int r = 0; r < 2; r++) {
      double *jr = row + r * COLS, *dcam = jr, *dx = jr + CAMP;
      double e0 = r == 0, e1 = r == 1;
      dcam[6] = w * l * (e0 * px + e1 * py);
      dcam[7] = e0 * w, dcam[8] = e1 * w;
      jr[CAMP + 3] = e0 * (px * l * f + cam[7] - feat[0]) + e1 * (py * l * f + cam[8] - feat[1]);
      double bpx = e0 * w * l * f, bpy = e1 * w * l * f, bl = w * f * (e0 * px + e1 * py);
      dcam[9] = bl * rsq, dcam[10] = bl * rsq * rsq;
      double brsq = bl * (cam[9] + 2 * cam[10] * rsq);
      bpx += 2 * px * brsq, bpy += 2 * py * brsq;
      double bxc[3] = {bpx / xc[2], bpy / xc[2], -(bpx * px + bpy * py) / xc[2]}, bd[3], brot[3], t[3];
      if (sq != 0) {
        double bw[3], bt = bxc[0] * wv[0] + bxc[1] * wv[1] + bxc[2] * wv[2];
        double bc = bxc[0] * d[0] + bxc[1] * d[1] + bxc[2] * d[2] - bt * wd;
        double bs = bxc[0] * wxd[0] + bxc[1] * wxd[1] + bxc[2] * wxd[2];
        cross3(bxc, wv, t); /* d·(bxc × w) = bxc·(w × d) */
        for (int k = 0; k < 3; k++) bd[k] = bxc[k] * c + s * t[k] + bt * (1 - c) * wv[k];
        cross3(d, bxc, t); /* w·(d × bxc) = bxc·(w × d) */
        for (int k = 0; k < 3; k++) bw[k] = s * t[k] + wd * (1 - c) * bxc[k] + bt * (1 - c) * d[k];
        double btheta = -s * bc + c * bs - (bw[0] * cam[0] + bw[1] * cam[1] + bw[2] * cam[2]) / sq;
        for (int k = 0; k < 3; k++) brot[k] = bw[k] / theta + btheta * cam[k] / theta;
      } else {
        cross3(bxc, cam, t);
        for (int k = 0; k < 3; k++) bd[k] = bxc[k] + t[k];
        cross3(d, bxc, brot);
      }
      for (int k = 0; k < 3; k++) dcam[k] = brot[k], dcam[3 + k] = -bd[k], dx[k] = bd[k];
    }
    row[2 * COLS] = -2 * w;
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
  memset(JAC, 0, len * sizeof *JAC);
  hand();
  for (size_t e = 0; e < len; e++) f += check_close("hand-written Jacobian vs reverse", JAC[e], rev[e], 1e-9);
  free(rev);
  return f;
}

static void dump(void) {
  reverse();
  for (size_t e = 0; e < (size_t)NOBS * (2 * COLS + 1); e++) printf("%.17g\n", JAC[e]);
}
#define HAVE_FORWARD
#define HAVE_HAND
#include "../harness.h"
