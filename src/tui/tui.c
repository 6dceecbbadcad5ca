/* tui.c — the interface's life: check the terminal, start curses, turn input into
 * events for app_update, redraw what the flags name, and restore the terminal on
 * every way out (quit, signals, errors). Signal handlers only set a flag. */
#include <curses.h>
#include <term.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "tui/draw.h"
#include "tui/input.h"
#include "tui/layout.h"
#include "tui/palette.h"
#include "tui/tui.h"

#define TICK_MS 100

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int signal_number)
{
	stop_signal = signal_number;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void catch_signals(void)
{
	struct sigaction action;

	memset(&action, 0, sizeof action);
	action.sa_handler = on_stop_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGHUP, &action, NULL);
}

/* A terminal qkv can draw on: TERM set, not dumb, known to terminfo. */
static int check_terminal(void)
{
	const char *term = getenv("TERM");
	int found = 0;

	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "qkv: the interface needs a terminal; use --print to write the stages as text\n");
		return 2;
	}
	if (term == NULL || term[0] == '\0' || strcmp(term, "dumb") == 0) {
		fprintf(stderr, "qkv: TERM is %s, so the screen cannot be drawn; set TERM (e.g. xterm-256color) "
				"or use --print\n", term == NULL || term[0] == '\0' ? "not set" : "dumb");
		return 2;
	}
	/* Ask terminfo first: a failed newterm leaves memory behind in ncurses. */
	if (setupterm(NULL, STDOUT_FILENO, &found) != OK) {
		fprintf(stderr, "qkv: the terminal type '%s' is unknown to terminfo; try TERM=xterm-256color "
				"or --print\n", term);
		return 2;
	}
	del_curterm(cur_term);
	return 0;
}

int tui_run(struct qkv_problem *p, const char *path, const struct tui_options *o)
{
	struct app app;
	struct layout layout;
	SCREEN *screen;
	int status = check_terminal(), rc;
	int start_palette;

	if (status == 0 && o != NULL && o->palette != NULL && palette_find(o->palette) < 0) {
		fprintf(stderr, "qkv: --palette %s: unknown palette; expected viridis, projector, 8 or mono\n",
			o->palette);
		status = 2;
	}
	if (status != 0) {
		qkv_problem_fini(p);
		return status;
	}
	/* Characters only: numbers keep the C locale's decimal point everywhere. */
	setlocale(LC_CTYPE, "");
	screen = newterm(NULL, stdout, stdin);
	if (screen == NULL) {
		fprintf(stderr, "qkv: the terminal type '%s' is unknown to terminfo; try TERM=xterm-256color or --print\n",
			getenv("TERM"));
		qkv_problem_fini(p);
		return 2;
	}
	set_term(screen);
	catch_signals();
	if (has_colors()) {
		start_color();
		use_default_colors();
	}
	palette_set_depth(o != NULL ? o->color : NULL);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	/* Home and End as tmux, screen and rxvt send them, whatever terminfo says:
	 * a clicker or a teacher's Home must never arrive as Esc, '[', '1', '~'. */
	define_key("\033[1~", KEY_HOME);
	define_key("\033[4~", KEY_END);
	define_key("\033[7~", KEY_HOME);
	define_key("\033[8~", KEY_END);
	define_key("\033[H", KEY_HOME);
	define_key("\033[F", KEY_END);
	define_key("\033OH", KEY_HOME);
	define_key("\033OF", KEY_END);
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
			  | BUTTON5_PRESSED
#endif
		  , NULL);
	mouseinterval(0);
	timeout(TICK_MS);

	start_palette = o != NULL && o->palette != NULL ? palette_find(o->palette) : -1;
	rc = app_init(&app, p, path, palette_count());
	if (rc != 0) {
		endwin();
		delscreen(screen);
		app_fini(&app);
		fprintf(stderr, "qkv: cannot start: out of memory\n");
		return 1;
	}
	app.palette = start_palette >= 0 ? start_palette : palette_default();
	if (palette_notice() != NULL)
		snprintf(app.message, sizeof app.message, "%s", palette_notice());
	if (o != NULL) {
		app.projector = o->projector;
		if (o->pace > 0)
			app.pace_s = o->pace;
	}
	memset(&layout, 0, sizeof layout);
	{
		struct event resize = { .type = EVENT_RESIZE, .width = COLS, .height = LINES, .now_ms = now_ms() };
		draw_render(&app, &layout, app_update(&app, &resize));
	}
	while (!app.quit && stop_signal == 0) {
		wint_t code;
		int got = wget_wch(stdscr, &code);
		struct event event;
		int flags;

		if (got == ERR) {
			struct event tick = { .type = EVENT_TICK, .now_ms = now_ms() };
			draw_render(&app, &layout, app_update(&app, &tick));
			continue;
		}
		if (!input_translate(got, (unsigned int)code, &layout, now_ms(), &event))
			continue;
		flags = app_update(&app, &event);
		draw_render(&app, &layout, flags);
	}
	endwin();
	delscreen(screen);
	app_fini(&app);
	if (stop_signal != 0)
		return 128 + (int)stop_signal;
	return 0;
}
