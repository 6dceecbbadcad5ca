/* draw_lesson.c — the lesson's lines (draw_lesson.h). */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "qkv/format.h"
#include "qkv/text.h"
#include "tui/draw_lesson.h"
#include "tui/glyphs.h"
#include "tui/palette.h"
#include "tui/text.h"

/* Writes text on row y from column x, blanking the row over width first. */
static void put_line(int y, int x, int width, struct cell_style style, const char *text)
{
	char shown[TEXT_MAX * 2];
	const char *s = glyphs_text(text, shown, sizeof shown); /* the glyph set's characters */

	palette_apply(stdscr, style);
	mvhline(y, 0, ' ', width + x);
	mvaddnstr(y, x, s, (int)qkv_text_fit(s, width, strlen(s)));
}

const char *draw_lesson_notes(const struct lesson_run *run, bool followed, char *buf, size_t size)
{
	const struct lesson_step *step = &run->lesson->steps[run->step];
	size_t i = 0;

	if (followed || run->explored || step->notes[0] == '\0' || size == 0)
		return NULL;
	/* The notes' lines as one paragraph, broken again to the screen's width. */
	for (const char *c = step->notes; *c != '\0' && i + 1 < size; c++)
		buf[i++] = *c == '\n' ? ' ' : *c;
	buf[i] = '\0';
	return buf;
}

void draw_lesson(const struct app *app, const struct layout *l, const struct lesson_run *run)
{
	const struct lesson_step *step = &run->lesson->steps[run->step];
	char text[TEXT_MAX * 2 + 256], keys[TEXT_MAX], line[TEXT_MAX * 2 + 256], page[96] = "";
	int y = l->status_y, pages = l->notes != NULL ? l->notes_pages : 0;
	int shown = run->page < pages ? run->page : pages - 1;

	if (l->too_small || y + 1 >= l->height)
		return;
	/* The keys line: where the lesson is, which page of the notes, and how to
	 * move (the key table's lesson hints), whole hints dropped from the end. */
	if (pages > 1)
		snprintf(page, sizeof page, shown + 1 < pages ? " (notes %d of %d, PgDn reads on)" : " (notes %d of %d)",
			 shown + 1, pages);
	/* In the stage walk, n walks the stages (PageDown is the lesson's): first. */
	keys[0] = '\0';
	if (app->stage != APP_STAGE_LIVE && app->stage < app_last_stage(app))
		snprintf(keys, sizeof keys, " n next stage ·");
	app_context_hints(app, APP_KEYS_LESSON, keys + strlen(keys), sizeof keys - strlen(keys));
	if (run->said[0] == '\0') {
		/* The step and the notes' page always; the title when it fits with them. */
		char first[TEXT_MAX];

		snprintf(first, sizeof first, " Step %d of %d: %s%s", run->step + 1, run->lesson->step_count, step->title,
			 page);
		if (glyphs_columns(first) > l->width)
			snprintf(first, sizeof first, " Step %d of %d%s", run->step + 1, run->lesson->step_count, page);
		snprintf(text, sizeof text, "%s · %s", first, keys + 1);
		text_items_fitting(line, sizeof line, text, l->width);
	} else {
		/* What the lesson says is never dropped: the step's title goes first. */
		snprintf(line, sizeof line, " Step %d of %d: %s · %s", run->step + 1, run->lesson->step_count, step->title,
			 run->said);
		if (glyphs_columns(line) > l->width)
			snprintf(line, sizeof line, " Step %d of %d · %s", run->step + 1, run->lesson->step_count, run->said);
		if (glyphs_columns(line) > l->width)
			snprintf(line, sizeof line, " %s", run->said);
	}
	put_line(y + 1, 0, l->width, palette_role(ROLE_CURSOR), line);
	/* The notes: the page shown, in the lines the layout reserved. */
	if (pages > 0 && l->notes_h > 0) {
		char drawn[TEXT_NOTES_MAX];
		const char *s = glyphs_text(l->notes, drawn, sizeof drawn), *next;
		int width = l->width - 2;

		for (int skip = 0; skip < shown * l->notes_h && *s != '\0'; skip++) {
			qkv_text_line(s, width, &next);
			s = next;
		}
		for (int k = 0; k < l->notes_h; k++) {
			size_t length = *s != '\0' ? qkv_text_line(s, width, &next) : 0;

			snprintf(text, sizeof text, "%.*s", (int)length, s);
			put_line(l->notes_y + k, 1, width, palette_role(ROLE_STATUS), text);
			if (*s != '\0')
				s = next;
		}
	}
	wnoutrefresh(stdscr);
	doupdate();
}
