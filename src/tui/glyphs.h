/* glyphs.h — the one place that decides which characters the interface draws:
 * UTF-8 (boxes, √, τ, Σ, ‖J‖, half blocks, shades) when the locale can encode it,
 * plain ASCII (sqrt, tau, sum, ||J||, |, -, +, #) when it cannot. Chosen once at
 * start-up; every text the interface writes goes through glyphs_text, so the words
 * of the app and the derivations of the core are drawn in the same set. No curses. */
#ifndef QKV_TUI_GLYPHS_H
#define QKV_TUI_GLYPHS_H

#include <stdbool.h>
#include <stddef.h>

enum glyph_set {
	GLYPHS_UTF8,
	GLYPHS_ASCII,
};

/* The locales tried, in order, when the environment's is C or POSIX. */
extern const char *const glyphs_fallback_locales[];

/* Sets LC_CTYPE from the environment. When that locale is not UTF-8 and is the C
 * or POSIX locale (LANG and LC_* unset, or naming a locale that is not installed),
 * tries each of `fallbacks` (NULL-terminated) and keeps the first UTF-8 one. The
 * set is UTF-8 when LC_CTYPE now encodes UTF-8 and QKV_ASCII is unset or empty,
 * else ASCII. Returns the set chosen, which glyphs_set then reports. */
enum glyph_set glyphs_start(const char *const *fallbacks);
/* True when glyphs_start found the C or POSIX locale and took a fallback: nobody
 * asked for UTF-8, so whether the terminal shows it is not known (tui.c asks it). */
bool glyphs_fell_back(void);
/* The column of the last cursor position report ("ESC [ row ; column R", the
 * terminal's answer to ESC [ 6 n) in the length bytes of text, or -1 when there is none. */
int glyphs_report_column(const char *text, size_t length);
/* The current set (UTF-8 until glyphs_start or glyphs_use says otherwise). */
enum glyph_set glyphs_set(void);
/* Makes `set` current without touching the locale (tests, the benchmark). */
void glyphs_use(enum glyph_set set);

/* s as drawn in the current set: s itself under UTF-8; under ASCII a copy in buf
 * (cut to size − 1 bytes) in which every character of the table is spelled in
 * ASCII (√2 → sqrt(2), τ → tau, Σ → sum, ‖ → ||, ÷ → /, → → ->, boxes → | - +)
 * and any other non-ASCII character is "?". */
const char *glyphs_text(const char *s, char *buf, size_t size);
/* The terminal columns s takes once drawn in the current set. */
int glyphs_columns(const char *s);

/* Shade k of 6 (0 = lightest) for weights without colour: " ·░▒▓█" in UTF-8,
 * " :=#%@" in ASCII (the usual ASCII ramp, no - or + to read as a sign). */
const char *glyphs_shade(int k);
/* True when the half block "▀" can show two rows of a heatmap per line. */
bool glyphs_half_blocks(void);

#endif
