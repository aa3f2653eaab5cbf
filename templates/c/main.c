/*
 * enzyme-rs demo: the gradient of a small function by compiler AD, in both
 * modes, checked against central finite differences.
 *
 * Build:  enzyme-cc -O2 main.c -o demo -lm   (or: make)
 */
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>

/* The function to differentiate: ordinary C, nothing special about it. */
static double f(double x, double y) {
  double r = sin(x) * y + x * x / y;
  return x > 0 ? r : r + exp(x);
}

/* Several active arguments: their adjoints come back as a struct. */
typedef struct {
  double dx, dy;
} gradient;
gradient __enzyme_autodiff_xy(void *, ...);

int main(void) {
  double x = 1.2, y = 0.7;
  gradient g = __enzyme_autodiff_xy((void *)f, x, y);
  double tx = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0);
  double ty = __enzyme_fwddiff((void *)f, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0);
  double h = 1e-6;
  double fx = (f(x + h, y) - f(x - h, y)) / (2 * h);
  double fy = (f(x, y + h) - f(x, y - h)) / (2 * h);

  printf("f(x, y) = sin(x) * y + x^2 / y      at (x, y) = (%g, %g): f = %.10f\n", x, y, f(x, y));
  printf("  reverse mode (__enzyme_autodiff):  df/dx = %.10f  df/dy = %.10f\n", g.dx, g.dy);
  printf("  forward mode (__enzyme_fwddiff):   df/dx = %.10f  df/dy = %.10f\n", tx, ty);
  printf("  central finite difference (h=1e-6): df/dx = %.10f  df/dy = %.10f\n", fx, fy);
  double err = fmax(fmax(fabs(g.dx - fx), fabs(g.dy - fy)), fmax(fabs(tx - g.dx), fabs(ty - g.dy)));
  int ok = err < 1e-6;
  printf("  largest difference: %.1e -> %s\n", err, ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}
