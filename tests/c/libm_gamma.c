/* lgamma and tgamma (through ψ, the digamma function the engine adds),
 * ldexp, frexp, remainder, sincos and modf (results through pointers): reverse against closed forms (ψ at known
 * points) and finite differences, forward against reverse; printf with float
 * arguments and clock() inside the differentiated code carry no derivative. */
#define _GNU_SOURCE /* sincos */
#include <time.h>
#include "check.h"

static double lg(double x) { return lgamma(x); }
static double tg(double x) { return tgamma(x); }
static double scaled(double x) { return ldexp(x * x, 3); } /* 8 x^2 */
static double mantissa(double x) {
  int e;
  return frexp(x, &e) * (1 << e) * x; /* x^2, through frexp */
}
static double rem(double x) { return remainder(x * x, 0.7); }
static double noisy(double x) {
  printf("evaluating at %g\n", x); /* float arguments, no derivative */
  (void)clock();
  return lgamma(x * x + 1.0) * x;
}
static float lgf(float x) { return lgammaf(x); }
static double sc(double x) {
  double s, c;
  sincos(x * x, &s, &c);
  return s * c; /* sin(2x²)/2 */
}
static double mf(double x) {
  double whole;
  double frac = modf(3.0 * x, &whole);
  return frac * frac + whole;
}

int main(void) {
  const double euler = 0.57721566490153286;
  /* ψ(1) = -γ, ψ(1/2) = -γ - 2 ln 2, ψ(5) = 1 + 1/2 + 1/3 + 1/4 - γ. */
  CHECK_UNARY(lg, 1.0, -euler);
  CHECK_UNARY(lg, 0.5, -euler - 2 * log(2.0));
  CHECK_UNARY(lg, 5.0, 1 + 0.5 + 1.0 / 3 + 0.25 - euler);
  CHECK_UNARY(lg, 20.0, 2.9705239922421490509); /* ψ(20) */
  /* Negative arguments (reflection): ψ(-1/2) = ψ(1/2) + 2. */
  CHECK_UNARY(lg, -0.5, -euler - 2 * log(2.0) + 2);
  CHECK_UNARY(tg, 2.5, tgamma(2.5) * (-euler - 2 * log(2.0) + 1 / 0.5 + 1 / 1.5));
  CHECK_UNARY(scaled, 0.7, 16 * 0.7);
  CHECK_UNARY(mantissa, 3.3, 2 * 3.3);
  CHECK_UNARY(rem, 1.1, 2 * 1.1);
  CHECK_UNARY(sc, 0.7, cos(2 * 0.7 * 0.7) * 2 * 0.7);
  CHECK_UNARY(mf, 0.7, 2 * (3 * 0.7 - 2) * 3);
  for (double x = 0.3; x < 3; x += 0.9) {
    double rev = __enzyme_autodiff((void *)noisy, x);
    double fwd = __enzyme_fwddiff((void *)noisy, enzyme_dup, x, 1.0);
    CHECK("printf and clock: reverse vs finite difference", rev, central_diff(noisy, x), 1e-6);
    CHECK("printf and clock: forward vs reverse", fwd, rev, TOL_MODES);
  }
  CHECK_UNARY_F(lgf, 2.5f, -euler - 2 * log(2.0) + 1 / 0.5 + 1 / 1.5);
  return CHECK_DONE();
}
