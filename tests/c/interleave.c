/* enzyme_interleave, as MFEM writes its calls: an activity marker holds for
 * every primal after it, the primals come first, then enzyme_interleave,
 * then the shadows of the duplicated ones in the same order, then markers
 * for the whole call. Checked against the usual order, both modes. */
#include "check.h"

extern int enzyme_interleave, enzyme_width, enzyme_runtime_activity;

typedef struct {
  double scale;
} context;

/* A quadrature-point kernel: out = scale * (a . b) + |a|^2. */
__attribute__((noinline)) void qfunc(const context *ctx, const double *a, const double *b, double *out) {
  double s = 0, q = 0;
  for (int i = 0; i < 3; i++)
    s += a[i] * b[i], q += a[i] * a[i];
  *out = ctx->scale * s + q;
}

int main(void) {
  context ctx = {1.5};
  double a[3] = {0.5, -1.0, 2.0}, b[3] = {1.0, 0.25, -0.5}, out;
  /* Forward: tangents of a and b, interleaved form against the usual one. */
  double da[3] = {1.0, 0.5, -2.0}, db[3] = {0.0, 1.0, 3.0}, dout = 0, dout_usual = 0;
  __enzyme_fwddiff((void *)qfunc, enzyme_const, &ctx, enzyme_dup, a, b, &out, enzyme_interleave, da, db, &dout);
  __enzyme_fwddiff((void *)qfunc, enzyme_const, &ctx, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_dup, &out,
                   &dout_usual);
  double want = 0;
  for (int i = 0; i < 3; i++)
    want += 1.5 * (da[i] * b[i] + a[i] * db[i]) + 2 * a[i] * da[i];
  CHECK("forward, interleaved vs usual order", dout, dout_usual, 0);
  CHECK("forward, interleaved vs analytic", dout, want, 1e-12);
  /* With a marker for the whole call after the shadows. */
  double dout2 = 0;
  __enzyme_fwddiff((void *)qfunc, enzyme_const, &ctx, enzyme_dup, a, b, &out, enzyme_interleave, da, db, &dout2,
                   enzyme_runtime_activity);
  CHECK("forward, interleaved with a trailing marker", dout2, want, 1e-12);

  /* Reverse: adjoints of a and b. */
  double ga[3] = {0}, gb[3] = {0}, seed = 1.0;
  __enzyme_autodiff((void *)qfunc, enzyme_const, &ctx, enzyme_dup, a, b, &out, enzyme_interleave, ga, gb, &seed);
  for (int i = 0; i < 3; i++) {
    CHECK("reverse, interleaved d/da", ga[i], 1.5 * b[i] + 2 * a[i], 1e-12);
    CHECK("reverse, interleaved d/db", gb[i], 1.5 * a[i], 1e-12);
  }

  /* Vector mode: two shadows per duplicated primal, in order. */
  double ta[2][3] = {{1, 0, 0}, {0, 0, 1}}, tb[2][3] = {{0, 0, 0}, {0, 0, 0}}, to[2] = {0, 0};
  __enzyme_fwddiff((void *)qfunc, enzyme_width, 2, enzyme_const, &ctx, enzyme_dup, a, b, &out, enzyme_interleave,
                   ta[0], ta[1], tb[0], tb[1], &to[0], &to[1]);
  CHECK("vector lane 0, interleaved", to[0], 1.5 * b[0] + 2 * a[0], 1e-12);
  CHECK("vector lane 1, interleaved", to[1], 1.5 * b[2] + 2 * a[2], 1e-12);
  return CHECK_DONE();
}
