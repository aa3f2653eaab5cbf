// expect: the shadow given for argument 2 of `f` is NULL
// expect: null_shadow.c:11
/* A duplicated pointer whose shadow is the constant NULL (issue 39, item
 * 7): refused at build time, naming the argument. */
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
static void f(const double *x, double *y) { y[0] = x[0] * x[0]; }

int main(void) {
  double x = 3, dx = 0, y;
  __enzyme_autodiff((void *)f, enzyme_dup, &x, &dx,
                    enzyme_dup, &y, (double *)0);
  return dx != 6;
}
