// expect: the program defines `enzymeLogGrad` with a signature this engine does not call it with
// expect: log_grad_signature.c:14
/* An older Enzyme's gradient log (value, adjoint, names, operands): reverse
 * mode would never call it as written, so the request is refused. */
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
void enzymeLogGrad(double res, double grad, const char *opcode, const char *callee, const char *module,
                   const char *function, unsigned block, unsigned inst, unsigned n, double *operands) {
  printf("%s %g %g\n", opcode, res, grad);
}
double f(double x) { return x * x; }

int main(void) {
  double d = __enzyme_autodiff((void *)f, 3.0);
  return d != 6.0;
}
