/* latex_text.c — qkv's plain text as LaTeX (see latex_text.h). The formulas of
 * its sentences and derivations are read by a small scanner: numbers, one-letter
 * names with their subscripts (q_t1, a_ij, d_k), indices in brackets (S[t1,t2]),
 * superscripts (e^(S' − max), n², Kᵀ) and qkv's glyphs become inline math; words
 * and punctuation stay text, so the line breaks at its spaces. It never changes a
 * number or a word, only how it is typeset. */
#include "io/report/latex_text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/text.h"

#define ESCAPED_LABEL (QKV_MAX_LABEL * 18 + 1) /* a label, each byte escaped */

/* qkv's glyphs (the derivations' and the printer's) in LaTeX text mode, so a
 * report compiles with pdflatex and amsmath alone. */
static const char *const text_glyphs[][2] = {
	{ "—", "---" }, { "×", "$\\times$" }, { "·", "$\\cdot$" }, { "Σ", "$\\Sigma$" },
	{ "√", "$\\surd$" }, { "÷", "$\\div$" }, { "≤", "$\\le$" }, { "τ", "$\\tau$" },
	{ "ᵀ", "$^\\top$" }, { "−", "$-$" }, { "≈", "$\\approx$" }, { "…", "\\ldots{}" },
	{ "∞", "$\\infty$" }, { "→", "$\\to$" }, { "ℓ", "$\\ell$" }, { "²", "$^2$" },
};

void latex_text_escape(char *dst, size_t size, const char *src)
{
	size_t used = 0;

	if (size == 0)
		return;
	dst[0] = '\0';
	while (*src != '\0') {
		const char *with = NULL;
		char plain[5] = { '\0' };
		size_t consumed = 1;

		for (size_t g = 0; g < sizeof text_glyphs / sizeof *text_glyphs; g++) {
			size_t glyph = strlen(text_glyphs[g][0]);
			if (strncmp(src, text_glyphs[g][0], glyph) == 0) {
				with = text_glyphs[g][1];
				consumed = glyph;
				break;
			}
		}
		if (with == NULL) {
			switch (*src) {
			case '\\': with = "\\textbackslash{}"; break;
			case '~': with = "\\textasciitilde{}"; break;
			case '^': with = "\\textasciicircum{}"; break;
			case '<': with = "\\textless{}"; break;
			case '>': with = "\\textgreater{}"; break;
			case '|': with = "\\textbar{}"; break;
			case '&': case '%': case '$': case '#': case '_': case '{': case '}':
				plain[0] = '\\';
				plain[1] = *src;
				with = plain;
				break;
			default:
				consumed = qkv_utf8_length(src);
				memcpy(plain, src, consumed);
				with = plain;
				break;
			}
		}
		size_t length = strlen(with);
		if (used + length + 1 > size)
			break;
		memcpy(dst + used, with, length + 1);
		used += length;
		src += consumed;
	}
}

/* What a piece of math is at its edge: an ordinary atom (a number, a name) or an
 * operator. Two ordinary atoms that the text set apart by a space stay apart
 * (a text space between two formulas); anything else shares one formula. */
enum edge { EDGE_ORD, EDGE_OP };

struct scan {
	FILE *out;
	const struct qkv_problem *p;
	const char *line;
	bool math;        /* inside $…$ */
	bool space;       /* a space of the text is still to be written */
	enum edge last;   /* the right edge of the last piece of math */
	int braces;       /* open ^{ groups: inside one everything is math */
	bool long_labels; /* p has a label longer than LATEX_LONG_LABEL */
	char closes[32];  /* per open parenthesis: ')' or '}' (a ^( group) */
	int depth;
};

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_alpha(c) || is_digit(c);
}

static void close_math(struct scan *s)
{
	if (s->math) {
		fputc('$', s->out);
		s->math = false;
	}
}

/* A piece of math (LaTeX); its left and right edges decide the space before it. */
static void put_math(struct scan *s, const char *latex, enum edge left, enum edge right)
{
	if (s->space) {
		if (s->braces > 0)
			fputs(s->last == EDGE_ORD && left == EDGE_ORD ? "\\ " : " ", s->out);
		else if (s->math && !(s->last == EDGE_ORD && left == EDGE_ORD))
			fputc(' ', s->out);
		else {
			close_math(s);
			fputc(' ', s->out);
		}
		s->space = false;
	}
	if (!s->math) {
		fputc('$', s->out);
		s->math = true;
	}
	fputs(latex, s->out);
	s->last = right;
}

/* A piece of text (LaTeX, already escaped): inside a ^{ group, as \text{…}. */
static void put_text(struct scan *s, const char *latex)
{
	if (s->braces > 0) {
		put_math(s, "\\text{", EDGE_ORD, EDGE_ORD);
		fputs(latex, s->out);
		fputc('}', s->out);
		return;
	}
	close_math(s);
	if (s->space)
		fputc(' ', s->out);
	s->space = false;
	fputs(latex, s->out);
}

/* The length of the longest token or query label of p at `at` that ends before a
 * character that cannot continue a name (not a letter or digit); 0 if none. */
static size_t label_at(const struct qkv_problem *p, const char *at)
{
	size_t best = 0;

	if (p == NULL || p->tokens == NULL)
		return 0;
	for (int i = 0; i < p->n + (qkv_problem_is_cross(p) ? p->m : 0); i++) {
		const char *label = i < p->n ? p->tokens[i] : qkv_problem_query_label(p, i - p->n);
		size_t length = label != NULL ? strlen(label) : 0;

		if (length > best && strncmp(at, label, length) == 0 && !is_alnum(at[length]))
			best = length;
	}
	return best;
}

/* Writes one index of a subscript at `at` (a label, d1, ij, k, model) in math and
 * returns what follows it. `split_digits` writes d1 as d_1 (a column). */
static const char *index_at(struct scan *s, const char *at, bool split_digits)
{
	size_t label = label_at(s->p, at), run = 0, letters = 0;
	char escaped[ESCAPED_LABEL], copy[QKV_MAX_LABEL + 1];

	if (label > LATEX_LONG_LABEL) {
		/* Too long to stay unbroken in a formula: text that breaks anywhere
		 * (indices() has left math for it). */
		memcpy(copy, at, label);
		copy[label] = '\0';
		latex_text_breakable(s->out, copy);
		return at + label;
	}
	if (label > 0) {
		memcpy(copy, at, label);
		copy[label] = '\0';
		latex_text_escape(escaped, sizeof escaped, copy);
		fprintf(s->out, "\\text{%s}", escaped);
		return at + label;
	}
	while (is_alpha(at[letters]))
		letters++;
	run = letters;
	while (is_alnum(at[run]))
		run++;
	if (run == 0) {
		size_t length = qkv_utf8_length(at);

		if (length == 0)
			return at;
		memcpy(copy, at, length);
		copy[length] = '\0';
		latex_text_escape(escaped, sizeof escaped, copy);
		fprintf(s->out, "\\text{%s}", escaped);
		return at + length;
	}
	if (letters == run && run <= 2)
		fprintf(s->out, "%.*s", (int)run, at);           /* k, ij, Q */
	else if (letters == 0)
		fprintf(s->out, "%.*s", (int)run, at);           /* 1, 12 */
	else if (split_digits && letters == 1 && is_digit(at[1]))
		fprintf(s->out, "%c_{%.*s}", at[0], (int)(run - 1), at + 1); /* d1 */
	else
		fprintf(s->out, "\\text{%.*s}", (int)run, at);   /* model, old */
	return at + run;
}

/* After a name: "_index" as a subscript, and "[i, j]" as a subscript (or as
 * brackets when the name has one already). Returns what follows. */
/* True when the index at `at`, or one in the brackets there, is a label too long
 * for a formula. */
static bool long_index(const struct scan *s, const char *at)
{
	if (at[0] == '_')
		return label_at(s->p, at + 1) > LATEX_LONG_LABEL;
	if (at[0] != '[')
		return false;
	for (const char *item = at + 1; *item != '\0' && *item != ']'; item++) {
		while (*item == ' ')
			item++;
		if (label_at(s->p, item) > LATEX_LONG_LABEL)
			return true;
		item += strcspn(item, ",]") - (item[strcspn(item, ",]")] == ']' ? 1 : 0);
		if (*item == ']' || *item == '\0')
			break;
	}
	return false;
}

/* The indices of a name when one is a long label: as text, "_" and "[a, b]",
 * each label free to break anywhere. */
static const char *text_indices(struct scan *s, const char *at)
{
	if (at[0] == '_') {
		put_text(s, "\\_");
		return index_at(s, at + 1, false);
	}
	put_text(s, "[");
	at++;
	while (*at != '\0' && *at != ']') {
		size_t label = label_at(s->p, at);

		if (*at == ',' || *at == ' ') {
			fputs(*at == ',' ? ",\\allowbreak{}" : " ", s->out);
			at++;
		} else if (label > LATEX_LONG_LABEL) {
			at = index_at(s, at, false);
		} else {
			char one[8] = { '\0' }, escaped[40];
			size_t length = qkv_utf8_length(at);

			length = length == 0 || length >= sizeof one ? 1 : length;
			memcpy(one, at, length);
			latex_text_escape(escaped, sizeof escaped, one);
			fputs(escaped, s->out);
			at += length;
		}
	}
	fputs("]", s->out);
	return *at == ']' ? at + 1 : at;
}

static const char *indices(struct scan *s, const char *at)
{
	bool subscript = false;

	if (long_index(s, at))
		return text_indices(s, at);

	if (at[0] == '_' && (is_alnum(at[1]) || label_at(s->p, at + 1) > 0)) {
		fputs("_{", s->out);
		at = index_at(s, at + 1, false);
		fputc('}', s->out);
		subscript = true;
	}
	if (at[0] == '[') {
		fputs(subscript ? "[" : "_{", s->out);
		at++;
		while (*at != '\0' && *at != ']') {
			if (*at == ' ') {
				at++;
			} else if (*at == ',') {
				fputs(",", s->out);
				at++;
			} else {
				at = index_at(s, at, true);
			}
		}
		fputs(subscript ? "]" : "}", s->out);
		if (*at == ']')
			at++;
	}
	if (subscript || at[-1] == ']')
		s->last = EDGE_ORD;
	return at;
}

/* A number: digits with thousands commas, decimals, an exponent ("1.3e-21" as
 * 1.3 \times 10^{-21}) and a percent sign. Returns what follows. */
static const char *number(struct scan *s, const char *at)
{
	char latex[160];
	size_t used = 0;
	const char *start = at;

	if (*at == '-')
		latex[used++] = *at++;
	while (used < 100 && (is_digit(*at) || (*at == ',' && is_digit(at[1]) && is_digit(at[2]) &&
						 is_digit(at[3]) && !is_digit(at[4]) && at > start))) {
		if (*at == ',') {
			memcpy(latex + used, "{,}", 3);
			used += 3;
		} else {
			latex[used++] = *at;
		}
		at++;
	}
	if (*at == '.' && is_digit(at[1])) {
		latex[used++] = *at++;
		while (used < 120 && is_digit(*at))
			latex[used++] = *at++;
	}
	latex[used] = '\0';
	if ((*at == 'e' || *at == 'E') &&
	    (is_digit(at[1]) || ((at[1] == '-' || at[1] == '+') && is_digit(at[2])))) {
		char *end;
		long exponent = strtol(at + 1, &end, 10);

		at = end;

		snprintf(latex + used, sizeof latex - used, " \\times 10^{%ld}", exponent);
		used = strlen(latex);
	}
	if (*at == '%') {
		snprintf(latex + used, sizeof latex - used, "\\%%");
		at++;
	}
	put_math(s, latex, EDGE_ORD, EDGE_ORD);
	return at;
}

/* A superscript after a name or a number: ^( … ) as a group, ^2, ^x. */
static const char *superscript(struct scan *s, const char *at)
{
	if (!s->math || s->space) {
		put_text(s, "\\textasciicircum{}");
		return at + 1;
	}
	if (at[1] == '(' && s->depth < (int)sizeof s->closes) {
		put_math(s, "^{", EDGE_ORD, EDGE_OP);
		s->closes[s->depth++] = '}';
		s->braces++;
		return at + 2;
	}
	if (is_digit(at[1]) || (at[1] == '-' && is_digit(at[2]))) {
		const char *end = at + 2;

		while (is_digit(*end) || *end == '.')
			end++;
		fprintf(s->out, "^{%.*s}", (int)(end - at - 1), at + 1);
		return end;
	}
	if (is_alpha(at[1])) {
		fprintf(s->out, "^{%c}", at[1]);
		return at + 2;
	}
	put_text(s, "\\textasciicircum{}");
	return at + 1;
}

/* A run of letters and digits that starts with a letter (hyphens between letters
 * kept): a one-letter name, a function (max, ln), a name with an index in
 * brackets (concat[t1, k]), or a word. Returns what follows. */
static const char *word(struct scan *s, const char *at)
{
	static const char *const functions[][2] = {
		{ "max", "\\max" }, { "min", "\\min" }, { "ln", "\\ln" }, { "exp", "\\exp" },
	};
	size_t run = 1;
	char latex[QKV_MAX_LABEL * 2 + 64];

	while (is_alnum(at[run]) || (at[run] == '-' && is_alpha(at[run + 1]) && is_alpha(at[run - 1])))
		run++;
	if (at[run] == '[' && run < 48) {
		if (run == 1)
			snprintf(latex, sizeof latex, "%c", at[0]);
		else
			snprintf(latex, sizeof latex, "\\mathrm{%.*s}", (int)run, at);
		put_math(s, latex, EDGE_ORD, EDGE_ORD);
		return indices(s, at + run);
	}
	if (run == 1) {
		bool sentence_start = at == s->line || (at - s->line >= 2 && at[-1] == ' ' && at[-2] == '.');
		bool prime = at[1] == '\'' && !is_alpha(at[2]);

		/* The article "a", a sentence's "A" and the s of "'s" are words; a_ij and
		 * A[…] are not. */
		if (at[1] != '_' && at[1] != '[' && at[1] != '^' && !prime && s->braces == 0 &&
		    (at[0] == 'a' || (at[0] == 'A' && sentence_start && at[1] == ' ') ||
		     (at > s->line && at[-1] == '\''))) {
			snprintf(latex, sizeof latex, "%c", at[0]);
			put_text(s, latex);
			return at + 1;
		}
		snprintf(latex, sizeof latex, "%c%s", at[0], prime ? "'" : "");
		put_math(s, latex, EDGE_ORD, EDGE_ORD);
		return indices(s, at + 1 + prime);
	}
	for (size_t f = 0; f < sizeof functions / sizeof *functions; f++)
		if (strlen(functions[f][0]) == run && strncmp(at, functions[f][0], run) == 0) {
			put_math(s, functions[f][1], EDGE_ORD, EDGE_OP);
			return at + run;
		}
	snprintf(latex, sizeof latex, "%.*s", (int)(run < 64 ? run : 64), at);
	if (run > 64) {
		put_text(s, latex);
		return at + 64;
	}
	put_text(s, latex);
	return at + run;
}

/* qkv's glyphs as math: the LaTeX and the edges. */
struct math_glyph {
	const char *glyph, *latex;
	enum edge left, right;
};

static const struct math_glyph math_glyphs[] = {
	{ "×", "\\times ", EDGE_OP, EDGE_OP }, { "·", "\\cdot ", EDGE_OP, EDGE_OP },
	{ "≈", "\\approx ", EDGE_OP, EDGE_OP }, { "≤", "\\le ", EDGE_OP, EDGE_OP },
	{ "→", "\\to ", EDGE_OP, EDGE_OP }, { "÷", "\\div ", EDGE_OP, EDGE_OP },
	{ "−∞", "-\\infty", EDGE_ORD, EDGE_ORD }, { "−", "-", EDGE_OP, EDGE_OP },
	{ "∞", "\\infty", EDGE_ORD, EDGE_ORD }, { "τ", "\\tau", EDGE_ORD, EDGE_ORD },
	{ "ℓ", "\\ell", EDGE_ORD, EDGE_ORD }, { "ᵀ", "^\\top", EDGE_OP, EDGE_ORD },
	{ "²", "^{2}", EDGE_OP, EDGE_ORD }, { "…", "\\dots", EDGE_ORD, EDGE_ORD },
	{ "=", "=", EDGE_OP, EDGE_OP }, { "+", "+", EDGE_OP, EDGE_OP },
	{ "/", "/", EDGE_OP, EDGE_OP }, { "<", "<", EDGE_OP, EDGE_OP },
	{ ">", ">", EDGE_OP, EDGE_OP },
};

/* Σ (a sum when an index or a term follows it, else the letter), √n. */
static const char *greek(struct scan *s, const char *at)
{
	if (strncmp(at, "Σ", strlen("Σ")) == 0) {
		const char *after = at + strlen("Σ");
		bool sum = after[0] == '_' || after[0] == 'e' || (after[0] == ' ' && after[1] == 'e');

		put_math(s, sum ? "\\sum" : "\\Sigma", EDGE_ORD, sum ? EDGE_OP : EDGE_ORD);
		return sum ? indices(s, after) : after;
	}
	if (strncmp(at, "√", strlen("√")) == 0) {
		const char *after = at + strlen("√"), *end = after;
		char latex[64];

		while (is_digit(*end) && end - after < 20)
			end++;
		if (end == after) {
			put_math(s, "\\surd", EDGE_ORD, EDGE_ORD);
			return after;
		}
		snprintf(latex, sizeof latex, "\\sqrt{%.*s}", (int)(end - after), after);
		put_math(s, latex, EDGE_ORD, EDGE_ORD);
		return end;
	}
	return NULL;
}

/* One character of anything else: punctuation stays text (a comma and its space
 * let the line break), parentheses follow what they enclose. */
static const char *other(struct scan *s, const char *at)
{
	char one[8] = { '\0' }, escaped[40];
	size_t length = qkv_utf8_length(at);
	const char *next = at + 1;

	if (*at == '(') {
		while (*next == ' ')
			next++;
		/* A parenthesis opens math when a formula follows or precedes it. */
		bool math = (s->math && !s->space) || is_digit(*next) || *next == '-' ||
			    (is_alpha(*next) && !is_alnum(next[1]) && *next != 'a') ||
			    (unsigned char)*next >= 0x80;
		if (s->depth < (int)sizeof s->closes)
			s->closes[s->depth++] = ')';
		if (math) {
			put_math(s, "(", EDGE_ORD, EDGE_OP);
			return at + 1;
		}
		put_text(s, "(");
		return at + 1;
	}
	if (*at == ')') {
		char closes = s->depth > 0 ? s->closes[--s->depth] : ')';

		if (closes == '}' && s->braces > 0) {
			s->braces--;
			s->space = false;
			fputc('}', s->out);
			s->last = EDGE_ORD;
		} else if (s->math && !s->space) {
			put_math(s, ")", EDGE_OP, EDGE_ORD);
		} else {
			put_text(s, ")");
		}
		return at + 1;
	}
	if (*at == '^')
		return superscript(s, at);
	if (*at == ',' && s->braces > 0) {
		put_math(s, ",", EDGE_OP, EDGE_OP);
		return at + 1;
	}
	if (*at == '\'' && s->math && !s->space && !is_alpha(at[1])) {
		put_math(s, "'", EDGE_OP, EDGE_ORD);
		return at + 1;
	}
	if (length == 0 || length >= sizeof one)
		length = 1;
	memcpy(one, at, length);
	latex_text_escape(escaped, sizeof escaped, one);
	put_text(s, escaped);
	return at + length;
}

void latex_text_math(FILE *out, const char *line, const struct qkv_problem *p)
{
	struct scan s = { .out = out, .p = p, .line = line, .last = EDGE_OP };
	const char *at = line;

	for (int i = 0; p != NULL && p->tokens != NULL && i < p->n + (qkv_problem_is_cross(p) ? p->m : 0); i++)
		s.long_labels |= strlen(i < p->n ? p->tokens[i] : qkv_problem_query_label(p, i - p->n)) > LATEX_LONG_LABEL;
	while (*at != '\0') {
		const char *next = NULL;
		size_t label = s.long_labels && (at == line || !is_alnum(at[-1])) ? label_at(p, at) : 0;

		if (*at == ' ') {
			s.space = true;
			at++;
			continue;
		}
		if (label > LATEX_LONG_LABEL) {
			/* a long label named in the text: it breaks anywhere */
			char copy[QKV_MAX_LABEL + 1];

			memcpy(copy, at, label);
			copy[label] = '\0';
			put_text(&s, "");
			latex_text_breakable(out, copy);
			at += label;
			continue;
		}
		if (is_digit(*at) || (*at == '-' && is_digit(at[1]) && (at == line || !is_alnum(at[-1])))) {
			at = number(&s, at);
			continue;
		}
		if (is_alpha(*at)) {
			at = word(&s, at);
			continue;
		}
		next = greek(&s, at);
		if (next != NULL) {
			at = next;
			continue;
		}
		for (size_t g = 0; g < sizeof math_glyphs / sizeof *math_glyphs && next == NULL; g++) {
			size_t length = strlen(math_glyphs[g].glyph);

			if (strncmp(at, math_glyphs[g].glyph, length) == 0) {
				put_math(&s, math_glyphs[g].latex, math_glyphs[g].left, math_glyphs[g].right);
				next = at + length;
			}
		}
		at = next != NULL ? next : other(&s, at);
	}
	while (s.braces > 0) {
		fputc('}', out);
		s.braces--;
	}
	close_math(&s);
}

void latex_text_breakable(FILE *out, const char *text)
{
	char one[8], escaped[40];

	for (const char *at = text; *at != '\0';) {
		size_t length = qkv_utf8_length(at);

		if (length == 0 || length >= sizeof one)
			length = 1;
		memcpy(one, at, length);
		one[length] = '\0';
		latex_text_escape(escaped, sizeof escaped, one);
		at += length;
		fprintf(out, "%s%s", escaped, *at != '\0' ? "\\allowbreak{}" : "");
	}
}

double latex_text_width(const char *cell)
{
	double width = 0.0;

	for (const char *at = cell; *at != '\0'; at += qkv_utf8_length(at) > 0 ? qkv_utf8_length(at) : 1) {
		if (*at == '-')
			width += 7.8;     /* a minus sign */
		else if (*at == '.' || *at == ',')
			width += 2.8;
		else if (strncmp(at, "—", strlen("—")) == 0)
			width += 10.0;    /* a masked entry's dash */
		else if (*at == 'M' || *at == 'W')
			width += 10.3;    /* the widest letters */
		else if (*at == 'm' || strchr("&%#@<>", *at) != NULL)
			width += 8.4;
		else if ((*at >= 'A' && *at <= 'Z') || *at == 'w' || (unsigned char)*at >= 0x80)
			width += 7.8;
		else
			width += 5.6;     /* a digit is 5 pt; most letters and signs a little less */
	}
	return width;
}

int latex_text_groups(const double *widths, int cols, double fixed, int *starts)
{
	int groups = 0;
	double used = 0.0;

	for (int c = 0; c < cols; c++) {
		if (c == 0 || used + widths[c] > LATEX_FIT_WIDTH - fixed) {
			starts[groups++] = c;
			used = 0.0;
		}
		used += widths[c];
	}
	if (groups == 0)
		starts[groups++] = 0;
	starts[groups] = cols;
	return groups;
}

int latex_text_runs(const int *lines, int rows, int heading, int *starts)
{
	int count = 0;

	for (int r = 0, used = LATEX_FIT_LINES; r < rows; r++) {
		if (used + lines[r] > LATEX_FIT_LINES && (count == 0 || r > starts[count - 1])) {
			starts[count++] = r;
			used = heading;
		}
		used += lines[r];
	}
	if (count == 0)
		starts[count++] = 0;
	starts[count] = rows;
	return count;
}

int latex_text_label_lines(const char *label)
{
	return (int)(1.1 * latex_text_width(label) / (LATEX_LABEL_WIDTH - 11.0)) + 1;
}

void latex_text_document_begin(FILE *out, const char *preamble)
{
	fprintf(out, "%% A whole document, written by qkv: pdflatex or lualatex.\n"
		"\\documentclass{article}\n%s\n\\begin{document}\n", preamble);
}

void latex_text_document_end(FILE *out)
{
	fputs("\\end{document}\n", out);
}
