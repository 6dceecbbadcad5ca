/* test_online.c — Check suite for the online softmax (online.h): the worked
 * example's row t1 tile by tile against its closed form; the output, m and ℓ
 * against the standard trace (a second method, tested on its own in
 * test_attention) over random problems, tiles, masks and scales, extreme scores
 * included; what each tile reports; the cases it refuses; and that it never asks
 * for an n × n block of memory (malloc, calloc and realloc are wrapped at link
 * time, see meson.build). Inputs come from the tests' own LCG. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/attention.h"
#include "qkv/error.h"
#include "qkv/heads.h"
#include "qkv/online.h"
#include "qkv/problem.h"

#include "fixtures.h"
#include "lcg.h"
#include "tap_main.h"

/* --- the largest block asked for, through the linker's --wrap ------------------- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *block, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *block, size_t size);

static size_t largest_request;

static void note_request(size_t size)
{
	if (size > largest_request)
		largest_request = size;
}

void *__wrap_malloc(size_t size)
{
	note_request(size);
	return __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size)
{
	note_request(count * size);
	return __real_calloc(count, size);
}

void *__wrap_realloc(void *block, size_t size)
{
	note_request(size);
	return __real_realloc(block, size);
}

/* --- building problems ---------------------------------------------------------- */

/* A direct-form problem: Q, K in [-qk, qk), V in [-5, 5). */
static void build_direct(struct qkv_problem *p, int n, int d_k, int d_v, double qk, struct lcg *g)
{
	qkv_problem_init(p);
	give_labels(p, n);
	p->form = QKV_FORM_DIRECT;
	fill(&p->q, n, d_k, qk, g);
	fill(&p->k, n, d_k, qk, g);
	fill(&p->v, n, d_v, 5.0, g);
	ck_assert_int_eq(qkv_problem_check(p), 0);
}

/* The largest |v| of V: the scale of every output entry (a weighted mean of V's). */
static double largest_value(const struct qkv_matrix *v)
{
	double largest = 0.0;

	for (int i = 0; i < v->rows * v->cols; i++)
		largest = fmax(largest, fabs(v->values[i]));
	return largest;
}

/* The online output, m and ℓ of p against its standard trace: the output within
 * 1e-12 of V's scale, m exactly the largest live scaled score (both paths sum the
 * scores alike), ℓ within 1e-12 relative of Σ e^(s' − m) summed here. */
static void check_against_standard(const struct qkv_problem *p, int tile)
{
	struct qkv_trace t;
	struct qkv_online o;
	double scale;

	qkv_trace_init(&t);
	qkv_online_init(&o);
	ck_assert_int_eq(qkv_attention(p, &t), 0);
	ck_assert_int_eq(qkv_online_attention(p, tile, &o), 0);
	ck_assert_int_eq(o.queries, t.m);
	ck_assert_int_eq(o.keys, t.n);
	ck_assert_int_eq(o.tile, tile < t.n ? tile : t.n);
	scale = fmax(largest_value(&t.v), 1e-300);
	for (int i = 0; i < t.m; i++) {
		bool all_in_sum = p->wrong == QKV_WRONG_MASK_AFTER_SOFTMAX;
		double max = -INFINITY, sum = 0.0;

		for (int c = 0; c < t.d_v; c++)
			ck_assert_msg(fabs(qkv_matrix_get(&o.output, i, c) - qkv_matrix_get(&t.output, i, c)) <=
					      1e-12 * scale,
				      "n %d tile %d row %d col %d: online %.17g, standard %.17g", t.n, tile, i, c,
				      qkv_matrix_get(&o.output, i, c), qkv_matrix_get(&t.output, i, c));
		for (int j = 0; j < t.n; j++)
			if ((all_in_sum || !qkv_trace_is_masked(&t, i, j)) && qkv_matrix_get(&t.scaled, i, j) > max)
				max = qkv_matrix_get(&t.scaled, i, j);
		ck_assert(o.max[i] == max);
		for (int j = 0; j < t.n; j++)
			if (all_in_sum || !qkv_trace_is_masked(&t, i, j))
				sum += exp(qkv_matrix_get(&t.scaled, i, j) - max);
		ck_assert_msg(fabs(o.sum[i] - sum) <= 1e-12 * fmax(sum, 1.0), "row %d: ℓ %.17g, Σ %.17g", i,
			      o.sum[i], sum);
	}
	qkv_online_fini(&o);
	qkv_trace_fini(&t);
}

/* --- the worked example, by hand ------------------------------------------------- */

/* Row t1 of the worked example with tile 1: q = (1, 0) against k = (1, 0), (0, 1),
 * (1, 1), so s' = 1/√2, 0, 1/√2, and v = (10, 0), (0, 10), (5, 5). Closed form per
 * tile: m = 1/√2 after the first and for good; ℓ = 1, 1 + e^(−1/√2), 2 + e^(−1/√2);
 * o = (10, 0), (10, 10e^(−1/√2)), (15, 5 + 10e^(−1/√2)). */
START_TEST(test_worked_example_row_t1_tile_by_tile)
{
	struct qkv_problem p;
	struct qkv_online_row r;
	struct qkv_online_tile what[3];
	double acc[2], out[2], score, e = exp(-1.0 / sqrt(2.0)), s = 1.0 / sqrt(2.0);
	double want_sum[3] = { 1.0, 1.0 + e, 2.0 + e };
	double want_o[3][2] = { { 10, 0 }, { 10, 10 * e }, { 15, 5 + 10 * e } };

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	qkv_online_row_start(&r, acc, 2);
	ck_assert(isinf(r.max) && r.max < 0 && r.sum == 0.0);
	for (int j = 0; j < 3; j++) {
		qkv_online_row_tile(&r, &p, 0, qkv_matrix_row_const(&p.q, 0), &p.k, &p.v, sqrt(2.0), j, 1,
				    &score, &what[j]);
		ck_assert_double_eq_tol(score, j == 1 ? 0.0 : s, 1e-15);
		ck_assert_double_eq_tol(r.max, s, 1e-15);
		ck_assert_double_eq_tol(r.sum, want_sum[j], 1e-15);
		ck_assert_double_eq_tol(acc[0], want_o[j][0], 1e-13);
		ck_assert_double_eq_tol(acc[1], want_o[j][1], 1e-13);
		ck_assert_int_eq(what[j].first, j);
		ck_assert_int_eq(what[j].count, 1);
		ck_assert_int_eq(what[j].live, 1);
	}
	/* The maximum appears in the first tile and never grows: the first tile
	 * rescales from nothing (0), the others not at all (1). */
	ck_assert(isinf(what[0].max_before) && what[0].rescale == 0.0);
	ck_assert(what[1].rescale == 1.0 && what[2].rescale == 1.0);
	ck_assert(what[1].sum_before == what[0].sum_after && what[2].sum_before == what[1].sum_after);
	qkv_online_row_finish(&r, out);
	ck_assert_double_eq_tol(out[0], 15 / (2 + e), 1e-14);
	ck_assert_double_eq_tol(out[1], (5 + 10 * e) / (2 + e), 1e-14);
	qkv_problem_fini(&p);
}
END_TEST

/* A maximum that grows: keys in the order of rising scores make every tile rescale,
 * by e^(m_before − m_after), and ℓ_after = ℓ_before · rescale + Σ e^(s − m_after)
 * over the tile, each taken here from the tile's own reported scores. */
START_TEST(test_tiles_report_their_rescaling)
{
	struct qkv_problem p;
	struct qkv_online_row r;
	double acc[1], scores[2];

	qkv_problem_init(&p);
	give_labels(&p, 6);
	p.form = QKV_FORM_DIRECT;
	ck_assert_int_eq(qkv_matrix_zero(&p.q, 6, 1), 0);
	ck_assert_int_eq(qkv_matrix_zero(&p.k, 6, 1), 0);
	ck_assert_int_eq(qkv_matrix_zero(&p.v, 6, 1), 0);
	for (int j = 0; j < 6; j++) {
		qkv_matrix_set(&p.q, j, 0, 1.0);
		qkv_matrix_set(&p.k, j, 0, (double)j);
		qkv_matrix_set(&p.v, j, 0, (double)(j + 1));
	}
	p.scale = QKV_SCALE_NONE;
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_online_row_start(&r, acc, 1);
	for (int first = 0; first < 6; first += 2) {
		struct qkv_online_tile what;
		double want_sum;

		qkv_online_row_tile(&r, &p, 0, qkv_matrix_row_const(&p.q, 0), &p.k, &p.v, 1.0, first, 2,
				    scores, &what);
		ck_assert(scores[0] == (double)first && scores[1] == (double)(first + 1));
		ck_assert(what.max_after == (double)(first + 1));
		if (first == 0) {
			ck_assert(what.rescale == 0.0);
		} else {
			ck_assert(what.max_before == (double)(first - 1));
			ck_assert_double_eq_tol(what.rescale, exp(-2.0), 1e-16);
		}
		want_sum = what.sum_before * what.rescale + exp(scores[0] - what.max_after) +
			   exp(scores[1] - what.max_after);
		ck_assert_double_eq_tol(what.sum_after, want_sum, 1e-15);
	}
	qkv_problem_fini(&p);
}
END_TEST

/* --- against the standard trace --------------------------------------------------- */

/* Random problems, n 1 to 200, with tiles of 1, 7, n and more than n, under every
 * kind of mask, padding, scale and temperature. */
START_TEST(test_random_problems_match_the_standard_output)
{
	struct lcg g = { 20261202 };

	for (int round = 0; round < 60; round++) {
		struct qkv_problem p;
		int n = round < 4 ? round + 1 : lcg_int(&g, 1, 200);
		int tiles[4] = { 1, 7, n, n + lcg_int(&g, 1, 9) };

		build_direct(&p, n, lcg_int(&g, 1, 8), lcg_int(&g, 1, 5), 3.0, &g);
		switch (round % 5) {
		case 1:
			ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
			break;
		case 2:
			ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CUSTOM), 0);
			for (int i = 0; i < n * n; i++)
				p.mask_bits[i] = lcg_int(&g, 0, 2) == 0;
			break;
		case 3:
			p.padding = calloc((size_t)n, 1);
			ck_assert_ptr_nonnull(p.padding);
			for (int j = 0; j < n; j++)
				p.padding[j] = lcg_int(&g, 0, 3) == 0;
			break;
		case 4:
			p.wrong = QKV_WRONG_MASK_AFTER_SOFTMAX;
			ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
			break;
		default:
			break;
		}
		p.scale = round % 3 == 0 ? QKV_SCALE_SQRT_DK : round % 3 == 1 ? QKV_SCALE_NONE : QKV_SCALE_CUSTOM;
		p.scale_value = 0.5 + (lcg_signed(&g) + 1.0);
		p.temperature = 0.25 + 2.0 * (lcg_signed(&g) + 1.0);
		ck_assert_int_eq(qkv_problem_check(&p), 0);
		for (int t = 0; t < 4; t++)
			check_against_standard(&p, tiles[t]);
		qkv_problem_fini(&p);
	}
}
END_TEST

/* Scores of ±1000 (where e^(s − m) underflows and the rescaling decides
 * everything), with the largest score in the last tile, and in the first. */
START_TEST(test_extreme_scores_match_the_standard_output)
{
	struct lcg g = { 77 };

	for (int round = 0; round < 8; round++) {
		struct qkv_problem p;
		int n = 40;

		build_direct(&p, n, 2, 3, 1.0, &g);
		p.scale = QKV_SCALE_NONE;
		for (int j = 0; j < n; j++) {
			/* Key scores rising to +1000 at the end, or falling from it. */
			double s = -1000.0 + 2000.0 * (round % 2 == 0 ? j : n - 1 - j) / (n - 1);

			qkv_matrix_set(&p.k, j, 0, s / 40.0);
			qkv_matrix_set(&p.k, j, 1, lcg_signed(&g));
		}
		for (int i = 0; i < n; i++) {
			qkv_matrix_set(&p.q, i, 0, 40.0 * (i % 2 == 0 ? 1.0 : -1.0));
			qkv_matrix_set(&p.q, i, 1, 0.0);
		}
		ck_assert_int_eq(qkv_problem_check(&p), 0);
		check_against_standard(&p, 1 + round);
		qkv_problem_fini(&p);
	}
}
END_TEST

/* The projected form computes Q, K, V first, as the trace does. */
START_TEST(test_projected_form_matches_the_standard_output)
{
	struct lcg g = { 5 };
	struct qkv_problem p;

	qkv_problem_init(&p);
	give_labels(&p, 12);
	p.form = QKV_FORM_PROJECTED;
	fill(&p.x, 12, 6, 2.0, &g);
	fill(&p.w_q, 6, 3, 1.0, &g);
	fill(&p.w_k, 6, 3, 1.0, &g);
	fill(&p.w_v, 6, 4, 1.0, &g);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	check_against_standard(&p, 5);
	qkv_problem_fini(&p);
}
END_TEST

/* Cross-attention: m queries against n keys, direct (drawn) and projected (a
 * self-attention problem cut into a decoder's first m tokens and an encoder's
 * first n, the queries then from X_q), with padding on a key. */
START_TEST(test_cross_attention_matches_the_standard_output)
{
	static const int sizes[][2] = { { 1, 5 }, { 5, 1 }, { 3, 7 }, { 9, 4 }, { 6, 6 } };
	struct lcg g = { 13 };

	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		struct qkv_problem p;
		int m = sizes[s][0], n = sizes[s][1], big = m > n ? m : n;

		qkv_problem_init(&p);
		ck_assert_int_eq(qkv_problem_random_cross(&p, m, n, 3, 2, 100 + s), 0);
		ck_assert(qkv_problem_is_cross(&p));
		for (int tile = 1; tile <= n + 1; tile += 2)
			check_against_standard(&p, tile);
		qkv_problem_fini(&p);
		qkv_problem_init(&p);
		give_labels(&p, big);
		p.form = QKV_FORM_PROJECTED;
		fill(&p.x, big, 4, 2.0, &g);
		fill(&p.w_q, 4, 3, 1.0, &g);
		fill(&p.w_k, 4, 3, 1.0, &g);
		fill(&p.w_v, 4, 2, 1.0, &g);
		ck_assert_int_eq(qkv_problem_check(&p), 0);
		ck_assert_int_eq(qkv_problem_cut_cross(&p, m, n), 0);
		ck_assert(qkv_problem_is_cross(&p));
		if (n > 1) {
			p.padding = calloc((size_t)n, 1);
			ck_assert_ptr_nonnull(p.padding);
			p.padding[n - 1] = 1;
		}
		ck_assert_int_eq(qkv_problem_check(&p), 0);
		check_against_standard(&p, 2);
		qkv_problem_fini(&p);
	}
}
END_TEST

/* A query that sees no key: m stays −∞, ℓ 0, and its output row is 0, as the
 * standard trace's. */
START_TEST(test_fully_hidden_row_is_zero)
{
	struct lcg g = { 9 };
	struct qkv_problem p;
	struct qkv_online o;

	build_direct(&p, 5, 2, 2, 1.0, &g);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CUSTOM), 0);
	memset(p.mask_bits, 1, 5); /* query 0 sees nothing */
	check_against_standard(&p, 2);
	qkv_online_init(&o);
	ck_assert_int_eq(qkv_online_attention(&p, 2, &o), 0);
	ck_assert(isinf(o.max[0]) && o.max[0] < 0);
	ck_assert(o.sum[0] == 0.0);
	ck_assert(qkv_matrix_get(&o.output, 0, 0) == 0.0 && qkv_matrix_get(&o.output, 0, 1) == 0.0);
	qkv_online_fini(&o);
	qkv_problem_fini(&p);
}
END_TEST

/* What it cannot do: the softmax down the columns, a tile below 1, several heads. */
START_TEST(test_refusals)
{
	struct lcg g = { 3 };
	struct qkv_problem p, heads;
	struct qkv_online o;

	qkv_online_init(&o);
	build_direct(&p, 4, 2, 2, 1.0, &g);
	ck_assert_int_eq(qkv_online_attention(&p, 0, &o), QKV_EINVAL);
	ck_assert_int_eq(o.queries, 0);
	p.wrong = QKV_WRONG_COLUMN_SOFTMAX;
	ck_assert_int_eq(qkv_online_attention(&p, 2, &o), QKV_EINVAL);
	qkv_problem_init(&heads);
	ck_assert_int_eq(qkv_problem_random_heads(&heads, 4, 2, 4, 1), 0);
	ck_assert_int_eq(qkv_online_attention(&heads, 2, &o), QKV_EINVAL);
	qkv_online_fini(&o);
	qkv_problem_fini(&heads);
	qkv_problem_fini(&p);
}
END_TEST

/* n = 1024 (the most a problem holds) with d_k = d_v = 4: the largest block asked
 * for while computing is Q's, K's or V's copy (n·4 doubles, 32 kB), never one of
 * n² (8 MB for S alone); the bytes it reports are those blocks and a few rows. */
START_TEST(test_no_n_by_n_block)
{
	struct lcg g = { 11 };
	struct qkv_problem p;
	struct qkv_online o;
	int n = QKV_MAX_TOKENS;
	size_t n_by_n = (size_t)n * (size_t)n * sizeof(double);

	build_direct(&p, n, 4, 4, 1.0, &g);
	qkv_online_init(&o);
	largest_request = 0;
	ck_assert_int_eq(qkv_online_attention(&p, 64, &o), 0);
	ck_assert_msg(largest_request <= (size_t)n * 4 * sizeof(double), "largest block %zu bytes",
		      largest_request);
	ck_assert(largest_request < n_by_n / 100);
	ck_assert_uint_eq(o.bytes, sizeof(double) * ((size_t)n * 4 * 4 + 2 * (size_t)n + 64 + 4));
	qkv_online_fini(&o);
	qkv_problem_fini(&p);
}
END_TEST

/* --- the block form ---------------------------------------------------------------- */

/* The block form of random problems (n 1 … 200, queries in blocks, tiles 1, 7, n
 * and more than n, scores up to ±1e3 where the rescaling matters) against the
 * standard trace of the same Q, K, V: within 1e-12 of V's scale. */
START_TEST(test_blocks_match_the_standard_output)
{
	struct lcg g = { 500u + (uint64_t)_i };
	int n = lcg_int(&g, 1, 200), d_k = lcg_int(&g, 1, 20), d_v = lcg_int(&g, 1, 20);
	int tiles[4] = { 1, 7, n, n + 5 };
	double reach = _i % 3 == 0 ? 40.0 : 2.0; /* 40: scaled scores in the hundreds */
	struct qkv_problem p;
	struct qkv_trace t;
	struct qkv_matrix out;

	build_direct(&p, n, d_k, d_v, reach, &g);
	qkv_trace_init(&t);
	qkv_matrix_init(&out);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(qkv_matrix_zero(&out, n, d_v), 0);
	for (int k = 0; k < 4; k++) {
		struct qkv_online_blocks w;
		double scale = fmax(largest_value(&t.v), 1e-300);

		ck_assert_int_eq(qkv_online_blocks_init(&w, d_k, d_v, tiles[k]), 0);
		for (int from = 0; from < n; from += QKV_ONLINE_QUERY_BLOCK) {
			int to = from + QKV_ONLINE_QUERY_BLOCK < n ? from + QKV_ONLINE_QUERY_BLOCK : n;

			qkv_online_blocks_rows(&w, &t.q, &t.k, &t.v, qkv_problem_divisor(&p), from, to, &out);
		}
		for (int i = 0; i < n; i++)
			for (int c = 0; c < d_v; c++)
				ck_assert_msg(fabs(qkv_matrix_get(&out, i, c) - qkv_matrix_get(&t.output, i, c)) <=
						      1e-12 * scale,
					      "n %d tile %d row %d col %d: blocks %.17g, standard %.17g", n, tiles[k], i,
					      c, qkv_matrix_get(&out, i, c), qkv_matrix_get(&t.output, i, c));
		qkv_online_blocks_fini(&w);
	}
	qkv_matrix_fini(&out);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* The block form holds its copies, S and P V_tile, never n × n: at n = 4,096 no
 * request is larger than the block's scores or a tile, and the bytes it reports
 * are those requests added up by hand. */
START_TEST(test_blocks_hold_no_n_by_n_block)
{
	struct qkv_online_blocks w;
	int b = QKV_ONLINE_QUERY_BLOCK, d = 64, tile = 64;

	largest_request = 0;
	ck_assert_int_eq(qkv_online_blocks_init(&w, d, d, tile), 0);
	ck_assert_uint_eq(w.bytes, sizeof(double) * ((size_t)b * d + (size_t)d * tile + (size_t)tile * d +
						     (size_t)b * tile + (size_t)b * d + 2 * (size_t)b));
	ck_assert_uint_le(largest_request, sizeof(double) * (size_t)b * (size_t)tile);
	qkv_online_blocks_fini(&w);
	ck_assert_int_eq(qkv_online_blocks_init(&w, 0, 4, 4), QKV_EINVAL);
	ck_assert_int_eq(qkv_online_blocks_init(&w, 4, 4, 0), QKV_EINVAL);
}
END_TEST

static Suite *online_suite(void)
{
	Suite *s = suite_create("online");
	TCase *hand = tcase_create("by hand");
	TCase *standard = tcase_create("against the standard trace");
	TCase *limits = tcase_create("limits");

	tcase_add_test(hand, test_worked_example_row_t1_tile_by_tile);
	tcase_add_test(hand, test_tiles_report_their_rescaling);
	tcase_add_test(standard, test_random_problems_match_the_standard_output);
	tcase_add_test(standard, test_extreme_scores_match_the_standard_output);
	tcase_add_test(standard, test_projected_form_matches_the_standard_output);
	tcase_add_test(standard, test_cross_attention_matches_the_standard_output);
	tcase_add_test(standard, test_fully_hidden_row_is_zero);
	tcase_add_test(limits, test_refusals);
	tcase_add_test(limits, test_no_n_by_n_block);
	tcase_add_loop_test(standard, test_blocks_match_the_standard_output, 0, 24);
	tcase_add_test(limits, test_blocks_hold_no_n_by_n_block);
	tcase_set_timeout(standard, 60);
	suite_add_tcase(s, hand);
	suite_add_tcase(s, standard);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	return run_tap(online_suite());
}
