// expect: call of `fill`, registered inactive, which may write memory that carries derivatives (argument 1)
// expect: inactive_overwrite.c:14
/* A function registered inactive overwriting memory that holds
 * differentiated values (issue 39, item 5): its writes have no derivative,
 * but the derivatives of what they overwrite would stay in place (the
 * derivative came out 4 instead of 0.5). Refused. */
double __enzyme_autodiff(void *, ...);
__attribute__((noinline)) static void fill(double *b, int n) { for (int k = 0; k < n; k++) b[k] = 0.5 * k; }
void *__enzyme_inactivefn[1] = {(void *)fill};

static double f(double x) {
  double b[3];
  for (int k = 0; k < 3; k++) b[k] = x * k;
  fill(b, 3);
  return b[0] + b[1] * x + b[2];
}

int main(void) { return __enzyme_autodiff((void *)f, 1.5) != 0.5; }
