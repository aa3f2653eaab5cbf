/* One marker passed twice to an entry point: at -O2 both arguments are the
 * same load of `enzyme_dup`, which the engine erased twice (a use after
 * free inside enzyme-cc, seen only under valgrind). d/dx (x . y) = y. */
#include <math.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
static void dot(const double *x, const double *y, double *out) { *out = x[0] * y[0] + x[1] * y[1]; }
int main(void) {
  double x[2] = {0.5, -1.5}, dx[2] = {0, 0}, y[2] = {2, 3}, dy[2] = {0, 0}, out = 0, dout = 1;
  __enzyme_autodiff((void *)dot, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, &out, &dout);
  return fabs(dx[0] - 2) + fabs(dx[1] - 3) + fabs(dy[0] - 0.5) + fabs(dy[1] + 1.5) > 1e-12;
}
