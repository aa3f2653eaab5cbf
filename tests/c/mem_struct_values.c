/* Small structs by value (returned in registers, as complex arithmetic
 * does) between helpers, and a helper returning one of two pointers. */
#include "jacobian.h"

typedef struct {
  double re, im;
} cplx;

static cplx cmul(cplx a, cplx b) { return (cplx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
static cplx cadd(cplx a, cplx b) { return (cplx){a.re + b.re, a.im + b.im}; }

/* z -> z^3 + c, iterated a few times (a Mandelbrot-style map) */
static void cubic_map(const double *x, double *y) {
  cplx z = {x[0], x[1]}, c = {x[2], x[3]};
  for (int k = 0; k < 4; k++) z = cadd(cmul(cmul(z, z), z), c);
  y[0] = z.re;
  y[1] = z.im;
}

static const double *pick(const double *a, const double *b, int k) { return k ? a : b; }

static int which;
static void picked(const double *x, double *y) {
  const double *p = pick(x, x + 2, which);
  y[0] = p[0] * p[1] + x[3];
}

int main(void) {
  CHECK_JACOBIAN(cubic_map, 4, 2, 0.3, -0.2, 0.1, 0.25);
  for (which = 0; which < 2; which++) CHECK_JACOBIAN(picked, 4, 1, 0.5, 1.5, -2.0, 0.75);
  return CHECK_DONE();
}
