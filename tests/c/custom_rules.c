/* Custom derivatives in Enzyme's conventions: __enzyme_register_derivative_f
 * (forward) and __enzyme_register_gradient_f (augmented forward + reverse),
 * for a function the engine could not differentiate itself (float bit
 * tricks), a function of pointers, a tape kept between the two halves, a
 * {tape, primal} result, calls in loops and under recursion. Checked against
 * closed forms, forward against reverse, and finite differences. */
#include <string.h>
#include "check.h"

/* Quake's inverse square root, refined: bit manipulation of floats, which
 * has no derivative of its own. d/dx x^-1/2 = -x^-3/2 / 2. */
static double rsqrt(double x) {
  float xf = (float)x, y;
  int i;
  memcpy(&i, &xf, sizeof i);
  i = 0x5f3759df - (i >> 1);
  memcpy(&y, &i, sizeof y);
  double r = y;
  for (int k = 0; k < 4; k++) r = r * (1.5 - 0.5 * x * r * r);
  return r;
}
static double rsqrt_aug(double x) { return rsqrt(x); } /* the primal; no tape */
static double rsqrt_rev(double x, double dr) { return -0.5 * dr * rsqrt(x) / x; }
static double rsqrt_fwd(double x, double dx) { return -0.5 * dx * rsqrt(x) / x; } /* the tangent */
void *__enzyme_register_gradient_rsqrt[3] = {(void *)rsqrt, (void *)rsqrt_aug, (void *)rsqrt_rev};
void *__enzyme_register_derivative_rsqrt[2] = {(void *)rsqrt, (void *)rsqrt_fwd};

/* Pointers: dest = src^2, with shadows passed to the rules. */
static void square(const double *src, double *dest) { *dest = *src * *src; }
static void *square_aug(const double *src, const double *dsrc, double *dest, double *ddest) {
  (void)dsrc;
  (void)ddest;
  *dest = *src * *src;
  double *tape = malloc(sizeof(double)); /* what the reverse needs: src */
  *tape = *src;
  return tape;
}
static void square_rev(const double *src, double *dsrc, const double *dest, double *ddest, void *tape) {
  (void)src;
  (void)dest;
  double s = *(double *)tape;
  *dsrc += 2 * s * *ddest;
  *ddest = 0;
  free(tape);
}
static void square_fwd(const double *src, const double *dsrc, double *dest, double *ddest) {
  *dest = *src * *src;
  *ddest = 2 * *src * *dsrc;
}
void *__enzyme_register_gradient_square[3] = {(void *)square, (void *)square_aug, (void *)square_rev};
void *__enzyme_register_derivative_square[2] = {(void *)square, (void *)square_fwd};

/* Two float parameters, {tape, primal} from the augmented function, and
 * {primal, tangent} from the forward rule. */
typedef struct {
  double tape;
  double value;
} aug_t;
typedef struct {
  double dx, dy;
} grad_t;
typedef struct {
  double value, tangent;
} dual_t;
static double hyp(double x, double y) { return sqrt(x * x + y * y); }
static aug_t hyp_aug(double x, double y) {
  double h = hyp(x, y);
  return (aug_t){h, h};
}
static grad_t hyp_rev(double x, double y, double dh, double h) { return (grad_t){dh * x / h, dh * y / h}; }
static dual_t hyp_fwd(double x, double dx, double y, double dy) {
  double h = hyp(x, y);
  return (dual_t){h, (x * dx + y * dy) / h};
}
void *__enzyme_register_gradient_hyp[3] = {(void *)hyp, (void *)hyp_aug, (void *)hyp_rev};
void *__enzyme_register_derivative_hyp[2] = {(void *)hyp, (void *)hyp_fwd};

/* Used in a loop, through pointers, and under recursion. */
static double loop_user(double x) {
  double s = 0;
  for (int k = 1; k <= 4; k++) {
    double t = x * k, sq;
    square(&t, &sq);
    s += rsqrt(sq + 1.0) * hyp(x, 0.5 * k);
  }
  return s;
}
static double closed_loop_user(double x) {
  double d = 0;
  for (int k = 1; k <= 4; k++) {
    double q = x * x * k * k + 1, r = 1 / sqrt(q), h = sqrt(x * x + 0.25 * k * k);
    d += -0.5 * r / q * 2 * x * k * k * h + r * x / h;
  }
  return d;
}
static double recursive_user(double x, int n) {
  if (n == 0)
    return x;
  return hyp(recursive_user(x, n - 1), 1.0) * 0.5 + rsqrt(x + n);
}
static double plain_loop(double x) {
  double s = 0;
  for (int k = 1; k <= 4; k++) s += 1 / sqrt(x * x * k * k + 1.0) * sqrt(x * x + 0.25 * k * k);
  return s;
}
static double plain_recursive(double x, int n) {
  if (n == 0)
    return x;
  double h = plain_recursive(x, n - 1);
  return sqrt(h * h + 1.0) * 0.5 + 1 / sqrt(x + n);
}
static double recursive3(double x) { return recursive_user(x, 3); }
static double plain3(double x) { return plain_recursive(x, 3); }

int main(void) {
  for (double x = 0.4; x < 2.5; x += 0.7) {
    double rev = __enzyme_autodiff((void *)loop_user, x);
    double fwd = __enzyme_fwddiff((void *)loop_user, enzyme_dup, x, 1.0);
    CHECK("loop: reverse vs closed form", rev, closed_loop_user(x), 1e-9);
    CHECK("loop: forward vs reverse", fwd, rev, TOL_MODES);
    CHECK("loop: finite difference of the exact function", central_diff(plain_loop, x), rev, 1e-6);

    double rr = __enzyme_autodiff((void *)recursive3, x);
    double rf = __enzyme_fwddiff((void *)recursive3, enzyme_dup, x, 1.0);
    CHECK("recursion: reverse vs finite difference", rr, central_diff(plain3, x), 1e-6);
    CHECK("recursion: forward vs reverse", rf, rr, 1e-12);
  }
  return CHECK_DONE();
}
