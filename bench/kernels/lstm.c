/* ADBench's LSTM objective: LSTM_L layers (default 2) of hidden size B = 14
 * run over a sequence of N characters (default 1024); the loss is the mean
 * log-probability of the next character. Gradient with respect to the
 * layers' weights and biases and the extra (input/output) parameters. The
 * state is copied into a local array, so every evaluation starts alike. */
#include "../bench.h"
#ifndef LSTM_L
#define LSTM_L 2
#endif
static const char *NAME = "lstm";
enum { L = LSTM_L, B = 14, MAIN = 8 * L * B, EXTRA = 3 * B };
static int NCHARS;
static double MAINP[MAIN], EXTRAP[EXTRA], STATE0[2 * L * B], *SEQ;
static double DMAIN[MAIN], DEXTRA[EXTRA], TMAIN[MAIN], TEXTRA[EXTRA];

static double sigmoid(double x) { return 1 / (1 + exp(-x)); }

/* One cell: weight and bias hold the forget, input, output and change gates. */
static void cell_step(const double *weight, const double *bias, double *hidden, double *cell, const double *input) {
  for (int i = 0; i < B; i++) {
    double forget = sigmoid(input[i] * weight[i] + bias[i]);
    double ingate = sigmoid(hidden[i] * weight[B + i] + bias[B + i]);
    double outgate = sigmoid(input[i] * weight[2 * B + i] + bias[2 * B + i]);
    double change = tanh(hidden[i] * weight[3 * B + i] + bias[3 * B + i]);
    cell[i] = cell[i] * forget + ingate * change;
    hidden[i] = outgate * tanh(cell[i]);
  }
}

static double lstm(const double *main_p, const double *extra, const double *state0, const double *seq, int c) {
  double state[2 * L * B], x[B], ypred[B];
  for (int i = 0; i < 2 * L * B; i++) state[i] = state0[i];
  double total = 0;
  for (int t = 0; t < c - 1; t++) {
    const double *in = seq + t * B, *gold = seq + (t + 1) * B;
    for (int i = 0; i < B; i++) x[i] = in[i] * extra[i];
    const double *layer_in = x;
    for (int l = 0; l < L; l++) {
      cell_step(main_p + l * 8 * B, main_p + l * 8 * B + 4 * B, state + l * 2 * B, state + l * 2 * B + B, layer_in);
      layer_in = state + l * 2 * B;
    }
    double m = -1e300, s = 0;
    for (int i = 0; i < B; i++) ypred[i] = layer_in[i] * extra[B + i] + extra[2 * B + i], m = ypred[i] > m ? ypred[i] : m;
    for (int i = 0; i < B; i++) s += exp(ypred[i] - m);
    double lse = m + log(s);
    for (int i = 0; i < B; i++) total += gold[i] * (ypred[i] - lse);
  }
  return -total / ((c - 1) * B);
}

static void setup(int n) {
  NCHARS = n ? n : 1024;
  SEQ = malloc((size_t)NCHARS * B * sizeof *SEQ);
  for (int i = 0; i < MAIN; i++) MAINP[i] = 0.5 * sin(0.37 * i + 1);
  for (int i = 0; i < EXTRA; i++) EXTRAP[i] = 0.8 + 0.3 * cos(0.53 * i);
  for (int i = 0; i < 2 * L * B; i++) STATE0[i] = 0.1 * sin(1.1 * i);
  for (int t = 0; t < NCHARS; t++) /* one-hot characters, as in ADBench's text input */
    for (int i = 0; i < B; i++) SEQ[t * B + i] = i == (t * 5 + t / 3) % B;
}
static int params(struct param *p) {
  p[0] = (struct param){"main", MAINP, DMAIN, TMAIN, MAIN};
  p[1] = (struct param){"extra", EXTRAP, DEXTRA, TEXTRA, EXTRA};
  return 2;
}
static double primal(void) { return lstm(MAINP, EXTRAP, STATE0, SEQ, NCHARS); }
static void reverse(void) {
  __enzyme_autodiff((void *)lstm, enzyme_dup, MAINP, DMAIN, enzyme_dup, EXTRAP, DEXTRA, enzyme_const, STATE0,
                    enzyme_const, SEQ, NCHARS);
}
static double forward(void) {
  return __enzyme_fwddiff((void *)lstm, enzyme_dup, MAINP, TMAIN, enzyme_dup, EXTRAP, TEXTRA, enzyme_const, STATE0,
                          enzyme_const, SEQ, NCHARS);
}
/* Hand-written adjoint: the forward sweep keeps, per character and layer,
 * the cell's input, its old hidden and cell state, its four gates and
 * tanh of the new cell state, and per character the softmax; then one
 * backward sweep over characters and layers. */
enum { KEPT = 8 }; /* input, hidden, cell, forget, ingate, outgate, change, tanh(new cell) */
static double *TAPE, *PROBS;
static void hand(void) {
  const int c = NCHARS;
  double state[2 * L * B], x[B], ypred[B];
  memcpy(state, STATE0, sizeof state);
  if (!TAPE) {
    TAPE = malloc((size_t)(c - 1) * L * KEPT * B * sizeof *TAPE);
    PROBS = malloc((size_t)(c - 1) * B * sizeof *PROBS);
  }
  for (int t = 0; t < c - 1; t++) {
    const double *in = SEQ + t * B;
    for (int i = 0; i < B; i++) x[i] = in[i] * EXTRAP[i];
    const double *layer_in = x;
    for (int l = 0; l < L; l++) {
      const double *w = MAINP + l * 8 * B, *bias = w + 4 * B;
      double *hidden = state + l * 2 * B, *cell = hidden + B, *k = TAPE + ((size_t)t * L + l) * KEPT * B;
      for (int i = 0; i < B; i++) {
        double f = sigmoid(layer_in[i] * w[i] + bias[i]);
        double ig = sigmoid(hidden[i] * w[B + i] + bias[B + i]);
        double og = sigmoid(layer_in[i] * w[2 * B + i] + bias[2 * B + i]);
        double ch = tanh(hidden[i] * w[3 * B + i] + bias[3 * B + i]);
        k[i] = layer_in[i], k[B + i] = hidden[i], k[2 * B + i] = cell[i];
        k[3 * B + i] = f, k[4 * B + i] = ig, k[5 * B + i] = og, k[6 * B + i] = ch;
        cell[i] = cell[i] * f + ig * ch;
        double tc = tanh(cell[i]);
        k[7 * B + i] = tc;
        hidden[i] = og * tc;
      }
      layer_in = hidden;
    }
    double m = -1e300, s = 0;
    for (int i = 0; i < B; i++) ypred[i] = layer_in[i] * EXTRAP[B + i] + EXTRAP[2 * B + i], m = ypred[i] > m ? ypred[i] : m;
    for (int i = 0; i < B; i++) s += exp(ypred[i] - m);
    for (int i = 0; i < B; i++) PROBS[t * B + i] = exp(ypred[i] - m) / s;
  }
  /* Backward: dh, dc the adjoints of each layer's state after the step. */
  double dh[L][B], dc[L][B], din[B];
  memset(dh, 0, sizeof dh);
  memset(dc, 0, sizeof dc);
  const double dtotal = -1.0 / ((double)(c - 1) * B);
  for (int t = c - 2; t >= 0; t--) {
    const double *gold = SEQ + (t + 1) * B, *p = PROBS + t * B;
    double golds = 0;
    for (int i = 0; i < B; i++) golds += gold[i];
    const double *top = TAPE + ((size_t)t * L + L - 1) * KEPT * B;
    for (int i = 0; i < B; i++) {
      double dy = dtotal * (gold[i] - golds * p[i]);
      DEXTRA[B + i] += dy * top[5 * B + i] * top[7 * B + i]; /* the top layer's new hidden state */
      DEXTRA[2 * B + i] += dy;
      dh[L - 1][i] += dy * EXTRAP[B + i];
    }
    for (int l = L - 1; l >= 0; l--) {
      const double *w = MAINP + l * 8 * B, *k = TAPE + ((size_t)t * L + l) * KEPT * B;
      double *dw = DMAIN + l * 8 * B, *db = dw + 4 * B;
      for (int i = 0; i < B; i++) {
        double in = k[i], h = k[B + i], cold = k[2 * B + i], f = k[3 * B + i], ig = k[4 * B + i];
        double og = k[5 * B + i], ch = k[6 * B + i], tc = k[7 * B + i];
        double dnew = dc[l][i] + dh[l][i] * og * (1 - tc * tc);
        double daf = dnew * cold * f * (1 - f), dai = dnew * ch * ig * (1 - ig);
        double dao = dh[l][i] * tc * og * (1 - og), dac = dnew * ig * (1 - ch * ch);
        dw[i] += daf * in, db[i] += daf;
        dw[B + i] += dai * h, db[B + i] += dai;
        dw[2 * B + i] += dao * in, db[2 * B + i] += dao;
        dw[3 * B + i] += dac * h, db[3 * B + i] += dac;
        din[i] = daf * w[i] + dao * w[2 * B + i];
        dh[l][i] = dai * w[B + i] + dac * w[3 * B + i];
        dc[l][i] = dnew * f;
      }
      if (l > 0)
        for (int i = 0; i < B; i++) dh[l - 1][i] += din[i];
      else
        for (int i = 0; i < B; i++) DEXTRA[i] += din[i] * SEQ[t * B + i];
    }
  }
}
#define HAVE_FORWARD
#define HAVE_HAND
#include "../harness.h"
