/* describe.h — the sentences the screen says about the numbers, built from the
 * numbers themselves so that each one is true of the values: a ranking names
 * values equal to within 1e-9 of the larger together ("t1 and t3 tie at 0.40"),
 * and only those are called a tie, uniform, "each" or "the same"; different values
 * that would show alike get the digits that tell them apart ("t1 0.404 just ahead
 * of t2 0.400"); a claim about self-attention is checked row by row. Plain UTF-8 into the caller's buffer (always NUL-terminated when size > 0);
 * each returns the length the full text needs, as snprintf. No curses, no I/O. */
#ifndef QKV_DESCRIBE_H
#define QKV_DESCRIBE_H

#include <stdbool.h>
#include <stddef.h>

#include "qkv/attention.h"
#include "qkv/problem.h"

/* A token as a sentence names it, so that a label like "the" never reads as a
 * word of the sentence and two tokens with one label are told apart: t3 for the
 * third token labelled t3 (its own position), "cat" for any other label, t2 "dog"
 * when another token has that label too. Returns the length, as snprintf. */
int qkv_token_words(char *buf, size_t size, const struct qkv_problem *p, int token);
/* A query as a sentence names it: qkv_token_words in self-attention; in
 * cross-attention the same rule over the queries' labels, q2 being the second
 * query's position. */
int qkv_query_words(char *buf, size_t size, const struct qkv_problem *p, int query);

/* Entropy over the log of the keys the row can see: 1 for a uniform row over its
 * visible keys, 0 for one-hot; 0 when fewer than two keys are visible. */
double qkv_row_entropy_ratio(const struct qkv_row_stats *s);

/* Words about the weights of query `row`, values at `decimals` places, or more
 * where the two groups named would otherwise show alike.
 * Short (the verdict line):  "t1: t1 and t3 tie at 0.40, spread over 2.9 of 3",
 *   "t3: most on t3 (0.50), spread over 2.9 of 3", "t1: uniform, 0.25 on each of 4",
 *   "t1: t1 0.404 just ahead of t2 0.400, spread over 2.8 of 3",
 *   "t2 is nearly one-hot: 0.99 on t1", "t1 sees only t1 (1.00)",
 *   "t1 sees no key: every key is masked".
 * Long (the describe overlay): "t1 looks most at t1 and t3 (0.40 each), then t2
 *   (0.20); spread over 2.9 of 3 tokens." */
int qkv_describe_row(char *buf, size_t size, const struct qkv_problem *p,
		     const struct qkv_trace *t, int row, int decimals, bool long_form);

/* Words about column `col` of the weights when softmax ran down the columns (the
 * wrong way, QKV_WRONG_COLUMN_SOFTMAX), which is what was computed then:
 * "column t1: t1 and t3 tie at 0.40; the column sums to 1", "column t2: largest at
 * t3 (0.40); …", "column t3: only t3 (1.00)", "column t1: uniform, 0.33 for each of
 * 3 queries"; values at `decimals` places, or more where the two groups named would
 * show alike. */
int qkv_describe_column(char *buf, size_t size, const struct qkv_problem *p, const struct qkv_trace *t, int col,
			int decimals);

/* In cross-attention, where no query is a key: "2 queries over 3 keys: q1 →
 * t3; q2 → a tie of 2" (the first three queries). Otherwise whether
 * each token attends most to itself, at `decimals` places (or enough to
 * tell the two values named apart): "every token
 * attends most to itself", or which do not and where they look instead
 * ("t1 attends most to t2 (0.73; itself 0.25)", "t2 ties itself with t3 at 0.40"). */
int qkv_describe_self(char *buf, size_t size, const struct qkv_problem *p,
		      const struct qkv_trace *t, int decimals);

/* The measured variance of the scaled scores against the one expected when the
 * entries of Q and K are N(0,1) (d_k / divisor²): "var(S') 0.16 · if N(0,1): 1.00";
 * "var(S') —" when every score is masked (no entry reaches softmax). */
int qkv_describe_variance(char *buf, size_t size, const struct qkv_trace *t);

#endif
