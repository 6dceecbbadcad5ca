/* glyphs.c — the glyph set (UTF-8 or ASCII), chosen once at start-up from the
 * locale, and the ASCII spelling of every non-ASCII character qkv draws. */
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qkv/format.h"
#include "qkv/text.h"
#include "tui/glyphs.h"

const char *const glyphs_fallback_locales[] = { "C.UTF-8", "C.utf8", NULL };

static enum glyph_set current = GLYPHS_UTF8;
static bool fell_back; /* the environment's locale was C or POSIX: a fallback was taken */

/* One character (or a pair read together) and its ASCII spelling. `paren`: the run
 * of letters, digits and '_' that follows is put in parentheses (√2 → sqrt(2)). */
struct spelling {
	const char *utf8;
	const char *ascii;
	bool paren;
};

/* Pairs first: the first entry whose text starts here wins. */
static const struct spelling spellings[] = {
	{ "\u2191\u2193", "Up/Down", false },     /* ↑↓ */
	{ "\u2190\u2192", "Left/Right", false },  /* ←→ */
	{ "\u03c4\u221a", "tau*sqrt", true },     /* τ√ */
	{ "\u221a", "sqrt", true },               /* √ */
	{ "\u03c4", "tau", false },               /* τ */
	{ "\u03a3", "sum", false },               /* Σ */
	{ "\u2113", "l", false },                /* ℓ (the online softmax's running sum) */
	{ "\u2016", "||", false },                /* ‖ */
	{ "\u00f7", "/", false },                 /* ÷ */
	{ "\u00d7", "x", false },                 /* × */
	{ "\u00b7", ".", false },                 /* · */
	{ "\u00b1", "+-", false },                /* ± */
	{ "\u2212", "-", false },                 /* − minus */
	{ "\u2013", "-", false },                 /* – */
	{ "\u2014", "-", false },                 /* — */
	{ "\u2026", "...", false },               /* … */
	{ "\u2192", "->", false },                /* → */
	{ "\u2190", "<-", false },                /* ← */
	{ "\u2191", "^", false },                 /* ↑ */
	{ "\u2193", "v", false },                 /* ↓ */
	{ "\u2264", "<=", false },                /* ≤ */
	{ "\u2265", ">=", false },                /* ≥ */
	{ "\u2248", "~", false },                 /* ≈ */
	{ "\u221e", "inf", false },               /* ∞ */
	{ "\u1d40", "^T", false },                /* ᵀ */
	{ "\u2082", "2", false },                 /* ₂ */
	{ "\u1d62", "_i", false },                /* ᵢ (Σᵢ head_i → sum_i head_i) */
	{ "\u00b2", "^2", false },                /* ² */
	{ "\u2207", "grad ", false },             /* ∇ */
	{ "\u2202", "d", false },                 /* ∂ (∂L/∂O as dL/dO) */
	{ "\u2713", "(done)", false },            /* ✓ */
	{ "\u275a\u275a", "||", false },          /* ❚❚ paused */
	{ "\u275a", "|", false },                 /* ❚ */
	{ "\u201c", "\"", false },                /* “ */
	{ "\u201d", "\"", false },                /* ” */
	{ "\u2018", "'", false },                 /* ‘ */
	{ "\u2019", "'", false },                 /* ’ */
	{ "\u2500", "-", false },                 /* ─ */
	{ "\u2502", "|", false },                 /* │ */
	{ "\u250a", ":", false },                 /* ┊ */
	{ "\u250c", "+", false },                 /* ┌ */
	{ "\u2510", "+", false },                 /* ┐ */
	{ "\u2514", "+", false },                 /* └ */
	{ "\u2518", "+", false },                 /* ┘ */
	{ "\u2524", "+", false },                 /* ┤ */
	{ "\u252c", "+", false },                 /* ┬ */
	{ "\u25b6", ">", false },                 /* ▶ */
	{ "\u25cf", "*", false },                 /* ● as the charts' ASCII marks have it */
	{ "\u25cb", "o", false },                 /* ○ */
	{ "\u25c6", "#", false },                 /* ◆ (● is * already) */
	{ "\u25c9", "@", false },                 /* ◉ the geometry view's selected query */
	{ "\u25c7", "+", false },                 /* ◇ */
	{ "\u03b8", "theta", false },             /* θ */
	{ "\u00b0", " deg", false },              /* ° */
	{ "\u2580", "#", false },                 /* ▀ */
	{ "\u2588", "@", false },                 /* █ */
	{ "\u2593", "%", false },                 /* ▓ */
	{ "\u2592", "#", false },                 /* ▒ */
	{ "\u2591", "=", false },                 /* ░ */
};

static const char *const shades_utf8[6] = { " ", "\u00b7", "\u2591", "\u2592", "\u2593", "\u2588" };
static const char *const shades_ascii[6] = { " ", ":", "=", "#", "%", "@" };

static bool codeset_is_utf8(void)
{
	const char *codeset = nl_langinfo(CODESET);

	return codeset != NULL && (strcasecmp(codeset, "UTF-8") == 0 || strcasecmp(codeset, "utf8") == 0);
}

static bool is_c_locale(const char *name)
{
	return name == NULL || strcmp(name, "C") == 0 || strcmp(name, "POSIX") == 0;
}

enum glyph_set glyphs_start(const char *const *fallbacks)
{
	const char *force = getenv("QKV_ASCII");
	const char *name = setlocale(LC_CTYPE, "");

	if (name == NULL) /* the environment names a locale that is not installed */
		name = setlocale(LC_CTYPE, NULL);
	fell_back = false;
	if (!codeset_is_utf8() && is_c_locale(name))
		for (size_t i = 0; fallbacks != NULL && fallbacks[i] != NULL; i++)
			if (setlocale(LC_CTYPE, fallbacks[i]) != NULL && codeset_is_utf8()) {
				fell_back = true;
				break;
			}
	current = codeset_is_utf8() && (force == NULL || force[0] == '\0') ? GLYPHS_UTF8 : GLYPHS_ASCII;
	return current;
}

bool glyphs_fell_back(void)
{
	return fell_back;
}

int glyphs_report_column(const char *text, size_t length)
{
	/* The last "ESC [ digits ; digits R" in text. */
	for (size_t start = length; start-- > 0;) {
		size_t i = start + 2;
		long row = 0, column = 0;

		if (text[start] != '\033' || start + 1 >= length || text[start + 1] != '[')
			continue;
		while (i < length && text[i] >= '0' && text[i] <= '9' && row < 100000)
			row = row * 10 + (text[i++] - '0');
		if (i == start + 2 || i >= length || text[i++] != ';')
			continue;
		if (i >= length || text[i] < '0' || text[i] > '9')
			continue;
		while (i < length && text[i] >= '0' && text[i] <= '9' && column < 100000)
			column = column * 10 + (text[i++] - '0');
		if (i < length && text[i] == 'R')
			return (int)column;
	}
	return -1;
}

enum glyph_set glyphs_set(void)
{
	return current;
}

void glyphs_use(enum glyph_set set)
{
	current = set;
}

static bool word_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Appends text to buf at *at, cutting at size − 1. */
static void append(char *buf, size_t size, size_t *at, const char *text, size_t length)
{
	if (*at + length > size - 1)
		length = size - 1 - *at;
	memcpy(buf + *at, text, length);
	*at += length;
}

const char *glyphs_text(const char *s, char *buf, size_t size)
{
	size_t at = 0;
	const char *p;

	if (current == GLYPHS_UTF8 || size == 0)
		return s;
	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p >= 0x80)
			break;
	if (*p == '\0')
		return s; /* plain ASCII already: the common case, no copy */
	p = s;
	while (*p != '\0' && at < size - 1) {
		const struct spelling *found = NULL;

		if ((unsigned char)*p < 0x80) {
			buf[at++] = *p++;
			continue;
		}
		for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
			if (strncmp(p, spellings[i].utf8, strlen(spellings[i].utf8)) == 0) {
				found = &spellings[i];
				break;
			}
		if (found == NULL) {
			/* An unknown character: one '?' for the lead byte and its continuations. */
			buf[at++] = '?';
			p++;
			while (((unsigned char)*p & 0xc0) == 0x80)
				p++;
			continue;
		}
		append(buf, size, &at, found->ascii, strlen(found->ascii));
		p += strlen(found->utf8);
		if (found->paren && word_char(*p)) {
			const char *end = p;
			while (word_char(*end))
				end++;
			append(buf, size, &at, "(", 1);
			append(buf, size, &at, p, (size_t)(end - p));
			append(buf, size, &at, ")", 1);
			p = end;
		}
	}
	buf[at] = '\0';
	return buf;
}

int glyphs_columns(const char *s)
{
	char buf[1024];

	if (current == GLYPHS_UTF8)
		return qkv_text_columns(s);
	return (int)strlen(glyphs_text(s, buf, sizeof buf));
}

const char *glyphs_shade(int k)
{
	k = k < 0 ? 0 : k > 5 ? 5 : k;
	return current == GLYPHS_UTF8 ? shades_utf8[k] : shades_ascii[k];
}

bool glyphs_half_blocks(void)
{
	return current == GLYPHS_UTF8;
}
