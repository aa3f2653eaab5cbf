// expect: `enzyme_interleave` call has fewer shadows than duplicated primals
// expect: interleave_shadows.c:11
/* Three duplicated primals, two shadows. */
extern int enzyme_dup, enzyme_interleave;
void __enzyme_fwddiff(void *, ...);
__attribute__((noinline)) void f(const double *a, const double *b, double *c) { *c = *a * *b; }

int main(void) {
  double a = 1, b = 2, c, da = 1, db = 0;
  // the call below
  __enzyme_fwddiff(
      (void *)f, enzyme_dup, &a, &b, &c, enzyme_interleave, &da, &db);
  return 0;
}
