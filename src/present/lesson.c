/* lesson.c — reading a lesson file (lesson.h): one line at a time, each an action
 * of the current step. Every refusal is one line: FILE:LINE: what was expected. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/view.h"
#include "present/lesson.h"
#include "io/problem/quote.h"
#include "qkv/error.h"
#include "qkv/format.h"
#include "qkv/problem.h"
#include "qkv/text.h"

#define MAX_SEED 9007199254740991ULL /* 2^53 − 1, as --seed */
struct parser {
	const char *name;
	int line;
	char *err;
	size_t err_size;
	struct lesson *l;
	int action_capacity, step_capacity;
	/* The text growing now (the last step's notes, an open problem's lines): its
	 * length and room, so that each line is appended in time of its own length. */
	size_t notes_length, notes_capacity, block_length, block_capacity;
};

static int refuse(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int used;

	if (ps->err_size == 0)
		return -1;
	quote_text(ps->err, ps->err_size, ps->name, strlen(ps->name), strlen(ps->name));
	used = (int)strlen(ps->err);
	used += snprintf(ps->err + used, ps->err_size - (size_t)used, ":%d: ", ps->line);
	if (used < 0 || (size_t)used >= ps->err_size)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ps->err + used, ps->err_size - (size_t)used, fmt, ap);
	va_end(ap);
	return -1;
}

/* As refuse, with the column (in characters, from 1) after the line. */
static int refuse_at(struct parser *ps, size_t column, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse_at(struct parser *ps, size_t column, const char *fmt, ...)
{
	va_list ap;
	int used;

	if (ps->err_size == 0)
		return -1;
	quote_text(ps->err, ps->err_size, ps->name, strlen(ps->name), strlen(ps->name));
	used = (int)strlen(ps->err);
	used += snprintf(ps->err + used, ps->err_size - (size_t)used, ":%d:%zu: ", ps->line, column);
	if (used < 0 || (size_t)used >= ps->err_size)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ps->err + used, ps->err_size - (size_t)used, fmt, ap);
	va_end(ap);
	return -1;
}

/* Appends the length bytes at add, then a newline when newline is true, to the
 * malloc'd text *text of *length bytes in *capacity: the room doubles, so a text
 * of n bytes costs O(n) whatever the number of lines. 0, or -1 when out of memory. */
static int append_text(char **text, size_t *length, size_t *capacity, const char *add, size_t add_length,
		       bool newline)
{
	size_t need = *length + add_length + 2;

	if (need > *capacity) {
		size_t room = *capacity > 0 ? *capacity : 64;
		char *grown;

		while (room < need)
			room *= 2;
		if ((grown = realloc(*text, room)) == NULL)
			return -1;
		*text = grown;
		*capacity = room;
	}
	memcpy(*text + *length, add, add_length);
	*length += add_length;
	if (newline)
		(*text)[(*length)++] = '\n';
	(*text)[*length] = '\0';
	return 0;
}

static char *copy_text(const char *s, size_t length)
{
	char *out = malloc(length + 1);

	if (out != NULL) {
		memcpy(out, s, length);
		out[length] = '\0';
	}
	return out;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The word at s (up to a space or the end) is `word`: returns what follows it. */
static const char *word_is(const char *s, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(s, word, n) != 0 || (s[n] != '\0' && s[n] != ' ' && s[n] != '\t'))
		return NULL;
	return skip_space(s + n);
}

static struct lesson_action *new_action(struct parser *ps, enum lesson_act act)
{
	struct lesson *l = ps->l;
	struct lesson_action *a;

	if (l->action_count == ps->action_capacity) {
		int capacity = ps->action_capacity ? ps->action_capacity * 2 : 32;
		struct lesson_action *grown = realloc(l->actions, (size_t)capacity * sizeof *grown);

		if (grown == NULL)
			return NULL;
		l->actions = grown;
		ps->action_capacity = capacity;
	}
	a = &l->actions[l->action_count++];
	memset(a, 0, sizeof *a);
	a->act = act;
	a->line = ps->line;
	l->steps[l->step_count - 1].count++;
	return a;
}

/* A whole number from low to high, the whole of text. */
static bool whole_number(const char *text, long low, long high, long *out)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (end == text || *end != '\0' || errno != 0 || value < low || value > high)
		return false;
	*out = value;
	return true;
}

/* A finite number, the whole of text; its default tolerance is half a unit of
 * its last written decimal (0.4011 stands for 0.40105 … 0.40115). */
static bool real_number(const char *text, double *out, double *half_unit)
{
	char *end;
	double value;
	const char *point;
	int decimals = 0;

	errno = 0;
	value = strtod(text, &end);
	if (end == text || *end != '\0' || !isfinite(value) || fabs(value) > QKV_MAX_VALUE)
		return false;
	if (strpbrk(text, "xXpPnNiI") != NULL) /* hexadecimal, nan, inf: not for people */
		return false;
	point = strchr(text, '.');
	if (point != NULL)
		for (const char *d = point + 1; *d >= '0' && *d <= '9'; d++)
			decimals++;
	*out = value;
	if (half_unit != NULL)
		*half_unit = strpbrk(text, "eE") != NULL ? fabs(value) * 1e-12 : 0.5 * pow(10.0, -decimals);
	return true;
}

/* "A[t1,t3]" → grid and the two indices; rest gets what follows the ']'. */
static int cell_ref(struct parser *ps, const char *s, struct lesson_action *a, bool inputs_only,
		    const char **rest)
{
	char expected[256], names[160] = "";
	size_t n = 0, used = 0;
	int g, last = inputs_only ? QKV_GRID_INPUTS - 1 : QKV_GRID_COUNT - 1;

	/* The grids are the catalogue's (qkv/grid.h), named as on screen. */
	for (g = 0; g <= last; g++)
		used += (size_t)snprintf(names + used, used < sizeof names ? sizeof names - used : 0, "%s%s",
					 g == 0 ? "" : !inputs_only ? " " : g == last ? " or " : ", ",
					 qkv_grid_name((enum qkv_grid)g));
	if (inputs_only)
		snprintf(expected, sizeof expected, "a cell of %s like Q[t1,d1]", names);
	else
		snprintf(expected, sizeof expected, "a cell like Q[t1,d1], A[t1,t3] or O[t2,d1] (grids %s)", names);
	for (g = 0; g < QKV_GRID_COUNT; g++) {
		n = strlen(qkv_grid_name((enum qkv_grid)g));
		if (strncmp(s, qkv_grid_name((enum qkv_grid)g), n) == 0 && s[n] == '[')
			break;
	}
	if (g == QKV_GRID_COUNT || (inputs_only && !qkv_grid_is_input((enum qkv_grid)g)))
		return refuse(ps, "expected %s, not \"%.40s\"", expected, s);
	a->grid = (enum qkv_grid)g;
	s += n + 1;
	for (int part = 0; part < 2; part++) {
		char *out = part == 0 ? a->row : a->col;
		size_t length = 0;

		s = skip_space(s);
		while (*s != '\0' && *s != ',' && *s != ']' && *s != ' ' && length + 1 < sizeof a->row)
			out[length++] = *s++;
		out[length] = '\0';
		s = skip_space(s);
		if (length == 0 || *s != (part == 0 ? ',' : ']'))
			return refuse(ps, "expected %s: a row and a column in brackets, like [t1,d2]", expected);
		s++;
	}
	*rest = skip_space(s);
	return 0;
}

/* "= VALUE" after a name; value gets the rest, trimmed. */
static int equals_value(struct parser *ps, const char *s, const char *what, const char **value)
{
	if (*s != '=')
		return refuse(ps, "expected \"= \" and %s after the name", what);
	*value = skip_space(s + 1);
	if (**value == '\0')
		return refuse(ps, "expected %s after \"=\"", what);
	return 0;
}

static int choice(struct parser *ps, const char *value, const char *const *names, int count,
		  const char *what, int *out)
{
	char list[160] = "";

	for (int i = 0; i < count; i++) {
		if (strcmp(value, names[i]) == 0) {
			*out = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
			 i == 0 ? "" : i == count - 1 ? " or " : ", ", names[i]);
	}
	return refuse(ps, "%s needs %s, not \"%.40s\"", what, list, value);
}

/* `view NAME` and `expect view NAME`: the names in the table of views. */
static int view_choice(struct parser *ps, const char *value, const char *what, int *out)
{
	const char *names[VIEW_COUNT];

	for (int v = 0; v < VIEW_COUNT; v++)
		names[v] = app_views[v].name;
	return choice(ps, value, names, VIEW_COUNT, what, out);
}
static const char *const on_off[] = { "off", "on" };
static const char *const projection_names[] = { "learned", "identity" };

static int stage_value(struct parser *ps, const char *value, const char *what, int *out)
{
	long number;

	if (strcmp(value, "live") == 0) {
		*out = APP_STAGE_LIVE;
		return 0;
	}
	if (whole_number(value, 0, APP_STAGE_LAYER, &number)) {
		*out = (int)number;
		return 0;
	}
	for (int s = 0; s < QKV_STAGE_COUNT; s++)
		if (strcmp(value, qkv_stage_name((enum qkv_stage)s)) == 0) {
			*out = s;
			return 0;
		}
	/* A multi-head problem's two more, named as on the stage bar. */
	if (strcmp(value, "concat") == 0 || strcmp(value, "W_O") == 0) {
		*out = value[0] == 'c' ? APP_STAGE_CONCAT : APP_STAGE_LAYER;
		return 0;
	}
	return refuse(ps, "%s needs live, 0 to 7 or a stage's name (scores, weights, …, concat, W_O), not \"%.40s\"",
		      what, value);
}

static int parse_random(struct parser *ps, const char *s, struct lesson_action *a)
{
	bool have_tokens = false, have_dk = false, have_seed = false;

	while (*s != '\0') {
		char key[16], value[32];
		int used = 0;
		long number;

		if (sscanf(s, "%15s %31s%n", key, value, &used) != 2)
			return refuse(ps, "random needs pairs: tokens N dk D [dv V] seed S");
		s = skip_space(s + used);
		if (strcmp(key, "seed") == 0) {
			char *end;
			unsigned long long seed;

			errno = 0;
			seed = strtoull(value, &end, 10);
			if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 || seed > MAX_SEED)
				return refuse(ps, "random: seed needs a whole number from 0 to %llu, not \"%s\"",
					      MAX_SEED, value);
			a->seed = seed;
			have_seed = true;
		} else if (strcmp(key, "tokens") == 0 && whole_number(value, 1, QKV_MAX_TOKENS, &number)) {
			a->tokens = (int)number;
			have_tokens = true;
		} else if ((strcmp(key, "dk") == 0 || strcmp(key, "dv") == 0)
			   && whole_number(value, 1, QKV_MAX_DIM, &number)) {
			*(key[1] == 'k' ? &a->d_k : &a->d_v) = (int)number;
			have_dk |= key[1] == 'k';
		} else if (strcmp(key, "tokens") == 0 || strcmp(key, "dk") == 0 || strcmp(key, "dv") == 0) {
			return refuse(ps, "random: %s needs a whole number from 1 to %d, not \"%s\"", key,
				      key[0] == 't' ? QKV_MAX_TOKENS : QKV_MAX_DIM, value);
		} else {
			return refuse(ps, "random takes tokens, dk, dv and seed, not \"%s\"", key);
		}
	}
	if (!have_tokens || !have_dk || !have_seed)
		return refuse(ps, "random needs tokens N, dk D and seed S (dv is d_k unless given)");
	if (a->d_v == 0)
		a->d_v = a->d_k;
	return 0;
}

static int parse_set(struct parser *ps, const char *s)
{
	static const struct { const char *name; enum lesson_act act; } names[] = {
		{ "d_k", ACT_SET_DK }, { "scale", ACT_SET_SCALE }, { "temperature", ACT_SET_TEMPERATURE },
		{ "mask", ACT_SET_MASK }, { "wrong", ACT_SET_WRONG }, { "projections", ACT_SET_PROJECTIONS },
		{ "d_v", ACT_SET_DV },
	};
	const char *value = NULL, *rest;
	struct lesson_action *a;
	double half;
	long number;

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		if ((rest = word_is(s, names[i].name)) == NULL && !(strncmp(s, names[i].name, strlen(names[i].name)) == 0
								     && s[strlen(names[i].name)] == '='))
			continue;
		if (rest == NULL)
			rest = s + strlen(names[i].name);
		if ((a = new_action(ps, names[i].act)) == NULL)
			return refuse(ps, "out of memory");
		if (equals_value(ps, rest, "a value", &value) != 0)
			return -1;
		switch (names[i].act) {
		case ACT_SET_DK:
		case ACT_SET_DV:
			if (!whole_number(value, 1, QKV_MAX_DIM, &number))
				return refuse(ps, "%s needs a whole number from 1 to %d, not \"%.40s\"", names[i].name,
					      QKV_MAX_DIM, value);
			a->number = (int)number;
			return 0;
		case ACT_SET_SCALE:
			return choice(ps, value, on_off, 2, "scale", &a->number);
		case ACT_SET_TEMPERATURE:
			if (!real_number(value, &a->value, NULL) || a->value <= 0)
				return refuse(ps, "temperature needs a positive number (0.05 0.1 0.2 0.5 1 2 5 10), not "
					      "\"%.40s\"", value);
			return 0;
		case ACT_SET_MASK: {
			/* The core's names, the file format's and the printer's too. */
			const char *masks[QKV_MASK_CUSTOM + 1];

			for (int m = 0; m <= QKV_MASK_CUSTOM; m++)
				masks[m] = qkv_mask_name((enum qkv_mask)m);
			return choice(ps, value, masks, QKV_MASK_CUSTOM + 1, "mask", &a->number);
		}
		case ACT_SET_WRONG: {
			const char *wrongs[QKV_WRONG_COLUMN_SOFTMAX + 1];

			for (int w = 0; w <= QKV_WRONG_COLUMN_SOFTMAX; w++)
				wrongs[w] = qkv_wrong_name((enum qkv_wrong)w);
			return choice(ps, value, wrongs, QKV_WRONG_COLUMN_SOFTMAX + 1, "wrong", &a->number);
		}
		case ACT_SET_PROJECTIONS:
		default:
			return choice(ps, value, projection_names, 2, "projections", &a->number);
		}
	}
	if (strncmp(s, "padding[", 8) == 0) {
		size_t length = strcspn(s + 8, "]");

		if ((a = new_action(ps, ACT_SET_PADDING)) == NULL)
			return refuse(ps, "out of memory");
		if (length == 0 || length >= sizeof a->row || s[8 + length] != ']')
			return refuse(ps, "expected a token in brackets, like padding[t3] = on");
		memcpy(a->row, s + 8, length);
		a->row[length] = '\0';
		if (equals_value(ps, skip_space(s + 9 + length), "on or off", &value) != 0)
			return -1;
		return choice(ps, value, on_off, 2, "padding", &a->number);
	}
	if ((a = new_action(ps, ACT_SET_CELL)) == NULL)
		return refuse(ps, "out of memory");
	if (strchr(s, '[') == NULL)
		return refuse(ps, "set needs a cell (Q[t1,d1] = 3), padding[TOKEN] or d_k, d_v, scale, temperature, "
			      "mask, wrong or projections, not \"%.40s\"", s);
	if (cell_ref(ps, s, a, true, &rest) != 0 || equals_value(ps, rest, "a number", &value) != 0)
		return -1;
	if (!real_number(value, &a->value, &half))
		return refuse(ps, "expected a number after \"=\", not \"%.40s\"", value);
	return 0;
}

static int parse_expect(struct parser *ps, const char *s)
{
	const char *rest, *value = NULL;
	struct lesson_action *a;
	long number;

	if ((rest = word_is(s, "message")) != NULL || (rest = word_is(s, "info")) != NULL) {
		bool info = s[0] == 'i';
		size_t length;

		if ((a = new_action(ps, info ? ACT_EXPECT_INFO : ACT_EXPECT_MESSAGE)) == NULL)
			return refuse(ps, "out of memory");
		if ((rest = word_is(rest, "contains")) == NULL || rest[0] != '"')
			return refuse(ps, "expected %s contains \"words\"", info ? "info" : "message");
		length = strlen(rest);
		if (length < 3 || rest[length - 1] != '"')
			return refuse(ps, "expected the words in double quotes, closed at the end of the line");
		if ((a->text = copy_text(rest + 1, length - 2)) == NULL)
			return refuse(ps, "out of memory");
		return 0;
	}
	if (strncmp(s, "stage", 5) == 0 || strncmp(s, "d_k", 3) == 0 || strncmp(s, "view", 4) == 0 ||
	    strncmp(s, "head", 4) == 0) {
		enum lesson_act act = s[0] == 's' ? ACT_EXPECT_STAGE : s[0] == 'd' ? ACT_EXPECT_DK
				      : s[0] == 'v' ? ACT_EXPECT_VIEW : ACT_EXPECT_HEAD;

		if ((a = new_action(ps, act)) == NULL)
			return refuse(ps, "out of memory");
		rest = skip_space(s + (act == ACT_EXPECT_STAGE ? 5 : act == ACT_EXPECT_DK ? 3 : 4));
		if (equals_value(ps, rest, "a value", &value) != 0)
			return -1;
		if (act == ACT_EXPECT_STAGE)
			return stage_value(ps, value, "expect stage", &a->number);
		if (act == ACT_EXPECT_VIEW)
			return view_choice(ps, value, "expect view", &a->number);
		if (act == ACT_EXPECT_HEAD) {
			if (!whole_number(value, 1, QKV_MAX_HEADS, &number))
				return refuse(ps, "expect head needs a whole number from 1 to %d, not \"%.40s\"",
					      QKV_MAX_HEADS, value);
			a->number = (int)number;
			return 0;
		}
		if (!whole_number(value, 1, QKV_MAX_DIM, &number))
			return refuse(ps, "expect d_k needs a whole number from 1 to %d, not \"%.40s\"", QKV_MAX_DIM,
				      value);
		a->number = (int)number;
		return 0;
	}
	if ((a = new_action(ps, ACT_EXPECT_CELL)) == NULL)
		return refuse(ps, "out of memory");
	if (cell_ref(ps, s, a, false, &rest) != 0)
		return refuse(ps, "expect needs a cell (A[t1,t3] = 0.4011), stage, d_k, view, head, message or "
			      "info, not \"%.40s\"", s);
	if (equals_value(ps, rest, "a number", &value) != 0)
		return -1;
	{
		char number_text[64], *tol;
		size_t length = strcspn(value, " \t");

		if (length >= sizeof number_text)
			return refuse(ps, "expected a number after \"=\", not \"%.40s\"", value);
		memcpy(number_text, value, length);
		number_text[length] = '\0';
		if (!real_number(number_text, &a->value, &a->tolerance))
			return refuse(ps, "expected a number after \"=\", not \"%.40s\"", number_text);
		rest = skip_space(value + length);
		if (*rest == '\0')
			return 0;
		if (strncmp(rest, "\xc2\xb1", 2) == 0)
			rest = skip_space(rest + 2);
		else if (strncmp(rest, "+-", 2) == 0)
			rest = skip_space(rest + 2);
		else
			return refuse(ps, "expected ± TOLERANCE (or +- TOLERANCE) after the value, not \"%.40s\"", rest);
		tol = (char *)rest;
		if (!real_number(tol, &a->tolerance, NULL) || a->tolerance < 0)
			return refuse(ps, "expected a tolerance of 0 or more after ±, not \"%.40s\"", rest);
	}
	return 0;
}

/* One line of a step (s trimmed, not empty, not a comment). */
static int parse_action(struct parser *ps, const char *s)
{
	const char *rest;
	struct lesson_action *a;

	if ((rest = word_is(s, "open")) != NULL) {
		if (*rest == '\0')
			return refuse(ps, "open needs example or a problem file's name");
		if ((a = new_action(ps, strcmp(rest, "example") == 0 ? ACT_OPEN_EXAMPLE : ACT_OPEN_FILE)) == NULL)
			return refuse(ps, "out of memory");
		if (a->act == ACT_OPEN_FILE && (a->text = copy_text(rest, strlen(rest))) == NULL)
			return refuse(ps, "out of memory");
		return 0;
	}
	if ((rest = word_is(s, "random")) != NULL) {
		if ((a = new_action(ps, ACT_RANDOM)) == NULL)
			return refuse(ps, "out of memory");
		return parse_random(ps, rest, a);
	}
	if ((rest = word_is(s, "set")) != NULL)
		return parse_set(ps, rest);
	if ((rest = word_is(s, "stage")) != NULL) {
		if ((a = new_action(ps, ACT_STAGE)) == NULL)
			return refuse(ps, "out of memory");
		return stage_value(ps, rest, "stage", &a->number);
	}
	if ((rest = word_is(s, "select")) != NULL) {
		if ((a = new_action(ps, ACT_SELECT)) == NULL)
			return refuse(ps, "out of memory");
		if (cell_ref(ps, rest, a, false, &rest) != 0)
			return -1;
		if (*rest != '\0')
			return refuse(ps, "expected the end of the line after the cell, not \"%.40s\"", rest);
		return 0;
	}
	if ((rest = word_is(s, "view")) != NULL) {
		if ((a = new_action(ps, ACT_VIEW)) == NULL)
			return refuse(ps, "out of memory");
		return view_choice(ps, rest, "view", &a->number);
	}
	if ((rest = word_is(s, "head")) != NULL) {
		long number;

		if ((a = new_action(ps, ACT_HEAD)) == NULL)
			return refuse(ps, "out of memory");
		if (!whole_number(rest, 1, QKV_MAX_HEADS, &number))
			return refuse(ps, "head needs a whole number from 1 to %d, not \"%.40s\"", QKV_MAX_HEADS, rest);
		a->number = (int)number;
		return 0;
	}
	if ((rest = word_is(s, "expect")) != NULL)
		return parse_expect(ps, rest);
	return refuse(ps, "expected step, note, open, random, problem, set, stage, select, view, head or "
		      "expect, not \"%.40s\"", s);
}

static int add_step(struct parser *ps, const char *title)
{
	struct lesson *l = ps->l;
	struct lesson_step *step;

	if (l->step_count == ps->step_capacity) {
		int capacity = ps->step_capacity ? ps->step_capacity * 2 : 16;
		struct lesson_step *grown = realloc(l->steps, (size_t)capacity * sizeof *grown);

		if (grown == NULL)
			return refuse(ps, "out of memory");
		l->steps = grown;
		ps->step_capacity = capacity;
	}
	step = &l->steps[l->step_count++];
	memset(step, 0, sizeof *step);
	step->line = ps->line;
	step->first = l->action_count;
	step->title = copy_text(title, strlen(title));
	step->notes = copy_text("", 0);
	ps->notes_length = 0;
	ps->notes_capacity = 1;
	if (step->title == NULL || step->notes == NULL)
		return refuse(ps, "out of memory");
	return 0;
}

/* Adds a line to the last step's notes, after a newline when it has some. */
static int add_note(struct parser *ps, const char *text)
{
	struct lesson_step *step = &ps->l->steps[ps->l->step_count - 1];

	if ((ps->notes_length > 0 &&
	     append_text(&step->notes, &ps->notes_length, &ps->notes_capacity, "", 0, true) != 0) ||
	    append_text(&step->notes, &ps->notes_length, &ps->notes_capacity, text, strlen(text), false) != 0)
		return refuse(ps, "out of memory");
	return 0;
}

/* Refuses a line (its length bytes, tabs already spaces) that is not UTF-8 text
 * or holds a control character, at its line and column: a byte such as 0x9b is a
 * control character (CSI) to a terminal that reads 8-bit codes, so it is never let
 * into a title, a note or a message. */
static int check_text(struct parser *ps, const char *line, size_t length)
{
	size_t column = 1;

	for (size_t i = 0; i < length; column++) {
		unsigned long code = 0;
		size_t count = qkv_utf8_decode(line + i, length - i, &code);

		if (count == 0)
			return refuse_at(ps, column, "byte 0x%02x is not valid UTF-8: a lesson is UTF-8 text%s",
					 (unsigned char)line[i],
					 (unsigned char)line[i] >= 0x80 && (unsigned char)line[i] <= 0x9f
						 ? " (alone, this byte is a control character to some terminals)" : "");
		if (qkv_is_control((unsigned int)code))
			return refuse_at(ps, column, "expected text, found the control character U+%04lX", code);
		i += count;
	}
	return 0;
}

int lesson_parse(const char *text, size_t length, const char *name, struct lesson *l, char *err,
		 size_t err_size)
{
	struct parser ps = { .name = name, .err = err, .err_size = err_size, .l = l };
	const char *at = text, *end = text + length;
	struct lesson_action *block = NULL; /* an open problem … end */
	char line[4096];

	memset(l, 0, sizeof *l);
	if ((l->path = copy_text(name, strlen(name))) == NULL)
		return refuse(&ps, "out of memory");
	if (length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		/* A byte order mark, as some editors write: not part of the lesson. */
		at += 3;
	}
	if (memchr(text, '\0', length) != NULL) {
		ps.line = 1;
		for (const char *c = text; *c != '\0'; c++)
			ps.line += *c == '\n';
		refuse(&ps, "expected text, found a NUL byte (is this a lesson file?)");
		goto fail;
	}
	while (at < end) {
		const char *newline = memchr(at, '\n', (size_t)(end - at));
		size_t n = newline != NULL ? (size_t)(newline - at) : (size_t)(end - at);
		const char *s;
		char *tail;

		ps.line++;
		if (n >= sizeof line) {
			refuse(&ps, "expected a line of at most %zu bytes", sizeof line - 1);
			goto fail;
		}
		memcpy(line, at, n);
		line[n] = '\0';
		at += n + (newline != NULL);
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		for (char *c = line; *c != '\0'; c++)
			if (*c == '\t')
				*c = ' ';
		if (check_text(&ps, line, n) != 0)
			goto fail;
		tail = line + strlen(line);
		while (tail > line && (tail[-1] == ' ' || tail[-1] == '\t'))
			*--tail = '\0';
		s = skip_space(line);
		if (block != NULL) {
			if (strcmp(s, "end") == 0) {
				block = NULL;
				continue;
			}
			if (append_text(&block->text, &ps.block_length, &ps.block_capacity, line, strlen(line),
					true) != 0) {
				refuse(&ps, "out of memory");
				goto fail;
			}
			continue;
		}
		if (*s == '\0' || *s == '#')
			continue;
		const char *rest;

		if ((rest = word_is(s, "lesson")) != NULL) {
			if (l->step_count > 0 || l->title != NULL || *rest == '\0') {
				refuse(&ps, "expected `lesson TITLE` once, before the first step");
				goto fail;
			}
			if ((l->title = copy_text(rest, strlen(rest))) == NULL) {
				refuse(&ps, "out of memory");
				goto fail;
			}
			continue;
		}
		if ((rest = word_is(s, "step")) != NULL) {
			if (*rest == '\0') {
				refuse(&ps, "expected a title after step");
				goto fail;
			}
			if (add_step(&ps, rest) != 0)
				goto fail;
			continue;
		}
		if (l->step_count == 0) {
			refuse(&ps, "expected `step TITLE` before the first note or action");
			goto fail;
		}
		if ((rest = word_is(s, "note")) != NULL) {
			if (add_note(&ps, rest) != 0)
				goto fail;
			continue;
		}
		if (strcmp(s, "problem") == 0) {
			if ((block = new_action(&ps, ACT_PROBLEM)) == NULL || (block->text = copy_text("", 0)) == NULL) {
				refuse(&ps, "out of memory");
				goto fail;
			}
			ps.block_length = 0;
			ps.block_capacity = 1;
			continue;
		}
		if (parse_action(&ps, s) != 0)
			goto fail;
	}
	if (block != NULL) {
		ps.line = block->line;
		refuse(&ps, "expected an `end` line to close this problem");
		goto fail;
	}
	if (l->step_count == 0) {
		ps.line = ps.line > 0 ? ps.line : 1;
		refuse(&ps, "expected at least one `step TITLE`: this lesson has no steps");
		goto fail;
	}
	return 0;
fail:
	lesson_free(l);
	return -1;
}

/* "PATH: why" into err, PATH escaped (io/quote.h). */
static void read_fail(char *err, size_t err_size, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void read_fail(char *err, size_t err_size, const char *path, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	if (err_size == 0)
		return;
	quote_text(err, err_size, path, strlen(path), strlen(path));
	used = strlen(err);
	snprintf(err + used, err_size - used, ": ");
	used = strlen(err);
	va_start(ap, fmt);
	vsnprintf(err + used, err_size - used, fmt, ap);
	va_end(ap);
}

int lesson_load(const char *path, struct lesson *l, char *err, size_t err_size)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t length = 0, capacity = 0;
	int rc;

	memset(l, 0, sizeof *l);
	if (f == NULL) {
		read_fail(err, err_size, path, "cannot read the lesson: %s", strerror(errno));
		return -1;
	}
	/* Read up to one byte past the limit: a lesson of exactly LESSON_MAX_BYTES is
	 * read whole, one byte more is refused. */
	for (;;) {
		size_t got;

		if (length == capacity) {
			char *grown;

			capacity = capacity ? capacity * 2 : 8192;
			if (capacity > (size_t)LESSON_MAX_BYTES + 1)
				capacity = (size_t)LESSON_MAX_BYTES + 1;
			if ((grown = realloc(text, capacity)) == NULL) {
				read_fail(err, err_size, path, "cannot read the lesson: out of memory");
				free(text);
				fclose(f);
				return -1;
			}
			text = grown;
		}
		got = fread(text + length, 1, capacity - length, f);
		length += got;
		if (length > (size_t)LESSON_MAX_BYTES) {
			read_fail(err, err_size, path, "expected a lesson of at most %ld bytes (%ld MiB)",
				  LESSON_MAX_BYTES, LESSON_MAX_BYTES / (1024 * 1024));
			free(text);
			fclose(f);
			return -1;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		read_fail(err, err_size, path, "cannot read the lesson: %s", strerror(errno));
		free(text);
		fclose(f);
		return -1;
	}
	fclose(f);
	rc = lesson_parse(text != NULL ? text : "", length, path, l, err, err_size);
	free(text);
	return rc;
}

void lesson_free(struct lesson *l)
{
	for (int i = 0; i < l->step_count; i++) {
		free(l->steps[i].title);
		free(l->steps[i].notes);
	}
	for (int i = 0; i < l->action_count; i++)
		free(l->actions[i].text);
	free(l->steps);
	free(l->actions);
	free(l->path);
	free(l->title);
	memset(l, 0, sizeof *l);
}
