/* describe.c — sentences about a trace, computed from its numbers: rankings that
 * name equal values together, the self-attention claim checked row by row, the
 * variance with the condition its prediction needs. Writes into the caller's
 * buffer (truncating safely); never allocates, never prints. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "qkv/describe.h"
#include "qkv/error.h"
#include "qkv/buffer.h"
#include "qkv/format.h"

#define NAMED_MAX 4 /* a group of more keys is counted, its first ones named */


static struct qkv_buffer text_start(char *buf, size_t size)
{
	struct qkv_buffer t = { buf, size, 0 };

	if (size > 0)
		buf[0] = '\0';
	return t;
}

double qkv_row_entropy_ratio(const struct qkv_row_stats *s)
{
	return s->live_keys > 1 ? s->entropy / log((double)s->live_keys) : 0.0;
}

/* The words of item i of count labels whose positions are prefix1, prefix2, …. */
static int item_words(char *buf, size_t size, char *const *labels, int count, char prefix, int i)
{
	const char *label = labels != NULL && i >= 0 && i < count ? labels[i] : "?";
	char position[24];
	bool repeated = false;

	snprintf(position, sizeof position, "%c%d", prefix, i + 1);
	if (strcmp(label, position) == 0)
		return snprintf(buf, size, "%s", position);
	for (int j = 0; labels != NULL && j < count && !repeated; j++)
		repeated = j != i && strcmp(labels[j], label) == 0;
	if (repeated)
		return snprintf(buf, size, "%s \"%s\"", position, label);
	return snprintf(buf, size, "\"%s\"", label);
}

int qkv_token_words(char *buf, size_t size, const struct qkv_problem *p, int token)
{
	return item_words(buf, size, p->tokens, p->n, 't', token);
}

int qkv_query_words(char *buf, size_t size, const struct qkv_problem *p, int query)
{
	if (!qkv_problem_is_cross(p))
		return qkv_token_words(buf, size, p, query);
	return item_words(buf, size, p->query_tokens, p->m, 'q', query);
}

/* Room for a token's words: its label, quotes and its position. */
#define WORDS_SIZE (QKV_MAX_LABEL + 32)

/* The token's (a key's) words (qkv_token_words) in buf, WORDS_SIZE bytes. */
static const char *name(const struct qkv_problem *p, int token, char *buf)
{
	qkv_token_words(buf, WORDS_SIZE, p, token);
	return buf;
}

/* A query's words (qkv_query_words) in buf, WORDS_SIZE bytes. */
static const char *qname(const struct qkv_problem *p, int query, char *buf)
{
	qkv_query_words(buf, WORDS_SIZE, p, query);
	return buf;
}

/* Two weights are called equal only when they are equal to within 1e-9 of the
 * larger: a tie, "uniform" or "each" is a claim about the values, not about the
 * digits they happen to show. */
static bool same_value(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* The row's visible keys in falling order of weight, grouped by equal value
 * (same_value against the group's first). Walks the groups one at a time. */
struct ranking {
	const struct qkv_trace *t;
	int row;           /* the query, or the key when by_column */
	bool by_column;    /* softmax down the columns (the wrong way): rank a column's queries */
	double below;      /* the next group's weights are below this (start: +inf) */
	int below_key;     /* ...or equal to it with a key index above this one */
};

static double weight(const struct qkv_trace *t, int row, int key)
{
	return qkv_matrix_get(&t->weights, row, key);
}

/* How many entries the ranked line has: the keys of a row, the queries of a column. */
static int line_length(const struct ranking *r)
{
	return r->by_column ? r->t->m : r->t->n;
}

/* The ranked line's entry j (key j of the row, or query j of the column). */
static double entry(const struct ranking *r, int j)
{
	return r->by_column ? weight(r->t, j, r->row) : weight(r->t, r->row, j);
}

static bool hidden(const struct ranking *r, int j)
{
	return r->by_column ? qkv_trace_is_masked(r->t, j, r->row) : qkv_trace_is_masked(r->t, r->row, j);
}

/* True when key comes after (value, key) in the falling order. */
static bool after(double w, int key, double value, int value_key)
{
	return w < value || (w == value && key > value_key);
}

/* The next key in falling order after (below, below_key), or −1. */
static int next_key(const struct ranking *r, double below, int below_key)
{
	int best = -1;

	for (int j = 0; j < line_length(r); j++) {
		double w = entry(r, j);

		if (hidden(r, j) || !after(w, j, below, below_key))
			continue;
		if (best < 0 || w > entry(r, best) || (w == entry(r, best) && j < best))
			best = j;
	}
	return best;
}

/* Fills keys[] (up to capacity; *count is the full size) and *value (the first
 * one's weight) with the next group; returns false when no key is left. The group
 * is every key left whose weight equals the first one's (same_value): they follow
 * it in falling order, so one pass finds them, and the first `capacity` in falling
 * order and the last are picked from those, so a row of a thousand equal keys
 * costs a pass, not a pass per key. */
static bool next_group(struct ranking *r, int *keys, int capacity, int *count, double *value)
{
	int key = next_key(r, r->below, r->below_key);
	int members[QKV_MAX_TOKENS], m = 0, last;
	double first;

	*count = 0;
	if (key < 0)
		return false;
	first = entry(r, key);
	*value = first;
	for (int j = 0; j < line_length(r) && m < QKV_MAX_TOKENS; j++) {
		double w = entry(r, j);

		if (hidden(r, j) || !after(w, j, r->below, r->below_key) ||
		    !same_value(first, w))
			continue;
		members[m++] = j;
	}
	/* The first `capacity` in falling order (ties: the lower key first), by selection. */
	for (int i = 0; i < m && i < capacity; i++) {
		int best = i;

		for (int k = i + 1; k < m; k++) {
			double wk = entry(r, members[k]), wb = entry(r, members[best]);

			if (wk > wb || (wk == wb && members[k] < members[best]))
				best = k;
		}
		keys[i] = members[best];
		members[best] = members[i];
		members[i] = keys[i];
	}
	/* The last in falling order: where the next group starts below. */
	last = m > 0 ? members[0] : key;
	for (int k = 1; k < m; k++)
		if (after(entry(r, members[k]), members[k], entry(r, last), last))
			last = members[k];
	*count = m;
	r->below = entry(r, last);
	r->below_key = last;
	return true;
}

static void ranking_start(struct ranking *r, const struct qkv_trace *t, int row)
{
	r->t = t;
	r->row = row;
	r->by_column = false;
	r->below = INFINITY;
	r->below_key = -1;
}

/* The places at which two different values a and b show different texts, from
 * `decimals` up (at most 12: values closer than that are equal by same_value
 * whenever they are at least 1e-3). */
static int places_apart(double a, double b, int decimals)
{
	char ta[48], tb[48];
	int d = decimals;

	for (; d < 12; d++) {
		qkv_format_number(ta, sizeof ta, a, d);
		qkv_format_number(tb, sizeof tb, b, d);
		if (strcmp(ta, tb) != 0)
			break;
	}
	return d;
}

/* "t1", "t1 and t3", "t1, t2 and t4", "6 keys (t1, t2, t3, …)"; queries' names
 * when `queries` (a column's ranking). */
static void put_names(struct qkv_buffer *out, const struct qkv_problem *p, const int *keys, int count,
		      bool queries)
{
	char words[WORDS_SIZE];

	if (count > NAMED_MAX) {
		qkv_buffer_put(out, "%d %s (", count, queries ? "queries" : "keys");
		for (int i = 0; i < NAMED_MAX - 1; i++)
			qkv_buffer_put(out, "%s, ", queries ? qname(p, keys[i], words) : name(p, keys[i], words));
		qkv_buffer_put(out, "…)");
		return;
	}
	for (int i = 0; i < count; i++)
		qkv_buffer_put(out, "%s%s", i == 0 ? "" : i + 1 == count ? " and " : ", ",
			       queries ? qname(p, keys[i], words) : name(p, keys[i], words));
}

int qkv_describe_row(char *buf, size_t size, const struct qkv_problem *p,
		     const struct qkv_trace *t, int row, int decimals, bool long_form)
{
	struct qkv_buffer out = text_start(buf, size);
	const struct qkv_row_stats *s;
	struct ranking r;
	int top[NAMED_MAX + 1], second[NAMED_MAX + 1], top_count, second_count, places;
	double top_value, second_value = 0.0;
	char top_shown[48], second_shown[48], eff[48], own_words[WORDS_SIZE], other_words[WORDS_SIZE];
	bool more, close;

	if (row < 0 || row >= t->m)
		return 0;
	s = &t->rows[row];
	ranking_start(&r, t, row);
	if (!next_group(&r, top, NAMED_MAX + 1, &top_count, &top_value)) {
		qkv_buffer_put(&out, long_form ? "%s sees no key (all masked)." : "%s sees no key: every key is masked",
		    qname(p, row, own_words));
		return (int)out.length;
	}
	more = next_group(&r, second, NAMED_MAX + 1, &second_count, &second_value);
	/* Different values that would show alike get the digits that tell them apart. */
	places = more ? places_apart(top_value, second_value, decimals) : decimals;
	close = places > decimals;
	qkv_format_number(top_shown, sizeof top_shown, top_value, places);
	qkv_format_number(second_shown, sizeof second_shown, second_value, places);
	qkv_format_number(eff, sizeof eff, s->effective_tokens, 1);
	if (top_count == 1 && !more) {
		qkv_buffer_put(&out, "%s sees only %s (%s)%s", qname(p, row, own_words), name(p, top[0], other_words), top_shown,
		    long_form ? "." : "");
		return (int)out.length;
	}
	if (!more) {
		qkv_buffer_put(&out, long_form ? "%s spreads evenly: %s on each of its %d keys." : "%s: uniform, %s on each of %d",
		    qname(p, row, own_words), top_shown, top_count);
		return (int)out.length;
	}
	if (!long_form) {
		if (top_count == 1 && s->max_weight > 0.95) {
			qkv_buffer_put(&out, "%s is nearly one-hot: %s on %s", qname(p, row, own_words), top_shown, name(p, top[0], other_words));
		} else if (close) {
			/* "t1: t1 0.404 just ahead of t2 0.400": a lead the rounding would hide. */
			qkv_buffer_put(&out, "%s: ", qname(p, row, own_words));
			put_names(&out, p, top, top_count, false);
			qkv_buffer_put(&out, top_count > 1 ? " %s each just ahead of " : " %s just ahead of ", top_shown);
			put_names(&out, p, second, second_count, false);
			qkv_buffer_put(&out, second_count > 1 ? " %s each" : " %s", second_shown);
			qkv_buffer_put(&out, ", spread over %s of %d", eff, s->live_keys);
		} else if (top_count == 1) {
			qkv_buffer_put(&out, "%s: most on %s (%s), spread over %s of %d", qname(p, row, own_words), name(p, top[0], other_words),
			    top_shown, eff, s->live_keys);
		} else {
			qkv_buffer_put(&out, "%s: ", qname(p, row, own_words));
			put_names(&out, p, top, top_count, false);
			qkv_buffer_put(&out, " tie at %s, spread over %s of %d", top_shown, eff, s->live_keys);
		}
		return (int)out.length;
	}
	qkv_buffer_put(&out, "%s looks most at ", qname(p, row, own_words));
	put_names(&out, p, top, top_count, false);
	qkv_buffer_put(&out, top_count > 1 ? " (%s each), %s " : " (%s), %s ", top_shown,
	    close ? "just ahead of" : "then");
	put_names(&out, p, second, second_count, false);
	qkv_buffer_put(&out, second_count > 1 ? " (%s each); " : " (%s); ", second_shown);
	qkv_buffer_put(&out, "spread over %s of %d tokens%s.", eff, s->live_keys,
	    top_count == 1 && s->max_weight > 0.95 ? ": nearly one-hot" : "");
	return (int)out.length;
}

int qkv_describe_column(char *buf, size_t size, const struct qkv_problem *p, const struct qkv_trace *t, int col,
			int decimals)
{
	struct qkv_buffer out = text_start(buf, size);
	struct ranking r;
	int top[NAMED_MAX + 1], second[NAMED_MAX + 1], top_count, second_count, places;
	double top_value, second_value = 0.0, sum = 0.0;
	char top_shown[48], second_shown[48], own_words[WORDS_SIZE], other_words[WORDS_SIZE];
	bool more;

	if (col < 0 || col >= t->n)
		return 0;
	ranking_start(&r, t, col);
	r.by_column = true;
	if (!next_group(&r, top, NAMED_MAX + 1, &top_count, &top_value)) {
		qkv_buffer_put(&out, "column %s: masked for every query", name(p, col, own_words));
		return (int)out.length;
	}
	for (int i = 0; i < t->m; i++)
		sum += qkv_trace_is_masked(t, i, col) ? 0.0 : weight(t, i, col);
	more = next_group(&r, second, NAMED_MAX + 1, &second_count, &second_value);
	places = more ? places_apart(top_value, second_value, decimals) : decimals;
	qkv_format_number(top_shown, sizeof top_shown, top_value, places);
	qkv_format_number(second_shown, sizeof second_shown, second_value, places);
	qkv_buffer_put(&out, "column %s: ", name(p, col, own_words));
	if (top_count == 1 && !more) {
		qkv_buffer_put(&out, "only %s (%s)", qname(p, top[0], other_words), top_shown);
	} else if (!more) {
		qkv_buffer_put(&out, "uniform, %s for each of %d queries", top_shown, top_count);
	} else if (places > decimals) {
		put_names(&out, p, top, top_count, true);
		qkv_buffer_put(&out, top_count > 1 ? " %s each just ahead of " : " %s just ahead of ", top_shown);
		put_names(&out, p, second, second_count, true);
		qkv_buffer_put(&out, second_count > 1 ? " %s each" : " %s", second_shown);
	} else if (top_count == 1) {
		qkv_buffer_put(&out, "largest at %s (%s)", qname(p, top[0], other_words), top_shown);
	} else {
		put_names(&out, p, top, top_count, true);
		qkv_buffer_put(&out, " tie at %s", top_shown);
	}
	if (same_value(sum, 1.0))
		qkv_buffer_put(&out, "; the column sums to 1");
	return (int)out.length;
}

/* Cross-attention's counterpart of the self-attention claim: no query is a key,
 * so say where each query looks most (the first three; a tie is counted). */
static int describe_across(char *buf, size_t size, const struct qkv_problem *p, const struct qkv_trace *t)
{
	struct qkv_buffer out = text_start(buf, size);
	char own_words[WORDS_SIZE], key_words[WORDS_SIZE];

	qkv_buffer_put(&out, "%d quer%s over %d keys:", t->m, t->m == 1 ? "y" : "ies", t->n);
	for (int i = 0; i < t->m; i++) {
		struct ranking r;
		int top[NAMED_MAX + 1], count;
		double value;

		if (i == 3) {
			qkv_buffer_put(&out, " …");
			break;
		}
		ranking_start(&r, t, i);
		qkv_buffer_put(&out, "%s %s → ", i > 0 ? ";" : "", qname(p, i, own_words));
		if (!next_group(&r, top, NAMED_MAX + 1, &count, &value))
			qkv_buffer_put(&out, "no key");
		else if (count == 1)
			qkv_buffer_put(&out, "%s", name(p, top[0], key_words));
		else
			qkv_buffer_put(&out, "a tie of %d", count);
	}
	return (int)out.length;
}

int qkv_describe_self(char *buf, size_t size, const struct qkv_problem *p,
		      const struct qkv_trace *t, int decimals)
{
	struct qkv_buffer out = text_start(buf, size);
	int selfish = 0, told = 0;
	char own_words[WORDS_SIZE];

	if (qkv_problem_is_cross(p))
		return describe_across(buf, size, p, t);
	for (int i = 0; i < t->n; i++) {
		struct ranking r;
		int top[NAMED_MAX + 1], count;
		double value;

		ranking_start(&r, t, i);
		if (next_group(&r, top, NAMED_MAX + 1, &count, &value) && count == 1 && top[0] == i)
			selfish++;
	}
	if (selfish == t->n) {
		qkv_buffer_put(&out, t->n == 1 ? "the one token attends to itself" : "every token attends most to itself");
		return (int)out.length;
	}
	if (selfish == 0)
		qkv_buffer_put(&out, "no token attends most to itself alone");
	else if (selfish == 1)
		qkv_buffer_put(&out, "1 of %d tokens attends most to itself", t->n);
	else
		qkv_buffer_put(&out, "%d of %d tokens attend most to themselves", selfish, t->n);
	for (int i = 0; i < t->n; i++) {
		struct ranking r;
		int top[NAMED_MAX + 1], count, others[NAMED_MAX], other_count = 0, places;
		double value, own;
		char shown[48], itself[48];
		bool tied = false;

		ranking_start(&r, t, i);
		if (!next_group(&r, top, NAMED_MAX + 1, &count, &value)) {
			if (told++ < 2)
				qkv_buffer_put(&out, "; %s sees no key", name(p, i, own_words));
			continue;
		}
		if (count == 1 && top[0] == i)
			continue;
		if (told++ >= 2) {
			qkv_buffer_put(&out, "; …");
			break;
		}
		own = weight(t, i, i);
		tied = !qkv_trace_is_masked(t, i, i) && same_value(own, value);
		places = tied || qkv_trace_is_masked(t, i, i) ? decimals : places_apart(value, own, decimals);
		qkv_format_number(shown, sizeof shown, value, places);
		qkv_format_number(itself, sizeof itself, own, places);
		for (int k = 0; k < count && k < NAMED_MAX + 1 && other_count < NAMED_MAX; k++)
			if (top[k] != i)
				others[other_count++] = top[k];
		if (tied) {
			qkv_buffer_put(&out, "; %s ties itself with ", name(p, i, own_words));
			put_names(&out, p, others, count - 1 > other_count ? count - 1 : other_count, false);
			qkv_buffer_put(&out, " at %s", shown);
		} else {
			qkv_buffer_put(&out, "; %s attends most to ", name(p, i, own_words));
			put_names(&out, p, others, count > other_count ? count : other_count, false);
			if (qkv_trace_is_masked(t, i, i))
				qkv_buffer_put(&out, " (%s; itself masked)", shown);
			else
				qkv_buffer_put(&out, " (%s; itself %s)", shown, itself);
		}
	}
	return (int)out.length;
}

int qkv_describe_variance(char *buf, size_t size, const struct qkv_trace *t)
{
	struct qkv_buffer out = text_start(buf, size);
	double expected = t->divisor > 0.0 ? (double)t->d_k / (t->divisor * t->divisor) : 0.0;
	char measured[48], predicted[48];

	int live = 0;

	for (int i = 0; i < t->m; i++)
		live += t->rows[i].live_keys;
	/* With every score masked, no entry reaches softmax: no variance to give. */
	if (live == 0)
		snprintf(measured, sizeof measured, "—");
	else
		qkv_format_number(measured, sizeof measured, t->score_variance, 2);
	qkv_format_number(predicted, sizeof predicted, expected, expected >= 10 ? 0 : 2);
	qkv_buffer_put(&out, "var(S') %s · if N(0,1): %s", measured, predicted);
	return (int)out.length;
}
