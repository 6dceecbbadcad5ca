/* draw_lesson.c — the lesson's lines (draw_lesson.h). */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "qkv/format.h"
#include "tui/draw_lesson.h"
#include "tui/glyphs.h"
#include "tui/palette.h"

/* Writes s on row y over the width, ending in "…" when it does not fit. */
static void put_line(int y, int width, struct cell_style style, const char *text)
{
	char shown[2048], dots[16];
	const char *s = glyphs_text(text, shown, sizeof shown); /* the glyph set's characters */
	bool cut = glyphs_columns(s) > width;
	int room = cut ? width - 1 : width, columns = 0;
	const char *end = s;

	palette_apply(stdscr, style);
	mvhline(y, 0, ' ', width);
	while (*end != '\0') {
		if (((unsigned char)*end & 0xc0) != 0x80) {
			if (columns == room)
				break;
			columns++;
		}
		end++;
	}
	mvaddnstr(y, 0, s, (int)(end - s));
	if (cut && width > 0)
		mvaddstr(y, width - 1, glyphs_text("…", dots, sizeof dots));
}

/* Where text breaks after `lines` lines of room columns each (at a space), or
 * NULL when it fits in those lines (or a word is wider than a line). */
static const char *wrap_at(const char *text, int room, int lines)
{
	const char *at = text;

	for (int line = 0; line < lines; line++) {
		int columns = 0;
		const char *cut = NULL, *c;

		for (c = at; *c != '\0' && columns <= room; c++) {
			if (((unsigned char)*c & 0xc0) != 0x80)
				columns++;
			if (*c == ' ' && c != at)
				cut = c;
		}
		if ((*c == '\0' && columns <= room) || cut == NULL)
			return NULL;
		if (line + 1 == lines)
			return cut;
		at = cut + 1;
	}
	return NULL;
}

void draw_lesson(const struct app *app, const struct layout *l, const struct lesson_run *run, bool followed)
{
	const struct lesson_step *step = &run->lesson->steps[run->step];
	char text[1024], keys[256];
	int y = l->status_y;

	if (l->too_small || y + 1 >= l->height)
		return;
	/* The keys line: where the lesson is, and how to move in it (the key table's
	 * lesson hints). */
	app_context_hints(app, APP_KEYS_LESSON, keys, sizeof keys);
	snprintf(text, sizeof text, " Step %d of %d: %s · %s", run->step + 1, run->lesson->step_count, step->title,
		 run->said[0] != '\0' ? run->said : keys + 1);
	put_line(y + 1, l->width, palette_role(ROLE_CURSOR), text);
	/* The message line: the notes, until something is changed by hand or a
	 * presenter screen shows them. */
	if (!followed && !run->explored && !app->editing && app->prompt == PROMPT_NONE && step->notes[0] != '\0') {
		size_t i = 0;
		int free_above = y - (l->info_y + l->info_h), lines = 1, room = l->width - 1;
		const char *at = text;

		for (const char *c = step->notes; *c != '\0' && i + 1 < sizeof text; c++)
			text[i++] = *c == '\n' ? ' ' : *c;
		text[i] = '\0';
		/* Over the free lines above the message line, up to four, broken at spaces. */
		while (lines < 4 && lines <= free_above && wrap_at(text, room, lines) != NULL)
			lines++;
		for (int line = 0; line < lines; line++) {
			const char *end = line + 1 < lines ? wrap_at(at, room, 1) : NULL;
			char part[1100];

			if (end == NULL)
				end = at + strlen(at);
			snprintf(part, sizeof part, " %.*s", (int)(end - at), at);
			put_line(y - (lines - 1) + line, l->width, palette_role(ROLE_STATUS), part);
			at = *end == ' ' ? end + 1 : end;
		}
	}
	wnoutrefresh(stdscr);
	doupdate();
}
