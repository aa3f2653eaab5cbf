/* ADBench's bundle-adjustment model, shared by bench/kernels/ba.c and
 * bench/vector/jacobians.c: one observation's reprojection error through a
 * camera of 11 parameters (Rodrigues rotation, centre, focal length,
 * principal point, two radial distortion terms), weighted by w. */
#ifndef BA_MODEL_H
#define BA_MODEL_H
#include <math.h>

static void cross(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

static void rodrigues_rotate(const double *rot, const double *x, double *out) {
  double sq = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2], wx[3];
  if (sq != 0) {
    double theta = sqrt(sq), c = cos(theta), s = sin(theta), w[3] = {rot[0] / theta, rot[1] / theta, rot[2] / theta};
    cross(w, x, wx);
    double t = (w[0] * x[0] + w[1] * x[1] + w[2] * x[2]) * (1 - c);
    for (int i = 0; i < 3; i++) out[i] = x[i] * c + wx[i] * s + w[i] * t;
  } else {
    cross(rot, x, wx);
    for (int i = 0; i < 3; i++) out[i] = x[i] + wx[i];
  }
}

static void reproj(const double *cam, const double *x, const double *w, const double *feat, double *err) {
  double d[3] = {x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]}, xc[3];
  rodrigues_rotate(cam, d, xc);
  double px = xc[0] / xc[2], py = xc[1] / xc[2], rsq = px * px + py * py;
  double l = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
  err[0] = *w * (px * l * cam[6] + cam[7] - feat[0]);
  err[1] = *w * (py * l * cam[6] + cam[8] - feat[1]);
}

#endif
