/* help.c — the help view (?): its geometry, which page, column and line each of
 * the key table's entries takes (see help.h), and its paging. */
#include "app/help.h"

#include <string.h>

#include "app/internal.h"

/* The key table's help entries, grouped: for each group in the order it first
 * appears, its heading then its bindings in table order. Fills items[] (name,
 * text) and returns how many. */
static int gather(const struct app_keys *keys, struct app_help_item *items, int max)
{
	const char *groups[APP_HELP_MAX];
	int group_count = 0, count = 0;

	/* The groups, in the order they first appear. */
	for (int i = 0; i < keys->count; i++) {
		const char *group = keys->rows[i]->group != NULL ? keys->rows[i]->group : "";
		bool known = false;

		if (keys->rows[i]->note == NULL)
			continue;
		for (int g = 0; g < group_count; g++)
			known = known || strcmp(groups[g], group) == 0;
		if (!known && group_count < APP_HELP_MAX)
			groups[group_count++] = group;
	}
	for (int g = 0; g < group_count && count < max; g++) {
		items[count++] = (struct app_help_item){ .name = NULL, .text = groups[g] };
		for (int i = 0; i < keys->count && count < max; i++) {
			const struct app_binding *b = keys->rows[i];

			if (b->note != NULL && strcmp(b->group != NULL ? b->group : "", groups[g]) == 0)
				items[count++] = (struct app_help_item){ .name = b->name, .text = b->note };
		}
	}
	return count;
}

/* Flows items down columns of `lines` lines, one after the other (a column of
 * page p and column c is number p·columns + c): a group starts a new column when
 * it does not fit the rest of this one but fits a whole one, and a heading never
 * ends a column. Sets each item's line and running column; returns the columns
 * used. */
static int flow(struct app_help_item *items, int count, int lines)
{
	int column = 0, line = 0;

	for (int i = 0; i < count; i++) {
		if (items[i].name == NULL) {
			int size = 1;

			while (i + size < count && items[i + size].name != NULL)
				size++;
			if (line > 0 && line + size > lines && (size <= lines || line + 2 > lines)) {
				column++;
				line = 0;
			}
		} else if (line >= lines) {
			column++;
			line = 0;
		}
		items[i].column = column;
		items[i].line = line++;
	}
	return count > 0 ? column + 1 : 0;
}

void app_help_layout(struct app_help *help, int width, int height)
{
	struct app_keys keys;

	app_keys_default(&keys);
	app_help_layout_keys(help, &keys, width, height);
}

void app_help_layout_keys(struct app_help *help, const struct app_keys *keys, int width, int height)
{
	memset(help, 0, sizeof *help);
	help->count = gather(keys, help->items, APP_HELP_MAX);
	app_help_place(help, width, height);
}

void app_help_place(struct app_help *help, int width, int height)
{
	int most_columns, most_lines, columns = 0, lines = 0;

	/* The box leaves a column and a line of the screen around it; inside, its
	 * frame and a margin of a column each side, and the frame and the footer. */
	most_columns = (width - 2 - 2) / APP_HELP_COLUMN;
	if (most_columns < 1)
		most_columns = 1;
	most_lines = height - 2 - 3;
	if (most_lines < 2)
		most_lines = 2;
	/* The fewest columns (two if the screen has them) that hold everything, as
	 * short as they can be. */
	for (int c = most_columns < 2 ? most_columns : 2; c <= most_columns && columns == 0; c++)
		if (flow(help->items, help->count, most_lines) <= c) {
			int l = most_lines;

			while (l > 2 && flow(help->items, help->count, l - 1) <= c)
				l--;
			columns = c;
			lines = l;
		}
	if (columns == 0) {
		columns = most_columns;
		lines = most_lines;
	}
	help->columns = columns;
	help->lines = lines;
	help->pages = (flow(help->items, help->count, lines) + columns - 1) / columns;
	if (help->pages < 1)
		help->pages = 1;
	for (int i = 0; i < help->count; i++) {
		help->items[i].page = help->items[i].column / columns;
		help->items[i].column %= columns;
	}
	help->w = columns * APP_HELP_COLUMN + 2;
	if (help->w < 80)
		help->w = 80;
	if (help->w > width - 2)
		help->w = width - 2;
	help->h = lines + 3;
	help->x = (width - help->w) / 2;
	help->y = (height - help->h) / 2;
}

int help_open(struct app *app)
{
	app->help.page = 0;
	return 0;
}

int help_event(struct app *app, const struct event *event)
{
	if (event->type == EVENT_RESIZE && app->help.page > 0) {
		struct app_help help;

		app_help_layout(&help, event->width, event->height);
		if (app->help.page >= help.pages)
			app->help.page = help.pages - 1;
	}
	return -1;
}

int help_page_after(const struct app *app, int key)
{
	struct app_help help;
	int page = app->help.page + (key == APP_KEY_PAGE_UP || key == 'p' ? -1 : 1);

	app_help_layout(&help, app->width, app->height);
	return page >= 0 && page < help.pages ? page : -1;
}

int help_page_key(struct app *app, int key)
{
	int page = help_page_after(app, key);

	if (page < 0)
		return view_others(app, key);
	app->help.page = page;
	return REDRAW_ALL;
}
