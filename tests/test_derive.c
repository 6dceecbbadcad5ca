/* test_derive.c — the written-out arithmetic of one cell, for each stage, on the
 * course's worked example. Expected texts are built here from the closed form
 * (e^{1/√2} and friends computed with libm), never from the code under test. */
#include <check.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/attention.h"
#include "qkv/derive.h"
#include "qkv/describe.h"
#include "qkv/error.h"

#include "lcg.h"
#include "tap_main.h"

static struct qkv_problem problem;
static struct qkv_trace trace;
static char text[2048];

static void setup(void)
{
	qkv_problem_init(&problem);
	qkv_trace_init(&trace);
	ck_assert_int_eq(qkv_problem_worked_example(&problem), 0);
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
}

static void teardown(void)
{
	qkv_trace_fini(&trace);
	qkv_problem_fini(&problem);
}

/* Row 1 of the worked example by hand: scaled (1/√2, 0, 1/√2), so with the
 * maximum subtracted the exponentials are (1, e^{−1/√2}, 1). */
static double e_minus(void) { return exp(-1.0 / sqrt(2.0)); }
static double a_self(void) { return 1.0 / (2.0 + e_minus()); }
static double a_other(void) { return e_minus() / (2.0 + e_minus()); }

START_TEST(scores_written_as_products)
{
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_SCORES, 0, 2, 4);
	ck_assert_str_eq(text, "S[t1,t3] = q_t1 · k_t3 = 1×1 + 0×1 = 1");
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_SCORES, 2, 2, 4);
	ck_assert_str_eq(text, "S[t3,t3] = q_t3 · k_t3 = 1×1 + 1×1 = 2");
}
END_TEST

START_TEST(scaled_shows_the_divisor)
{
	char expected[256];

	snprintf(expected, sizeof expected, "S'[t1,t3] = S[t1,t3] / √2 = 1 / %.4f = %.4f", sqrt(2.0),
		 1.0 / sqrt(2.0));
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_SCALED, 0, 2, 4);
	ck_assert_str_eq(text, expected);
}
END_TEST

START_TEST(scaled_with_temperature_and_no_scale)
{
	char expected[256];

	problem.temperature = 0.5;
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	/* One precision: τ at four places too. 2 / 0.7071 = 2.82845…, which rounds to
	 * 2.8285, not to the shown 2.8284 (2√2 = 2.828427…): "≈". */
	snprintf(expected, sizeof expected, "S'[t3,t3] = S[t3,t3] / (τ 0.5000 × √2) = 2 / %.4f ≈ %.4f",
		 0.5 * sqrt(2.0), 2.0 / (0.5 * sqrt(2.0)));
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_SCALED, 2, 2, 4);
	ck_assert_str_eq(text, expected);

	problem.temperature = 1.0;
	problem.scale = QKV_SCALE_NONE;
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_SCALED, 2, 2, 4);
	ck_assert_str_eq(text, "S'[t3,t3] = S[t3,t3] / 1 (no scaling) = 2 / 1 = 2");
}
END_TEST

START_TEST(weights_show_the_exponentials)
{
	char expected[512];

	snprintf(expected, sizeof expected,
		 "A[t1,t3] = e^(S' − max) / Σ e^(S' − max) = e^0 / (1 + %.4f + 1) = 1 / %.4f = %.4f",
		 e_minus(), 2.0 + e_minus(), a_self());
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_WEIGHTS, 0, 2, 4);
	ck_assert_str_eq(text, expected);
	/* The course prints 0.42 here; the exact value is 0.4011. */
	ck_assert(strstr(text, "0.4011") != NULL);
}
END_TEST

START_TEST(mix_is_the_weighted_sum_of_values)
{
	char expected[512];
	double o1 = 10.0 * a_self() + 5.0 * a_self(), o2 = 10.0 * a_other() + 5.0 * a_self();

	/* The shown terms give 0.4011×15 = 6.0165 and 0.1978×10 + 0.4011×5 = 3.9835, not
	 * the shown 6.0167 and 3.9833 (the weights' hidden digits): "≈" on both lines. */
	snprintf(expected, sizeof expected,
		 "o_t1 = %.4f×(10, 0) + %.4f×(0, 10) + %.4f×(5, 5) ≈ (%.4f, %.4f)\n"
		 "d1: %.4f×10 + %.4f×0 + %.4f×5 ≈ %.4f",
		 a_self(), a_other(), a_self(), o1, o2, a_self(), a_other(), a_self(), o1);
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_MIX, 0, 0, 4);
	ck_assert_str_eq(text, expected);
}
END_TEST

START_TEST(output_names_each_share)
{
	char expected[512];
	double o1 = 15.0 * a_self(), o2 = 10.0 * a_other() + 5.0 * a_self();

	snprintf(expected, sizeof expected,
		 "O[t1,d2] = %.4f; o_t1 = (%.4f, %.4f) mixes %.1f%% t1, %.1f%% t2, %.1f%% t3", o2, o1, o2,
		 100 * a_self(), 100 * a_other(), 100 * a_self());
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_OUTPUT, 0, 1, 4);
	ck_assert_str_eq(text, expected);
}
END_TEST

START_TEST(masked_cells_say_so)
{
	problem.mask = QKV_MASK_CAUSAL;
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_WEIGHTS, 0, 1, 4);
	ck_assert_str_eq(text, "A[t1,t2]: masked: −∞ before softmax, weight 0");
	/* Row 1 sees only itself: weight exactly 1, the sum has a single term. */
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_WEIGHTS, 0, 0, 4);
	ck_assert_str_eq(text, "A[t1,t1] = e^(S' − max) / Σ e^(S' − max) = e^0 / (1) = 1 / 1 = 1");
}
END_TEST

START_TEST(wrong_way_weights_say_what_they_normalise)
{
	char expected[512];

	/* Mask after softmax, causal: row t1 is normalised over every key, e^0 / (2 + e^{−1/√2}),
	 * and the masked t2 is then zeroed. */
	problem.mask = QKV_MASK_CAUSAL;
	problem.wrong = QKV_WRONG_MASK_AFTER_SOFTMAX;
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	snprintf(expected, sizeof expected,
		 "WRONG WAY, softmax over every key, mask after: A[t1,t1] = e^(S' − max) / Σ e^(S' − max) = "
		 "e^0 / (1 + %.4f + 1) = 1 / %.4f = %.4f", e_minus(), 2.0 + e_minus(), a_self());
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_WEIGHTS, 0, 0, 4);
	ck_assert_str_eq(text, expected);
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_WEIGHTS, 0, 1, 4);
	ck_assert(strstr(text, "no longer sums to 1") != NULL);

	/* Softmax down column t3 (no mask): scaled column (1/√2, 1/√2, √2), maximum √2. */
	problem.mask = QKV_MASK_NONE;
	problem.wrong = QKV_WRONG_COLUMN_SOFTMAX;
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	{
		double e = exp(1.0 / sqrt(2.0) - sqrt(2.0));

		/* The shown terms add to 0.4931 + 0.4931 + 1 = 1.9862; the sum shown is the
		 * true 1.98614 at four places: "≈" there, and 0.4931 / 1.9861 = 0.24827… "=". */
		snprintf(expected, sizeof expected,
			 "WRONG WAY, softmax down column t3: A[t1,t3] = e^(S' − max) / Σ e^(S' − max) = "
			 "e^(%.4f) / (%.4f + %.4f + 1) ≈ %.4f / %.4f = %.4f",
			 1.0 / sqrt(2.0) - sqrt(2.0), e, e, e, 2 * e + 1, e / (2 * e + 1));
	}
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_WEIGHTS, 0, 2, 4);
	ck_assert_str_eq(text, expected);
}
END_TEST

/* Softmax down the columns: the words describe a column, which is what was normalised.
 * Column t1's scaled scores are (1, 0, 1)/√2, column t3's (1, 1, 2)/√2. */
START_TEST(column_softmax_describes_columns)
{
	char expected[256];
	double lead = 1.0 / (1.0 + 2.0 * exp(-1.0 / sqrt(2.0)));

	problem.wrong = QKV_WRONG_COLUMN_SOFTMAX;
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	qkv_describe_column(text, sizeof text, &problem, &trace, 0, 2);
	snprintf(expected, sizeof expected, "column t1: t1 and t3 tie at %.2f; the column sums to 1", a_self());
	ck_assert_str_eq(text, expected);
	qkv_describe_column(text, sizeof text, &problem, &trace, 2, 2);
	snprintf(expected, sizeof expected, "column t3: largest at t3 (%.2f); the column sums to 1", lead);
	ck_assert_str_eq(text, expected);
	/* The right way round, a column does not sum to 1 and is not said to. */
	problem.wrong = QKV_WRONG_NONE;
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	qkv_describe_column(text, sizeof text, &problem, &trace, 0, 2);
	ck_assert_msg(strstr(text, "sums to 1") == NULL, "%s", text);
}
END_TEST

START_TEST(long_sums_are_elided)
{
	/* d_k = 64: the dot product shows its first terms, the count, and the last. */
	ck_assert_int_eq(qkv_problem_random(&problem, 4, 64, 3, 7), 0);
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_SCORES, 1, 2, 2);
	ck_assert(strstr(text, "… (64 terms)") != NULL);
	ck_assert(strlen(text) < 200);
}
END_TEST

START_TEST(out_of_range_cells_are_refused)
{
	ck_assert_int_eq(qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_WEIGHTS, 3, 0, 4), QKV_EINVAL);
	ck_assert_int_eq(qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_OUTPUT, 0, 2, 4), QKV_EINVAL);
	ck_assert_int_eq(qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_PROJECTIONS, 0, 0, 4), QKV_EINVAL);
	ck_assert_str_eq(text, "");
}
END_TEST

START_TEST(small_buffers_are_truncated_safely)
{
	char small[16];
	int needed = qkv_derive(small, sizeof small, &problem, &trace, QKV_STAGE_SCORES, 0, 2, 4);

	ck_assert_int_eq(needed, (int)strlen("S[t1,t3] = q_t1 · k_t3 = 1×1 + 0×1 = 1"));
	ck_assert_int_eq((int)strlen(small), 15);
}
END_TEST

START_TEST(projection_cell)
{
	static const double x[] = { 1, 2, 0, 1 };
	static const double w[] = { 3, 0, -1, 1 };

	/* Two tokens, d_model 2: q_t1 = x_t1 · W_Q = (1·3 + 2·(−1), 1·0 + 2·1) = (1, 2). */
	qkv_problem_fini(&problem);
	ck_assert_int_eq(qkv_problem_worked_example(&problem), 0);
	ck_assert_int_eq(qkv_problem_remove_token(&problem, 2), 0);
	problem.form = QKV_FORM_PROJECTED;
	qkv_matrix_set_all(&problem.x, 2, 2, x);
	qkv_matrix_set_all(&problem.w_q, 2, 2, w);
	qkv_matrix_set_all(&problem.w_k, 2, 2, w);
	qkv_matrix_set_all(&problem.w_v, 2, 2, w);
	qkv_matrix_fini(&problem.q);
	qkv_matrix_fini(&problem.k);
	qkv_matrix_fini(&problem.v);
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_PROJECTIONS, 0, 0, 2);
	ck_assert_str_eq(text, "q[t1,d1] = x_t1 · W_Q column 1 = 1×3 + 2×(-1) = 1");
}
END_TEST

/* --- sentences about a row (describe.h) ----------------------------------------- */

/* e^H of a row of weights, by hand. */
static double effective(const double *a, int count)
{
	double h = 0.0;

	for (int j = 0; j < count; j++)
		if (a[j] > 0.0)
			h -= a[j] * log(a[j]);
	return exp(h);
}

/* Row i of the fixture's trace in words (the long sentence when full) reads exactly
 * as format and what follows print. */
__attribute__((format(printf, 3, 4)))
static void expect_row_words(int i, bool full, const char *format, ...)
{
	char expected[512];
	va_list args;

	va_start(args, format);
	vsnprintf(expected, sizeof expected, format, args);
	va_end(args);
	qkv_describe_row(text, sizeof text, &problem, &trace, i, 2, full);
	ck_assert_str_eq(text, expected);
}

/* Row t1 reads 0.40 0.20 0.40: t1 and t3 are named together, never "most on t1". */
START_TEST(ties_are_named_together)
{
	double row[3] = { a_self(), a_other(), a_self() };

	expect_row_words(0, false, "t1: t1 and t3 tie at %.2f, spread over %.1f of 3", a_self(),
			 effective(row, 3));
	ck_assert(strstr(text, "most on") == NULL);
	expect_row_words(1, false, "t2: t2 and t3 tie at %.2f, spread over %.1f of 3", a_self(),
			 effective(row, 3));
	expect_row_words(0, true, "t1 looks most at t1 and t3 (%.2f each), then t2 (%.2f); "
			 "spread over %.1f of 3 tokens.", a_self(), a_other(), effective(row, 3));
}
END_TEST

/* Token labels in sentences: a label like "the" is quoted so it never reads as
 * a word of the sentence, and two tokens with one label are told apart by
 * position; a label that is its own position's name (t2 for token 2) stays bare. */
START_TEST(token_words_quote_and_tell_repeats_apart)
{
	double row[3] = { a_self(), a_other(), a_self() };
	char words[96];

	ck_assert_int_eq(qkv_problem_set_label(&problem, 0, "the"), 0);
	ck_assert_int_eq(qkv_problem_set_label(&problem, 2, "dog"), 0);
	qkv_token_words(words, sizeof words, &problem, 1);
	ck_assert_str_eq(words, "t2");
	qkv_token_words(words, sizeof words, &problem, 0);
	ck_assert_str_eq(words, "\"the\"");
	expect_row_words(0, false, "\"the\": \"the\" and \"dog\" tie at %.2f, spread over %.1f of 3",
			 a_self(), effective(row, 3));
	/* Two tokens labelled dog: each is named by its position too. */
	ck_assert_int_eq(qkv_problem_set_label(&problem, 1, "dog"), 0);
	qkv_token_words(words, sizeof words, &problem, 2);
	ck_assert_str_eq(words, "t3 \"dog\"");
	expect_row_words(1, false, "t2 \"dog\": t2 \"dog\" and t3 \"dog\" tie at %.2f, spread over %.1f of 3",
			 a_self(), effective(row, 3));
	/* A label that names another position is not taken for that position. */
	ck_assert_int_eq(qkv_problem_set_label(&problem, 0, "t3"), 0);
	qkv_token_words(words, sizeof words, &problem, 0);
	ck_assert_str_eq(words, "\"t3\"");
}
END_TEST

/* Row t3: scaled (1, 1, 2)/√2, so t3 leads alone and t1, t2 tie behind it. */
START_TEST(a_single_leader_then_a_tie)
{
	double r = sqrt(2.0), e1 = exp(1 / r), e3 = exp(2 / r), z = 2 * e1 + e3;
	double row[3] = { e1 / z, e1 / z, e3 / z };

	expect_row_words(2, false, "t3: most on t3 (%.2f), spread over %.1f of 3", row[2], effective(row, 3));
	expect_row_words(2, true, "t3 looks most at t3 (%.2f), then t1 and t2 (%.2f each); "
			 "spread over %.1f of 3 tokens.", row[2], row[0], effective(row, 3));
}
END_TEST

/* A query of zeros scores 0 with every key: a uniform row says so. Under the causal
 * mask, t1 sees only itself and t2 its two keys. */
START_TEST(uniform_and_masked_rows)
{
	qkv_matrix_set(&problem.q, 0, 0, 0.0);
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	expect_row_words(0, false, "t1: uniform, 0.33 on each of 3");
	expect_row_words(0, true, "t1 spreads evenly: 0.33 on each of its 3 keys.");
	ck_assert_int_eq(qkv_problem_set_mask(&problem, QKV_MASK_CAUSAL), 0);
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	expect_row_words(0, false, "t1 sees only t1 (1.00)");
	/* t2 = (0, 1) against k1 = (1, 0) and k2 = (0, 1): 1 / (1 + e^{1/√2}) and the rest. */
	{
		double w = 1.0 / (1.0 + exp(1.0 / sqrt(2.0))), row[2] = { w, 1 - w };

		expect_row_words(1, false, "t2: most on t2 (%.2f), spread over %.1f of 2", 1 - w,
				 effective(row, 2));
	}
}
END_TEST

/* Four equal keys: "uniform, 0.25 on each of 4", never "most on t1 (0.25)". */
START_TEST(four_equal_keys)
{
	static const double zeros[8] = { 0 };

	ck_assert_int_eq(qkv_problem_insert_token(&problem, 3, NULL), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&problem.q, 4, 2, zeros), 0);
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	for (int i = 0; i < 4; i++) {
		qkv_describe_row(text, sizeof text, &problem, &trace, i, 2, false);
		ck_assert(strstr(text, ": uniform, 0.25 on each of 4") != NULL);
	}
}
END_TEST

/* A query that sees no key (every token padding): its mix has no terms, and the
 * line says so instead of an empty sum. */
START_TEST(mix_of_no_keys)
{
	problem.padding = calloc(3, 1);
	ck_assert_ptr_nonnull(problem.padding);
	memset(problem.padding, 1, 3);
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_MIX, 0, 0, 4);
	ck_assert_str_eq(text, "o_t1 = (0, 0): every key is masked, so there is nothing to mix\n"
			       "d1: 0, a sum of no terms");
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_OUTPUT, 0, 0, 4);
	ck_assert_str_eq(text, "O[t1,d1] = 0; o_t1 = (0, 0): every key is masked, so nothing is mixed");
}
END_TEST

/* The shares of stage 5, "mixes 40.1% t1, …", add up to 100.0% on random problems
 * of 2 to 6 tokens, each within 0.1 of 100 a_ij. */
START_TEST(shares_add_up_to_100)
{
	int n = 2 + _i % 5;
	const char *s;
	long tenths = 0;

	ck_assert_int_eq(qkv_problem_random(&problem, n, 3, 2, 100u + (uint64_t)_i), 0);
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	for (int row = 0; row < n; row++) {
		bool tiny = false;

		/* A share under 0.05% shows its next digit instead of 0: not counted here. */
		for (int j = 0; j < n; j++)
			tiny = tiny || qkv_matrix_get(&trace.weights, row, j) < 0.0005;
		if (tiny)
			continue;
		qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_OUTPUT, row, 0, 4);
		s = strstr(text, " mixes ");
		ck_assert_ptr_nonnull(s);
		s += strlen(" mixes ");
		tenths = 0;
		for (int j = 0; j < n; j++) {
			char *end;
			double share = strtod(s, &end);

			ck_assert_msg(end != s && *end == '%', "%s", text);
			ck_assert_msg(fabs(share - 100.0 * qkv_matrix_get(&trace.weights, row, j)) < 0.1, "%s",
				      text);
			tenths += lround(10.0 * share);
			s = strchr(end, ',');
			if (j + 1 < n) {
				ck_assert_ptr_nonnull(s);
				s += 2;
			}
		}
		ck_assert_msg(tenths == 1000, "%s: %ld tenths", text, tenths);
		ck_assert(strstr(text, "rounded alike") == NULL);
	}
}
END_TEST

/* Three equal weights cannot be rounded alike to add up: 33.3% each, and the line
 * says they add up to 99.9%. */
START_TEST(equal_shares_say_their_sum)
{
	qkv_matrix_set(&problem.q, 0, 0, 0.0);
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	qkv_derive(text, sizeof text, &problem, &trace, QKV_STAGE_OUTPUT, 0, 0, 4);
	ck_assert_msg(strstr(text, " mixes 33.3% t1, 33.3% t2, 33.3% t3 (equal shares rounded alike: 99.9% "
				   "in all)") != NULL, "%s", text);
}
END_TEST

/* The prediction is stated with its condition: N(0,1) entries of Q and K. */
START_TEST(variance_names_its_condition)
{
	char expected[128];
	double mean = 0.0, var = 0.0;

	/* The worked example's scaled scores: (1, 0, 1, 0, 1, 1, 1, 1, 2) / √2. */
	static const double s[9] = { 1, 0, 1, 0, 1, 1, 1, 1, 2 };
	for (int i = 0; i < 9; i++)
		mean += s[i] / sqrt(2.0) / 9;
	for (int i = 0; i < 9; i++)
		var += pow(s[i] / sqrt(2.0) - mean, 2) / 9;
	qkv_describe_variance(text, sizeof text, &trace);
	snprintf(expected, sizeof expected, "var(S') %.2f · if N(0,1): 1.00", var);
	ck_assert_str_eq(text, expected);
	/* Every token padding: no score reaches softmax, and no variance is claimed. */
	problem.padding = calloc(3, 1);
	ck_assert_ptr_nonnull(problem.padding);
	memset(problem.padding, 1, 3);
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	qkv_describe_variance(text, sizeof text, &trace);
	ck_assert_str_eq(text, "var(S') — · if N(0,1): 1.00");
}
END_TEST

/* The self-attention claim, made only when true: with Q = K = the example, t1 and t2
 * tie themselves with t3 and only t3 leads on itself alone. */
START_TEST(self_attention_claim_is_checked)
{
	char expected[256];

	qkv_describe_self(text, sizeof text, &problem, &trace, 2);
	snprintf(expected, sizeof expected, "1 of 3 tokens attends most to itself; t1 ties itself with t3 at %.2f; "
		 "t2 ties itself with t3 at %.2f", a_self(), a_self());
	ck_assert_str_eq(text, expected);
}
END_TEST

/* Makes query t1's weights exactly w[0..2] (they add up to 1): q_t1 = (1, 0) and
 * k_j = (√2 log w_j, 0), so S'[t1,j] = log w_j and softmax gives w_j back. */
static void set_row(const double *w)
{
	qkv_matrix_set(&problem.q, 0, 0, 1.0);
	qkv_matrix_set(&problem.q, 0, 1, 0.0);
	for (int j = 0; j < 3; j++) {
		qkv_matrix_set(&problem.k, j, 0, sqrt(2.0) * log(w[j]));
		qkv_matrix_set(&problem.k, j, 1, 0.0);
	}
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
}

/* 0.404 / 0.400 / 0.196 show 0.40 twice at two places: no tie, the digits that tell
 * them apart instead. */
START_TEST(a_lead_the_rounding_hides_gets_its_digits)
{
	double w[3] = { 0.404, 0.400, 0.196 };

	set_row(w);
	expect_row_words(0, false, "t1: t1 0.404 just ahead of t2 0.400, spread over %.1f of 3",
			 effective(w, 3));
	expect_row_words(0, true, "t1 looks most at t1 (0.404), just ahead of t2 (0.400); "
			 "spread over %.1f of 3 tokens.", effective(w, 3));
}
END_TEST

/* 0.334 / 0.333 / 0.333 is not uniform; 0.3351 / 0.3349 / 0.33 ranks t2 over t1 and
 * calls nothing equal (the 0.0049 gap to t3 was once "0.33 each"). */
START_TEST(near_uniform_rows_are_not_uniform)
{
	double w[3] = { 0.334, 0.333, 0.333 }, v[3] = { 0.3349, 0.3351, 0.33 };

	set_row(w);
	expect_row_words(0, false, "t1: t1 0.334 just ahead of t2 and t3 0.333 each, spread over %.1f of 3",
			 effective(w, 3));
	qkv_describe_row(text, sizeof text, &problem, &trace, 0, 2, true);
	ck_assert(strstr(text, "evenly") == NULL);
	set_row(v);
	expect_row_words(0, true, "t1 looks most at t2 (0.34), then t1 (0.33); "
			 "spread over %.1f of 3 tokens.", effective(v, 3));
	qkv_describe_self(text, sizeof text, &problem, &trace, 2);
	ck_assert(strstr(text, "t1 attends most to t2 (0.34; itself 0.33)") != NULL);
}
END_TEST

static bool has_word(const char *s, const char *word)
{
	return strstr(s, word) != NULL;
}

/* The keys named in text[from, to): every "tK". */
static int names_in(const char *from, const char *to, int *keys)
{
	int count = 0;

	for (const char *c = from; c + 1 < to; c++)
		if (c[0] == 't' && c[1] >= '1' && c[1] <= '9' && (c == from || c[-1] == ' ' || c[-1] == '('))
			keys[count++] = c[1] - '1';
	return count;
}

static bool equal_within(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* Random rows, many with exact ties and near ties (scores from a coarse grid, some
 * nudged by 1e-3 … 1e-13): an equality word (tie, uniform, evenly, each, the same)
 * only where the keys it names have weights equal within 1e-9; two groups named
 * side by side never show the same number. */
START_TEST(equality_words_only_for_equal_weights)
{
	struct lcg g = { 0x5eedULL + (uint64_t)_i };
	static const double nudge[] = { 0.0, 0.0, 1e-3, 1e-5, 1e-7, 1e-11, 1e-13 };
	int n = lcg_int(&g, 2, 4);

	while (problem.n < n)
		ck_assert_int_eq(qkv_problem_insert_token(&problem, problem.n, NULL), 0);
	while (problem.n > n)
		ck_assert_int_eq(qkv_problem_remove_token(&problem, problem.n - 1), 0);
	for (int i = 0; i < n; i++)
		for (int c = 0; c < 2; c++) {
			qkv_matrix_set(&problem.q, i, c, 0.5 * lcg_int(&g, -2, 2));
			qkv_matrix_set(&problem.k, i, c, 0.5 * lcg_int(&g, -2, 2) +
				       nudge[lcg_int(&g, 0, 6)] * lcg_int(&g, -1, 1));
		}
	ck_assert_int_eq(qkv_attention(&problem, &trace), 0);
	for (int i = 0; i < n; i++)
		for (int form = 0; form < 2; form++) {
			const char *colon, *words[] = { " tie", "uniform", "evenly", " each", "the same" };
			int keys[8], count;

			qkv_describe_row(text, sizeof text, &problem, &trace, i, 2, form == 1);
			if (has_word(text, "uniform") || has_word(text, "evenly")) {
				for (int j = 1; j < n; j++)
					ck_assert_msg(equal_within(qkv_matrix_get(&trace.weights, i, j),
								   qkv_matrix_get(&trace.weights, i, 0)), "%s", text);
				continue;
			}
			/* Every group of names before " tie" or " each": from the last ':',
			 * "at", "then" or "ahead of" before it. */
			for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
				for (const char *hit = strstr(text, words[w]); hit != NULL; hit = strstr(hit + 1, words[w])) {
					const char *from = text;

					for (const char *c = text; c < hit; c++)
						if (strncmp(c, ": ", 2) == 0 || strncmp(c, " at ", 4) == 0 ||
						    strncmp(c, "then ", 5) == 0 || strncmp(c, "ahead of ", 9) == 0)
							from = c;
					count = names_in(from + 1, hit, keys);
					ck_assert_msg(count >= 2, "%s: '%s' names %d keys", text, words[w], count);
					for (int k = 1; k < count; k++)
						ck_assert_msg(equal_within(qkv_matrix_get(&trace.weights, i, keys[k]),
									   qkv_matrix_get(&trace.weights, i, keys[0])),
							      "%s", text);
				}
			/* Two shown values in the long form: different groups, different texts. */
			colon = strstr(text, "looks most at");
			if (colon != NULL && strstr(text, "), ") != NULL) {
				char first[32] = "", second[32] = "";
				const char *a = strchr(colon, '('), *b = strchr(strstr(colon, "), ") + 3, '(');

				ck_assert(a != NULL && b != NULL);
				sscanf(a + 1, "%31[0-9.]", first);
				sscanf(b + 1, "%31[0-9.]", second);
				ck_assert_msg(strcmp(first, second) != 0, "%s", text);
			}
		}
	qkv_describe_self(text, sizeof text, &problem, &trace, 2);
	for (const char *hit = strstr(text, " ties itself with "); hit != NULL; hit = strstr(hit + 1, " ties itself with ")) {
		const char *start = hit, *end = strstr(hit, " at ");
		int keys[8], count, self;

		while (start > text && start[-1] != ' ')
			start--;
		self = start[1] - '1';
		count = names_in(hit + 18, end, keys);
		for (int k = 0; k < count; k++)
			ck_assert_msg(equal_within(qkv_matrix_get(&trace.weights, self, keys[k]),
						   qkv_matrix_get(&trace.weights, self, self)), "%s", text);
	}
}
END_TEST

/* --- "=" read back: a small reader of the derivations' arithmetic ------------- */

/* A value read from a derivation: a number or a vector, each component with half
 * a unit of its last shown place (0 when it was computed, not shown). */
struct read_value {
	int dim;
	double v[16], half[16];
};

struct reader {
	const char *at, *end;
	bool failed;
};

static bool reader_eat(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->at) >= n && strncmp(r->at, word, n) == 0) {
		r->at += n;
		return true;
	}
	return false;
}

static struct read_value read_expr(struct reader *r);

static struct read_value read_number(struct reader *r)
{
	struct read_value x = { 1, { 0 }, { 0 } };
	char *after;
	const char *dot, *e;

	if (r->at >= r->end || !(r->at[0] == '-' || (r->at[0] >= '0' && r->at[0] <= '9'))) {
		r->failed = true;
		return x;
	}
	x.v[0] = strtod(r->at, &after);
	if (after > r->end) {
		r->failed = true;
		return x;
	}
	dot = memchr(r->at, '.', (size_t)(after - r->at));
	e = memchr(r->at, 'e', (size_t)(after - r->at));
	if (e != NULL)  /* d.de±x: half of the last mantissa digit */
		x.half[0] = 0.5 * pow(10.0, atoi(e + 1) - (dot != NULL ? (int)(e - dot - 1) : 0));
	else if (dot != NULL)
		x.half[0] = 0.5 * pow(10.0, -(int)(after - dot - 1));
	else
		x.half[0] = 1e-9 * fmax(1.0, fabs(x.v[0]));
	r->at = after;
	return x;
}

static struct read_value read_factor(struct reader *r)
{
	struct read_value x = { 1, { 0 }, { 0 } };

	if (reader_eat(r, "e^")) {
		x = read_factor(r);
		x.v[0] = exp(x.v[0]);
		x.half[0] = 0.0;
		return x;
	}
	if (reader_eat(r, "√")) {
		x = read_number(r);
		x.v[0] = sqrt(x.v[0]);
		x.half[0] = 0.0;
		return x;
	}
	if (reader_eat(r, "(")) {
		x = read_expr(r);
		while (!r->failed && reader_eat(r, ", ")) {
			struct read_value y = read_expr(r);

			if (x.dim == 16 || y.dim != 1) {
				r->failed = true;
				break;
			}
			x.v[x.dim] = y.v[0];
			x.half[x.dim++] = y.half[0];
		}
		if (!reader_eat(r, ")"))
			r->failed = true;
		return x;
	}
	return read_number(r);
}

static struct read_value read_term(struct reader *r)
{
	struct read_value x = read_factor(r);

	for (;;) {
		bool times = reader_eat(r, "×"), divide = !times && reader_eat(r, " / ");
		struct read_value y;

		if (!times && !divide)
			return x;
		y = read_factor(r);
		if (x.dim != 1 && y.dim != 1)
			r->failed = true;
		if (x.dim == 1 && y.dim > 1) {
			for (int c = 0; c < y.dim; c++)
				y.v[c] = x.v[0] * y.v[c];
			x = y;
		} else {
			for (int c = 0; c < x.dim; c++)
				x.v[c] = divide ? x.v[c] / y.v[0] : x.v[c] * y.v[0];
		}
		for (int c = 0; c < x.dim; c++)
			x.half[c] = 0.0;
	}
}

static struct read_value read_expr(struct reader *r)
{
	struct read_value x = read_term(r);

	while (!r->failed && reader_eat(r, " + ")) {
		struct read_value y = read_term(r);

		if (y.dim != x.dim)
			r->failed = true;
		for (int c = 0; c < x.dim && c < y.dim; c++) {
			x.v[c] += y.v[c];
			x.half[c] = 0.0;
		}
	}
	return x;
}

/* Reads text[from, to) whole; false when it is not arithmetic (a name, "…"). */
static bool read_all(const char *from, const char *to, struct read_value *x)
{
	struct reader r = { from, to, false };

	*x = read_expr(&r);
	return !r.failed && r.at == to;
}

/* The text's top-level " / " in [from, to) (outside parentheses), or NULL. */
static const char *top_divide(const char *from, const char *to)
{
	int depth = 0;

	for (const char *c = from; c + 3 <= to; c++) {
		depth += *c == '(' ? 1 : *c == ')' ? -1 : 0;
		if (depth == 0 && strncmp(c, " / ", 3) == 0)
			return c;
	}
	return NULL;
}

/* "left = right" holds at right's shown digits: every shown number of right is
 * left's value (or, for "a / b = c / d", a's and b's) rounded to its places. */
static bool equal_at_shown_digits(const char *l0, const char *l1, const char *r0, const char *r1)
{
	const char *ld = top_divide(l0, l1), *rd = top_divide(r0, r1);
	struct read_value left, right;

	if (ld != NULL && rd != NULL && read_all(r0, rd, &right) && right.half[0] > 0.0)
		return equal_at_shown_digits(l0, ld, r0, rd) && equal_at_shown_digits(ld + 3, l1, rd + 3, r1);
	if (!read_all(l0, l1, &left) || !read_all(r0, r1, &right))
		return true;
	if (left.dim != right.dim)
		return false;
	for (int c = 0; c < right.dim; c++) {
		double half = right.half[c] > 0.0 ? right.half[c] : 1e-9 * fmax(1.0, fabs(right.v[c]));

		if (fabs(left.v[c] - right.v[c]) > half * (1.0 + 1e-6))
			return false;
	}
	return true;
}

/* Every " = " of a derivation's lines, read back, holds at its shown digits;
 * returns how many were read as arithmetic on both sides. */
static int check_equalities(const char *derivation)
{
	const char *line = derivation;
	int checked = 0;

	while (*line != '\0') {
		const char *end = strchr(line, '\n'), *prev, *sep, *next;

		if (end == NULL)
			end = line + strlen(line);
		/* "d1: …" */
		prev = line;
		if (strncmp(prev, "d", 1) == 0 && strstr(prev, ": ") != NULL && strstr(prev, ": ") < end &&
		    strstr(prev, ": ") - prev < 5)
			prev = strstr(prev, ": ") + 2;
		for (;;) {
			const char *eq = strstr(prev, " = "), *approx = strstr(prev, " ≈ ");
			struct read_value a, b;
			bool equals;

			if ((eq == NULL || eq >= end) && (approx == NULL || approx >= end))
				break;
			equals = eq != NULL && eq < end && (approx == NULL || approx >= end || eq < approx);
			sep = equals ? eq : approx;
			next = sep + (equals ? 3 : strlen(" ≈ "));
			{
				const char *eq2 = strstr(next, " = "), *ap2 = strstr(next, " ≈ "), *stop = end;

				if (eq2 != NULL && eq2 < stop)
					stop = eq2;
				if (ap2 != NULL && ap2 < stop)
					stop = ap2;
				if (equals && read_all(prev, sep, &a) && read_all(next, stop, &b))
					checked++;
				if (equals)
					ck_assert_msg(equal_at_shown_digits(prev, sep, next, stop),
						      "\"=\" does not hold at the shown digits: %s", derivation);
			}
			prev = next;
		}
		line = *end == '\n' ? end + 1 : end;
	}
	return checked;
}

/* Random problems (inputs with up to four places, temperatures, masks and the
 * wrong ways), every cell of every stage at 2 and 4 places: each "=" read back
 * holds at the digits it shows, or the derivation says "≈". */
START_TEST(every_equals_holds_at_its_digits)
{
	struct lcg g = { 0xd161ULL + 7919ULL * (uint64_t)_i };
	int n = lcg_int(&g, 2, 4), checked = 0;
	static const double temperatures[] = { 1.0, 1.0, 0.5, 1.7 };

	while (problem.n < n)
		ck_assert_int_eq(qkv_problem_insert_token(&problem, problem.n, NULL), 0);
	while (problem.n > n)
		ck_assert_int_eq(qkv_problem_remove_token(&problem, problem.n - 1), 0);
	for (int i = 0; i < n; i++)
		for (int c = 0; c < 2; c++) {
			double scale = pow(10.0, lcg_int(&g, 0, 4));

			qkv_matrix_set(&problem.q, i, c, nearbyint(3 * scale * lcg_signed(&g)) / scale);
			qkv_matrix_set(&problem.k, i, c, nearbyint(3 * scale * lcg_signed(&g)) / scale);
			qkv_matrix_set(&problem.v, i, c, nearbyint(10 * scale * lcg_signed(&g)) / scale);
		}
	problem.temperature = temperatures[lcg_int(&g, 0, 3)];
	ck_assert_int_eq(qkv_problem_set_mask(&problem, lcg_int(&g, 0, 1) ? QKV_MASK_CAUSAL : QKV_MASK_NONE), 0);
	problem.wrong = (enum qkv_wrong)lcg_int(&g, 0, 2);
	if (qkv_attention(&problem, &trace) != 0)
		return;
	for (int decimals = 2; decimals <= 4; decimals += 2)
		for (enum qkv_stage stage = QKV_STAGE_SCORES; stage <= QKV_STAGE_OUTPUT; stage++)
			for (int i = 0; i < n; i++)
				for (int j = 0; j < (stage >= QKV_STAGE_MIX ? trace.d_v : n); j++) {
					ck_assert_int_ge(qkv_derive(text, sizeof text, &problem, &trace, stage, i, j,
								    decimals), 0);
					checked += check_equalities(text);
				}
	ck_assert_int_gt(checked, 0);
}
END_TEST

/* The reader is not blind: a sum that does not hold is caught. */
START_TEST(the_reader_catches_a_false_equals)
{
	ck_assert_int_eq(check_equalities("d1: 0.4011×10 + 0.1978×0 + 0.4011×5 ≈ 6.0167"), 0);
	ck_assert(equal_at_shown_digits("1 + 2", "1 + 2" + 5, "3", "3" + 1));
	{
		const char *l = "0.4011×10 + 0.1978×0 + 0.4011×5", *r = "6.0167";

		ck_assert(!equal_at_shown_digits(l, l + strlen(l), r, r + strlen(r)));
	}
	{
		const char *l = "e^0 / (1 + 1.8e-08 + 2.1e-05)", *r = "1 / 1";

		ck_assert(!equal_at_shown_digits(l, l + strlen(l), r, r + strlen(r)));
	}
}
END_TEST

static Suite *derive_suite(void)
{
	Suite *s = suite_create("derive");
	TCase *tc = tcase_create("worked example");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, scores_written_as_products);
	tcase_add_test(tc, scaled_shows_the_divisor);
	tcase_add_test(tc, scaled_with_temperature_and_no_scale);
	tcase_add_test(tc, weights_show_the_exponentials);
	tcase_add_test(tc, mix_is_the_weighted_sum_of_values);
	tcase_add_test(tc, output_names_each_share);
	tcase_add_test(tc, masked_cells_say_so);
	tcase_add_test(tc, wrong_way_weights_say_what_they_normalise);
	tcase_add_test(tc, column_softmax_describes_columns);
	tcase_add_test(tc, token_words_quote_and_tell_repeats_apart);
	tcase_add_test(tc, long_sums_are_elided);
	tcase_add_test(tc, out_of_range_cells_are_refused);
	tcase_add_test(tc, small_buffers_are_truncated_safely);
	tcase_add_test(tc, projection_cell);
	tcase_add_test(tc, ties_are_named_together);
	tcase_add_test(tc, a_single_leader_then_a_tie);
	tcase_add_test(tc, uniform_and_masked_rows);
	tcase_add_test(tc, four_equal_keys);
	tcase_add_test(tc, mix_of_no_keys);
	tcase_add_loop_test(tc, shares_add_up_to_100, 0, 40);
	tcase_add_test(tc, equal_shares_say_their_sum);
	tcase_add_test(tc, variance_names_its_condition);
	tcase_add_test(tc, self_attention_claim_is_checked);
	tcase_add_test(tc, a_lead_the_rounding_hides_gets_its_digits);
	tcase_add_test(tc, near_uniform_rows_are_not_uniform);
	tcase_add_loop_test(tc, equality_words_only_for_equal_weights, 0, 300);
	tcase_add_loop_test(tc, every_equals_holds_at_its_digits, 0, 200);
	tcase_add_test(tc, the_reader_catches_a_false_equals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_tap(derive_suite());
}
