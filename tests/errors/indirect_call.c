// expect: cannot differentiate indirect call through a function pointer in `apply_table`
// expect: indirect_call.c:9
double __enzyme_autodiff(void *, ...);

static double twice(double x) { return 2 * x; }
static double square(double x) { return x * x; }
double (*table[2])(double) = {twice, square}; /* chosen at run time */

double apply_table(double x, int k) { return table[k](x) + x; }

int main(int argc, char **argv) {
  (void)argv;
  return (int)__enzyme_autodiff((void *)apply_table, 1.5, argc - 1);
}
