// expect: global `weights` is passed as a duplicated argument and also used directly by `model`
// expect: global_passed_and_used.c:18
// expect: access it only through the argument
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

double weights[3] = {0.5, -1.0, 2.0};

/* Reads the global directly as well as through `w`: with `weights` passed
 * as `w`, the derivative through the direct read would be lost. */
double model(const double *w) {
  return w[0] * weights[1] + w[2] * w[2];
}

int main(void) {
  double dw[3] = {0, 0, 0};
  /* the call the error points at */
  __enzyme_autodiff((void *)model, enzyme_dup, weights, dw);
  return (int)dw[0];
}
