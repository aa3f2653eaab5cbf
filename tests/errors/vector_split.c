// expect: vector mode (`enzyme_width`) of `__enzyme_augmentfwd` is not supported yet
// expect: vector_split.c:10
/* Split mode takes one seed. */
extern int enzyme_width, enzyme_dup;
void *__enzyme_augmentfwd(void *, ...);
static void sq(double *x) { *x = *x * *x; }

int main(void) {
  double x = 3.0, d0 = 0, d1 = 0;
  void *tape = __enzyme_augmentfwd((void *)sq, enzyme_width, 2, enzyme_dup, &x, &d0, &d1);
  return tape != 0;
}
