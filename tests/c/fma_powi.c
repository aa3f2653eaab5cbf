/* fma, fmuladd (from contracted a*b+c) and powi (__builtin_powi). */
#include "check.h"

static double f_fma(double x, double y) { return fma(x, y, x * 0.5); }
static float f_fmaf(float x, float y) { return fmaf(x, y, x * 0.5f); }
#pragma STDC FP_CONTRACT ON
static double f_muladd(double x, double y) { return x * y + y; }
static double f_powi(double x) { return __builtin_powi(x, 5) + __builtin_powi(x, -2); }
static float f_powif(float x) { return __builtin_powif(x, 3); }

int main(void) {
  double x = 1.3, y = -0.4;
  CHECK_BINARY(f_fma, x, y, y + 0.5, x);
  CHECK_BINARY_F(f_fmaf, (float)x, (float)y, y + 0.5, x);
  CHECK_BINARY(f_muladd, x, y, y, x + 1.0);
  CHECK_UNARY(f_powi, x, 5 * pow(x, 4) - 2 * pow(x, -3));
  CHECK_UNARY_F(f_powif, (float)x, 3 * x * x);
  return CHECK_DONE();
}
