// expect: cannot differentiate call to external function `mystery_kernel` in `apply_table`
/* A call through a table of functions is differentiated through each
 * function the table may hold; one of them has no body and no rule. */
double __enzyme_autodiff(void *, ...);
double mystery_kernel(double);

static double twice(double x) { return 2 * x; }
double (*table[2])(double) = {twice, mystery_kernel}; /* chosen at run time */

double apply_table(double x, int k) { return table[k](x) + x; }

int main(int argc, char **argv) {
  (void)argv;
  return (int)__enzyme_autodiff((void *)apply_table, 1.5, argc - 1);
}
