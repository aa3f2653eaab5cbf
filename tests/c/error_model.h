/* Enzyme's error model written out by hand, for the error-estimate tests:
 * an operation's error is the larger of one unit in the last place of its
 * result and the errors propagated from its operands. */
#ifndef ERROR_MODEL_H
#define ERROR_MODEL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* |r - r'| with r' the last significand bit of r flipped. */
static double ulp(double r) {
  uint64_t b;
  memcpy(&b, &r, sizeof b);
  b ^= 1;
  double f;
  memcpy(&f, &b, sizeof f);
  return fabs(r - f);
}
/* e(r) from the propagated errors. */
static double err(double r, double propagated) { return fmax(ulp(r), propagated); }

#endif
