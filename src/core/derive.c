/* derive.c — the arithmetic of one cell, written out with the trace's own numbers,
 * for the screen's derivation line and the printer's handouts. Writes into the
 * caller's buffer (truncating safely); never allocates, never prints. */
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "qkv/derive.h"
#include "qkv/error.h"
#include "qkv/buffer.h"
#include "qkv/format.h"
#include "qkv/heads.h"

#define MAX_TERMS 6 /* sums longer than this are shown as their first terms and "…" */


/* A number as a derivation writes it, with what it stands for at its digits: the
 * value read back from the text and half a unit of its last place. One precision
 * per derivation: every number at `decimals` places, except an exact integer
 * ("3", exact, so no digits to speak of) and a tiny nonzero value, which keeps two
 * significant digits (1.3e-21) rather than rounding to 0. */
struct shown {
	char text[48];
	double value, half;
};

static struct shown show(double value, int decimals)
{
	struct shown n;
	char *e;

	if (value == 0.0 || (fabs(value) < 1e15 && value == nearbyint(value))) {
		snprintf(n.text, sizeof n.text, "%.0f", value == 0.0 ? 0.0 : value);
		n.half = 1e-9 * fmax(1.0, fabs(value));
	} else if (fabs(value) < 0.5 * pow(10.0, -decimals)) {
		snprintf(n.text, sizeof n.text, "%.1e", value);
		e = strchr(n.text, 'e');
		n.half = 0.05 * pow(10.0, e != NULL ? atoi(e + 1) : 0);
	} else {
		qkv_format_number(n.text, sizeof n.text, value, decimals);
		if (strcmp(n.text, "-0") == 0 || (n.text[0] == '-' && strspn(n.text + 1, "0.") == strlen(n.text + 1)))
			memmove(n.text, n.text + 1, strlen(n.text));
		n.half = 0.5 * pow(10.0, -decimals);
	}
	n.value = strtod(n.text, NULL);
	return n;
}

/* True when `exact`, computed from shown numbers, gives the shown result at its
 * digits: then "=" is true of the text; else the derivation writes "≈". */
static bool holds(double exact, const struct shown *result)
{
	return fabs(exact - result->value) <= result->half * (1.0 - 1e-6);
}

/* Puts a shown number; a negative one in parentheses when asked. */
static void put_shown(struct qkv_buffer *t, const struct shown *n, bool parenthesise)
{
	if (parenthesise && n->text[0] == '-')
		qkv_buffer_put(t, "(%s)", n->text);
	else
		qkv_buffer_put(t, "%s", n->text);
}

/* Puts a number as `show` writes it; returns the value it shows. */
static double put_number(struct qkv_buffer *t, double value, int decimals, bool parenthesise)
{
	struct shown n = show(value, decimals);

	put_shown(t, &n, parenthesise);
	return n.value;
}

/* Puts " = result" when exact (computed from the shown numbers) gives it at the
 * result's digits, else " ≈ result". */
static void put_result(struct qkv_buffer *t, double exact, double value, int decimals)
{
	struct shown n = show(value, decimals);

	qkv_buffer_put(t, holds(exact, &n) ? " = " : " ≈ ");
	put_shown(t, &n, false);
}

/* Puts a vector "(v1, v2, …)", eliding after MAX_TERMS components. */
static void put_vector(struct qkv_buffer *t, const double *v, int count, int decimals)
{
	qkv_buffer_put(t, "(");
	for (int c = 0; c < count; c++) {
		if (c == MAX_TERMS - 1 && count > MAX_TERMS) {
			qkv_buffer_put(t, "…, ");
			c = count - 1;
		}
		put_number(t, v[c], decimals, false);
		if (c + 1 < count)
			qkv_buffer_put(t, ", ");
	}
	qkv_buffer_put(t, ")");
}

/* Puts "a1×b1 + a2×b2 + …" for a dot product, then " = value" (or "≈" when the
 * shown products do not add up to the shown value; "=" for an elided sum, which
 * is exact over the terms it does not show). */
static void put_dot(struct qkv_buffer *t, const double *a, const double *b, size_t b_stride,
		    int count, double value, int decimals)
{
	double sum = 0.0;
	bool elided = false;

	for (int c = 0; c < count; c++) {
		double x, y;

		if (c == MAX_TERMS - 1 && count > MAX_TERMS) {
			qkv_buffer_put(t, "… (%d terms) + ", count);
			c = count - 1;
			elided = true;
		}
		x = put_number(t, a[c], decimals, true);
		qkv_buffer_put(t, "×");
		y = put_number(t, b[(size_t)c * b_stride], decimals, true);
		sum += x * y;
		if (c + 1 < count)
			qkv_buffer_put(t, " + ");
	}
	if (elided) {
		qkv_buffer_put(t, " = ");
		put_number(t, value, decimals, false);
	} else {
		put_result(t, sum, value, decimals);
	}
}

/* A key's (a token's) label. */
static const char *label(const struct qkv_problem *p, int token)
{
	return p->tokens != NULL && token < p->n ? p->tokens[token] : "?";
}

/* A query's label: its own in cross-attention, its token's otherwise. */
static const char *qlabel(const struct qkv_problem *p, int query)
{
	return p->tokens != NULL && query < p->m ? qkv_problem_query_label(p, query) : "?";
}

/* Stage 0: q_ic = x_i · column c of W_Q (x from X_q in cross-attention). */
static void derive_projection(struct qkv_buffer *t, const struct qkv_problem *p,
			      const struct qkv_trace *tr, int row, int col, int decimals)
{
	const struct qkv_matrix *x = qkv_problem_is_cross(p) ? &p->x_q : &p->x;

	qkv_buffer_put(t, "q[%s,d%d] = x_%s · W_Q column %d = ", qlabel(p, row), col + 1, qlabel(p, row), col + 1);
	put_dot(t, qkv_matrix_row_const(x, row), p->w_q.values + col, (size_t)p->w_q.cols,
		x->cols, qkv_matrix_get(&tr->q, row, col), decimals);
}

static void derive_score(struct qkv_buffer *t, const struct qkv_problem *p,
			 const struct qkv_trace *tr, int row, int col, int decimals)
{
	qkv_buffer_put(t, "S[%s,%s] = q_%s · k_%s = ", qlabel(p, row), label(p, col), qlabel(p, row),
	    label(p, col));
	put_dot(t, qkv_matrix_row_const(&tr->q, row), qkv_matrix_row_const(&tr->k, col), 1,
		tr->d_k, qkv_matrix_get(&tr->scores, row, col), decimals);
}

/* Puts the divisor as the problem builds it: "√2", "0.5 × √2", "1", "3". */
static void put_divisor_origin(struct qkv_buffer *t, const struct qkv_problem *p,
			       const struct qkv_trace *tr, int decimals)
{
	bool tau = p->temperature != 1.0;

	if (tau && p->scale != QKV_SCALE_NONE) {
		qkv_buffer_put(t, "(τ ");
		put_number(t, p->temperature, decimals, false);
		qkv_buffer_put(t, " × ");
	}
	switch (p->scale) {
	case QKV_SCALE_SQRT_DK:
		qkv_buffer_put(t, "√%d", tr->d_k);
		break;
	case QKV_SCALE_CUSTOM:
		put_number(t, p->scale_value, decimals, false);
		break;
	case QKV_SCALE_NONE:
	default:
		if (tau) {
			qkv_buffer_put(t, "τ ");
			put_number(t, p->temperature, decimals, false);
		} else {
			qkv_buffer_put(t, "1 (no scaling)");
		}
		break;
	}
	if (tau && p->scale != QKV_SCALE_NONE)
		qkv_buffer_put(t, ")");
}

static void derive_scaled(struct qkv_buffer *t, const struct qkv_problem *p,
			  const struct qkv_trace *tr, int row, int col, int decimals)
{
	qkv_buffer_put(t, "S'[%s,%s] = S[%s,%s] / ", qlabel(p, row), label(p, col), qlabel(p, row),
	    label(p, col));
	put_divisor_origin(t, p, tr, decimals);
	double score, divisor;

	qkv_buffer_put(t, " = ");
	score = put_number(t, qkv_matrix_get(&tr->scores, row, col), decimals, false);
	qkv_buffer_put(t, " / ");
	divisor = put_number(t, tr->divisor, decimals, false);
	put_result(t, divisor != 0.0 ? score / divisor : NAN, qkv_matrix_get(&tr->scaled, row, col), decimals);
}

/* Stage 3: e^(s − max) over the sum of the exponentials it is normalised with —
 * the query's row of live keys, or, in the wrong-way demonstrations, the whole row
 * (mask applied afterwards) or the key's column. */
static void derive_weight(struct qkv_buffer *t, const struct qkv_problem *p,
			  const struct qkv_trace *tr, int row, int col, int decimals)
{
	bool down_column = p->wrong == QKV_WRONG_COLUMN_SOFTMAX;
	bool mask_later = p->wrong == QKV_WRONG_MASK_AFTER_SOFTMAX;
	int n = down_column ? tr->m : tr->n, shown = 0; /* the queries down a column */
	double max = 0.0, sum = 0.0, shown_sum = 0.0, exponent;
	struct shown top, total;
	bool first = true;

	for (int k = 0; k < n; k++) {
		int i = down_column ? k : row, j = down_column ? col : k;
		double s = qkv_matrix_get(&tr->scaled, i, j);

		if (!mask_later && qkv_trace_is_masked(tr, i, j))
			continue;
		if (first || s > max)
			max = s;
		first = false;
	}
	if (down_column)
		qkv_buffer_put(t, "WRONG WAY, softmax down column %s: ", label(p, col));
	else if (mask_later)
		qkv_buffer_put(t, "WRONG WAY, softmax over every key, mask after: ");
	qkv_buffer_put(t, "A[%s,%s] = e^(S' − max) / Σ e^(S' − max) = e^", qlabel(p, row), label(p, col));
	exponent = put_number(t, qkv_matrix_get(&tr->scaled, row, col) - max, decimals, true);
	qkv_buffer_put(t, " / (");
	for (int k = 0; k < n; k++) {
		int i = down_column ? k : row, j = down_column ? col : k;
		double e = exp(qkv_matrix_get(&tr->scaled, i, j) - max);

		if (!mask_later && qkv_trace_is_masked(tr, i, j))
			continue;
		sum += e;
		if (shown >= MAX_TERMS) {
			if (shown++ == MAX_TERMS)
				qkv_buffer_put(t, " + …");
			continue;
		}
		if (shown > 0)
			qkv_buffer_put(t, " + ");
		shown_sum += put_number(t, e, decimals, false);
		shown++;
	}
	/* "= E / Z" when e^(the shown exponent) gives E and the shown terms give Z
	 * (an elided sum is exact over the terms it does not show). */
	top = show(exp(qkv_matrix_get(&tr->scaled, row, col) - max), decimals);
	total = show(sum, decimals);
	qkv_buffer_put(t, ")%s", holds(exp(exponent), &top) && (shown > MAX_TERMS || holds(shown_sum, &total)) ?
		       " = " : " ≈ ");
	put_shown(t, &top, false);
	qkv_buffer_put(t, " / ");
	put_shown(t, &total, false);
	put_result(t, total.value != 0.0 ? top.value / total.value : NAN, qkv_matrix_get(&tr->weights, row, col),
		   decimals);
}

/* How a mix term is written: a_j×v_j, a_j×v_jc, or a_j as a percentage share. */
enum term { TERM_VECTOR, TERM_COMPONENT, TERM_SHARE };

/* Puts the shares of query row's live keys as percentages that add up to 100%:
 * rounded together (qkv_round_shares), equal weights alike; when equal shares
 * cannot add up, says what the shown ones add up to. Eliding after MAX_TERMS
 * keys, where each share is rounded on its own. */
static void put_shares(struct qkv_buffer *t, const struct qkv_problem *p, const struct qkv_trace *tr,
		       int row, int places)
{
	double percent[MAX_TERMS];
	long long units[MAX_TERMS], total, added = 0;
	int key[MAX_TERMS], live = 0;

	for (int j = 0; j < tr->n; j++) {
		if (qkv_trace_is_masked(tr, row, j))
			continue;
		if (live == MAX_TERMS) {
			live = MAX_TERMS + 1;
			break;
		}
		key[live] = j;
		percent[live++] = 100.0 * qkv_matrix_get(&tr->weights, row, j);
	}
	if (live > MAX_TERMS) {
		for (int k = 0; k < MAX_TERMS; k++) {
			put_number(t, percent[k], places, false);
			qkv_buffer_put(t, "%% %s, ", label(p, key[k]));
		}
		qkv_buffer_put(t, "…");
		return;
	}
	total = qkv_round_shares(percent, live, places, units);
	for (int k = 0; k < live; k++) {
		/* A share that rounds to 0 but is not 0 shows its next digit (0.03%). */
		if (units[k] == 0 && percent[k] != 0.0)
			put_number(t, percent[k], places + 1, false);
		else
			put_number(t, (double)units[k] / pow(10.0, places), places, false);
		qkv_buffer_put(t, "%% %s%s", label(p, key[k]), k + 1 < live ? ", " : "");
		added += units[k];
	}
	if (added != total) {
		qkv_buffer_put(t, " (equal shares rounded alike: ");
		put_number(t, (double)added / pow(10.0, places), places, false);
		qkv_buffer_put(t, "%% in all)");
	}
}

/* Puts the terms of query row's mix over its live keys, eliding after MAX_TERMS. */
static void put_terms(struct qkv_buffer *t, const struct qkv_problem *p, const struct qkv_trace *tr,
		      int row, int col, int decimals, enum term kind)
{
	int shown = 0;

	if (kind == TERM_SHARE) {
		put_shares(t, p, tr, row, decimals > 1 ? 1 : 0);
		return;
	}

	for (int j = 0; j < tr->n; j++) {
		double a = qkv_matrix_get(&tr->weights, row, j);

		if (qkv_trace_is_masked(tr, row, j))
			continue;
		if (shown > 0)
			qkv_buffer_put(t, kind == TERM_SHARE ? ", " : " + ");
		if (shown == MAX_TERMS) {
			qkv_buffer_put(t, "…");
			break;
		}
		if (kind == TERM_SHARE) {
			put_number(t, 100.0 * a, decimals > 1 ? 1 : 0, false);
			qkv_buffer_put(t, "%% %s", label(p, j));
		} else {
			put_number(t, a, decimals, false);
			qkv_buffer_put(t, "×");
			if (kind == TERM_VECTOR)
				put_vector(t, qkv_matrix_row_const(&tr->v, j), tr->d_v, decimals);
			else
				put_number(t, qkv_matrix_get(&tr->v, j, col), decimals, true);
		}
		shown++;
	}
}

/* The sum of the shown terms a_j × v_jc of query row's mix into *sum; false when
 * the terms are elided (then the sum is exact over terms not shown). */
static bool mix_from_shown(const struct qkv_trace *tr, int row, int c, int decimals, double *sum)
{
	int shown = 0;

	*sum = 0.0;
	for (int j = 0; j < tr->n; j++) {
		if (qkv_trace_is_masked(tr, row, j))
			continue;
		if (shown++ == MAX_TERMS)
			return false;
		*sum += show(qkv_matrix_get(&tr->weights, row, j), decimals).value *
			show(qkv_matrix_get(&tr->v, j, c), decimals).value;
	}
	return true;
}

/* Stage 4: the query's output as the weighted sum of the value vectors, "≈" where
 * the shown terms do not give the shown output at its digits. */
static void derive_mix(struct qkv_buffer *t, const struct qkv_problem *p,
		       const struct qkv_trace *tr, int row, int col, int decimals)
{
	double sum;
	bool adds_up;

	qkv_buffer_put(t, "o_%s = ", qlabel(p, row));
	if (tr->rows[row].live_keys == 0) {
		/* No terms to write out: the sum over no keys. */
		put_vector(t, qkv_matrix_row_const(&tr->output, row), tr->d_v, decimals);
		qkv_buffer_put(t, ": every key is masked, so there is nothing to mix\nd%d: ", col + 1);
		put_number(t, qkv_matrix_get(&tr->output, row, col), decimals, false);
		qkv_buffer_put(t, ", a sum of no terms");
		return;
	}
	put_terms(t, p, tr, row, col, decimals, TERM_VECTOR);
	adds_up = true;
	for (int c = 0; c < tr->d_v; c++) {
		struct shown o = show(qkv_matrix_get(&tr->output, row, c), decimals);

		adds_up = adds_up && mix_from_shown(tr, row, c, decimals, &sum) && holds(sum, &o);
	}
	qkv_buffer_put(t, adds_up ? " = " : " ≈ ");
	put_vector(t, qkv_matrix_row_const(&tr->output, row), tr->d_v, decimals);
	qkv_buffer_put(t, "\nd%d: ", col + 1);
	put_terms(t, p, tr, row, col, decimals, TERM_COMPONENT);
	if (mix_from_shown(tr, row, col, decimals, &sum)) {
		put_result(t, sum, qkv_matrix_get(&tr->output, row, col), decimals);
	} else {
		qkv_buffer_put(t, " = ");
		put_number(t, qkv_matrix_get(&tr->output, row, col), decimals, false);
	}
}

/* Stage 5: the output row, and the share of each token in it. */
static void derive_output(struct qkv_buffer *t, const struct qkv_problem *p,
			  const struct qkv_trace *tr, int row, int col, int decimals)
{
	qkv_buffer_put(t, "O[%s,d%d] = ", qlabel(p, row), col + 1);
	put_number(t, qkv_matrix_get(&tr->output, row, col), decimals, false);
	qkv_buffer_put(t, "; o_%s = ", qlabel(p, row));
	put_vector(t, qkv_matrix_row_const(&tr->output, row), tr->d_v, decimals);
	if (tr->rows[row].live_keys == 0) {
		qkv_buffer_put(t, ": every key is masked, so nothing is mixed");
		return;
	}
	qkv_buffer_put(t, " mixes ");
	put_terms(t, p, tr, row, col, decimals, TERM_SHARE);
}

int qkv_derive(char *buf, size_t size, const struct qkv_problem *p,
	       const struct qkv_trace *t, enum qkv_stage stage, int row, int col,
	       int decimals)
{
	struct qkv_buffer text = { buf, size, 0 };
	int width;

	if (size > 0)
		buf[0] = '\0';
	if (t->n < 1 || t->m < 1 || row < 0 || row >= t->m || col < 0)
		return QKV_EINVAL;
	switch (stage) {
	case QKV_STAGE_PROJECTIONS:
		width = p->form == QKV_FORM_PROJECTED ? t->d_k : 0;
		break;
	case QKV_STAGE_SCORES:
	case QKV_STAGE_SCALED:
	case QKV_STAGE_WEIGHTS:
		width = t->n;
		break;
	case QKV_STAGE_MIX:
	case QKV_STAGE_OUTPUT:
		width = t->d_v;
		break;
	default:
		return QKV_EINVAL;
	}
	if (col >= width)
		return QKV_EINVAL;
	if (stage == QKV_STAGE_WEIGHTS && qkv_trace_is_masked(t, row, col) &&
	    p->wrong == QKV_WRONG_MASK_AFTER_SOFTMAX) {
		qkv_buffer_put(&text, "WRONG WAY: A[%s,%s] took its share in softmax, then the mask set it to 0, "
			   "so row %s no longer sums to 1", qlabel(p, row), label(p, col), qlabel(p, row));
		return (int)text.length;
	}
	if (stage >= QKV_STAGE_SCORES && stage <= QKV_STAGE_WEIGHTS && qkv_trace_is_masked(t, row, col)) {
		enum qkv_grid grid = QKV_GRID_SCORES;

		qkv_grid_of_stage(stage, &grid);
		qkv_buffer_put(&text, "%s[%s,%s]: masked: −∞ before softmax, weight 0", qkv_grid_name(grid),
			       qlabel(p, row), label(p, col));
		return (int)text.length;
	}
	switch (stage) {
	case QKV_STAGE_PROJECTIONS:
		derive_projection(&text, p, t, row, col, decimals);
		break;
	case QKV_STAGE_SCORES:
		derive_score(&text, p, t, row, col, decimals);
		break;
	case QKV_STAGE_SCALED:
		derive_scaled(&text, p, t, row, col, decimals);
		break;
	case QKV_STAGE_WEIGHTS:
		derive_weight(&text, p, t, row, col, decimals);
		break;
	case QKV_STAGE_MIX:
		derive_mix(&text, p, t, row, col, decimals);
		break;
	case QKV_STAGE_OUTPUT:
	default:
		derive_output(&text, p, t, row, col, decimals);
		break;
	}
	return (int)text.length;
}
