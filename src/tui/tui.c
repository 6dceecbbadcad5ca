/* tui.c — the interface's life: check the terminal, start curses, turn input into
 * events for app_update, redraw what the flags name, and restore the terminal on
 * every way out (quit, signals, errors, the terminal gone). Signal handlers only set
 * a flag, except those of crashes, which put the terminal back and re-raise.
 *
 * Every signal whose default would end qkv is caught or ignored: SIGINT is Ctrl-C
 * (asks when there are unsaved changes, like q); SIGTERM, SIGHUP, SIGQUIT and
 * SIGXCPU end qkv with status 128 + N after writing a recovery copy of unsaved
 * changes; SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR,
 * SIGXFSZ and the real-time signals are ignored. SIGCONT after a stop from outside
 * (kill -STOP) puts the program's terminal modes back and repaints. Ctrl-C and Ctrl-\ arrive as keys
 * (the terminal's INTR and QUIT characters are off), and so do Ctrl-S and Ctrl-Q
 * (no XON/XOFF flow control). Pastes are bracketed, so pasted text never runs keys. */
#include <curses.h>
#include <term.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "app/files.h"
#include "present/lesson.h"
#include "present/notes.h"
#include "io/problem/load.h"
#include "io/problem/quote.h"
#include "io/problem/recovery.h"
#include "tui/draw.h"
#include "tui/draw_lesson.h"
#include "tui/glyphs.h"
#include "tui/input.h"
#include "tui/layout.h"
#include "tui/palette.h"
#include "tui/record.h"
#include "tui/text.h"
#include "tui/tui.h"

#define TICK_MS 100
#define BUSY_TICK_MS 20 /* while a computation runs beside the interface */
#define KEY_PASTE_BEGIN (KEY_MAX + 1) /* ESC [ 200 ~ */
#define KEY_PASTE_END (KEY_MAX + 2)   /* ESC [ 201 ~ */
#define EXIT_TERMINAL_GONE (128 + SIGHUP) /* as if the terminal had hung up */

static const char paste_on[] = "\033[?2004h", paste_off[] = "\033[?2004l";
/* Everything qkv turns on, turned off: bracketed paste, mouse reports, the hidden
 * cursor and the alternate screen (for a crash, when curses cannot be called). */
static const char restore_text[] = "\033[?2004l\033[?1006l\033[?1002l\033[?1000l\033[?25h\033[?1049l";

static volatile sig_atomic_t stop_signal, interrupt_signal, suspend_signal, continue_signal;
static struct termios shell_modes;
static volatile sig_atomic_t have_shell_modes;

static const int stop_signals[] = { SIGTERM, SIGHUP, SIGQUIT, SIGXCPU };
static const int ignored_signals[] = { SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
#ifdef SIGIO
				       SIGIO,
#endif
#ifdef SIGPWR
				       SIGPWR,
#endif
#ifdef SIGSTKFLT
				       SIGSTKFLT,
#endif
				       SIGXFSZ };
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP };
#define COUNT(a) (sizeof (a) / sizeof (a)[0])
static struct sigaction crash_previous[COUNT(crash_signals)];

static void on_stop_signal(int signal_number)
{
	stop_signal = signal_number;
}

/* The cost view's clock: milliseconds, monotonic, to the nanosecond. */
static double clock_ms(void *context)
{
	struct timespec ts;

	(void)context;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void on_interrupt(int signal_number)
{
	(void)signal_number;
	interrupt_signal = 1;
}

static void on_suspend(int signal_number)
{
	(void)signal_number;
	suspend_signal = 1;
}

static void on_continue(int signal_number)
{
	(void)signal_number;
	continue_signal = 1;
}

/* A crash (or kill -SEGV): the terminal back as the shell had it, then the signal
 * again with what was there before (the default, or a sanitizer's report). */
static void on_crash(int signal_number)
{
	int saved = errno;

	if (have_shell_modes) {
		ssize_t ignored = write(STDOUT_FILENO, restore_text, sizeof restore_text - 1);

		(void)ignored;
		tcsetattr(STDIN_FILENO, TCSANOW, &shell_modes);
	}
	for (size_t i = 0; i < COUNT(crash_signals); i++)
		if (crash_signals[i] == signal_number)
			sigaction(signal_number, &crash_previous[i], NULL);
	raise(signal_number);
	errno = saved;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Terminal modes curses does not know, written straight to the terminal. */
static void send(const char *text)
{
	fflush(stdout);
	if (write(STDOUT_FILENO, text, strlen(text)) < 0)
		return; /* a terminal that is gone needs no modes */
}

static void set_handler(int signal_number, void (*handler)(int), struct sigaction *previous)
{
	struct sigaction action;

	memset(&action, 0, sizeof action);
	action.sa_handler = handler;
	sigemptyset(&action.sa_mask);
	sigaction(signal_number, &action, previous);
}

/* Before newterm, so curses leaves SIGINT, SIGTERM and SIGTSTP to qkv. */
static void catch_signals(void)
{
	for (size_t i = 0; i < COUNT(stop_signals); i++)
		set_handler(stop_signals[i], on_stop_signal, NULL);
	for (size_t i = 0; i < COUNT(ignored_signals); i++)
		set_handler(ignored_signals[i], SIG_IGN, NULL);
#if defined(SIGRTMIN) && defined(SIGRTMAX)
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		set_handler(s, SIG_IGN, NULL);
#endif
	for (size_t i = 0; i < COUNT(crash_signals); i++)
		set_handler(crash_signals[i], on_crash, &crash_previous[i]);
	set_handler(SIGINT, on_interrupt, NULL);
	set_handler(SIGTSTP, on_suspend, NULL);
	set_handler(SIGCONT, on_continue, NULL);
}

/* Ctrl-C and Ctrl-\ as keys (INTR and QUIT off), Ctrl-S and Ctrl-Q as keys (no
 * XON/XOFF, so Ctrl-S never freezes the screen); Ctrl-Z still suspends. Curses
 * keeps these modes as the program's, to come back to after a suspension. */
static void quiet_terminal_keys(void)
{
	struct termios modes;

	if (tcgetattr(STDIN_FILENO, &modes) != 0)
		return;
	modes.c_cc[VINTR] = _POSIX_VDISABLE;
	modes.c_cc[VQUIT] = _POSIX_VDISABLE;
	modes.c_iflag &= ~(tcflag_t)(IXON | IXOFF);
	tcsetattr(STDIN_FILENO, TCSANOW, &modes);
	def_prog_mode();
}

/* Ctrl-Z (SIGTSTP): the terminal back to the shell, stop, and on fg take it again. */
static void suspend(void)
{
	sigset_t set;

	endwin();
	send(paste_off);
	set_handler(SIGTSTP, SIG_DFL, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(SIGTSTP);
	/* Here again after SIGCONT. */
	set_handler(SIGTSTP, on_suspend, NULL);
	reset_prog_mode();
	send(paste_on);
	clearok(curscr, TRUE);
	refresh();
	continue_signal = 0; /* the SIGCONT of this fg: all is done already */
}

/* SIGCONT after a stop qkv did not ask for (kill -STOP, then kill -CONT or fg):
 * meanwhile the shell or another program may have put the terminal back to its
 * own modes (cooked, echoing) and written over the screen. The program's modes
 * again, bracketed paste on, and the next frame repaints everything. */
static void resume(void)
{
	continue_signal = 0;
	reset_prog_mode();
	send(paste_on);
	clearok(curscr, TRUE);
}

/* Asks the terminal whether it shows UTF-8, for when nobody said so (the C locale):
 * "é" is written as its two UTF-8 bytes at the start of the line, and the terminal
 * asked where the cursor is (ESC [ 6 n). A terminal in UTF-8 took them as one
 * character (column 2); one in Latin-1 or another 8-bit set as two ("Ã©", column
 * 3); one that does not answer within 300 ms is taken as not UTF-8, and its
 * answer, if it comes later, is taken away from the keys (read_key). The line is
 * cleared after. Before curses starts, with the terminal's own modes around it. */
static bool terminal_shows_utf8(bool *answered)
{
	struct termios saved, quiet;
	char answer[64];
	size_t length = 0;
	int64_t end;

	if (tcgetattr(STDIN_FILENO, &saved) != 0)
		return false;
	quiet = saved;
	quiet.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	quiet.c_cc[VMIN] = 0;
	quiet.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &quiet) != 0)
		return false;
	*answered = false;
	send("\r\xc3\xa9\033[6n");
	end = now_ms() + 300;
	while (length < sizeof answer - 1) {
		struct pollfd fd = { .fd = STDIN_FILENO, .events = POLLIN };
		int64_t left = end - now_ms();
		ssize_t got;

		if (left <= 0 || poll(&fd, 1, (int)left) != 1)
			break;
		got = read(STDIN_FILENO, answer + length, sizeof answer - 1 - length);
		if (got <= 0)
			break;
		length += (size_t)got;
		if (answer[length - 1] == 'R')
			break;
	}
	send("\r\033[K");
	tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	*answered = length > 0 && answer[length - 1] == 'R';
	return glyphs_report_column(answer, length) == 2;
}

/* True while the answer to the probe (terminal_shows_utf8) is owed: it did not
 * come in time, and may still come (a slow link). */
static bool probe_owed;

/* True when c can follow the characters before it in a cursor position report
 * after its ESC: '[', digits, ';', digits, 'R' (at is c's place from 0). */
static bool report_goes_on(const wint_t *held, int at, wint_t c)
{
	bool digit = c >= '0' && c <= '9', after_digit = at > 0 && held[at - 1] >= '0' && held[at - 1] <= '9';
	bool semicolon_seen = false;

	for (int i = 0; i < at; i++)
		semicolon_seen |= held[i] == ';';
	if (at == 0)
		return c == '[';
	if (digit)
		return true;
	if (c == ';')
		return after_digit && !semicolon_seen;
	return c == 'R' && after_digit && semicolon_seen;
}

/* wget_wch with the window's timeout at timeout_ms; while the probe's answer is
 * owed, an answer that arrives late (ESC [ row ; column R) is taken away and never
 * read as keys (its '[' and digits are commands). Anything else after an ESC is
 * given back as it came. */
static int read_key(wint_t *code, int timeout_ms)
{
	wint_t held[16];
	int kinds[16], count = 0, got;

	timeout(timeout_ms);
	got = wget_wch(stdscr, code);
	if (!probe_owed || got != OK || *code != 27)
		return got;
	timeout(30); /* a report's characters come together */
	while (count < 16) {
		wint_t c;
		int kind = wget_wch(stdscr, &c);

		if (kind == ERR)
			break;
		held[count] = c;
		kinds[count] = kind;
		if (kind != OK || !report_goes_on(held, count, c)) {
			count++;
			break;
		}
		if (c == 'R') {
			probe_owed = false; /* the answer came: nothing more is owed */
			return read_key(code, timeout_ms);
		}
		count++;
	}
	/* Not a report: the characters go back, the last first, to be read after the ESC. */
	while (count-- > 0) {
		if (kinds[count] == KEY_CODE_YES)
			ungetch((int)held[count]);
		else
			unget_wch((wchar_t)held[count]);
	}
	timeout(timeout_ms);
	return got;
}

/* After wget_wch gave nothing: true when the terminal is gone (it hung up, or
 * reads end at once with EOF or EIO), rather than the tick having passed. A read
 * that ends at once over and over with nothing is a terminal that is gone. */
static bool terminal_gone(int64_t waited_ms, int timeout_ms, int *quick)
{
	struct pollfd fd = { .fd = STDIN_FILENO, .events = POLLIN };

	if (waited_ms >= timeout_ms / 2) {
		*quick = 0;
		return false;
	}
	if (poll(&fd, 1, 0) == 1 && (fd.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0)
		return true;
	return ++*quick >= 20;
}

/* Writes the recovery copy of unsaved changes when qkv must end without asking;
 * the sentence for stderr goes into said ("" when there was nothing to keep). */
static void keep_changes(const struct app *app, char *said, size_t size)
{
	char where[4096], err[600], path_shown[1024], where_shown[1024];

	said[0] = '\0';
	if (!app->dirty)
		return;
	if (recovery_write(app->path, &app->problem, where, sizeof where, err, sizeof err) != 0) {
		snprintf(said, size, "qkv: the unsaved changes are lost: %s\n", err);
		return;
	}
	/* The names as a message quotes them: a control character in one is escaped. */
	quote_text(where_shown, sizeof where_shown, where, strlen(where), 240);
	if (app->path != NULL) {
		quote_text(path_shown, sizeof path_shown, app->path, strlen(app->path), 240);
		snprintf(said, size, "qkv: the unsaved changes to %s are kept in %s; qkv offers them "
			 "the next time %s is opened\n", path_shown, where_shown, path_shown);
	} else {
		snprintf(said, size, "qkv: the unsaved problem is kept in %s; open it with qkv %s\n",
			 where_shown, where_shown);
	}
}

/* A first trace that takes long is computed on a thread while one line says so;
 * q, Esc, Ctrl-C, signals and a vanished terminal end qkv meanwhile (nothing has
 * been changed, so nothing is kept). Returns -1 to go on (*computed says whether
 * trace holds p's trace), or the exit status; p is then empty. */
static int first_trace(struct qkv_problem *p, struct qkv_trace *trace, bool *computed)
{
	struct job *job;
	int64_t started = now_ms();
	int status = -1, quick = 0, n = p->n, d_k = qkv_problem_d_k(p);

	*computed = false;
	if (!app_trace_is_long(p) || (job = job_new(JOB_TRACE)) == NULL)
		return -1;
	job->problem = *p;
	qkv_problem_init(p);
	job_start(job);
	timeout(BUSY_TICK_MS);
	while (!job_done(job)) {
		wint_t code;
		int got;
		int64_t asked = now_ms();
		char line[160], drawn[160];

		if (stop_signal != 0 || interrupt_signal) {
			status = stop_signal != 0 ? 128 + (int)stop_signal : 128 + SIGINT;
			break;
		}
		if (suspend_signal) {
			suspend_signal = 0;
			suspend();
		}
		if (continue_signal)
			resume();
		snprintf(line, sizeof line, " computing the trace of %d tokens, d_k %d… %.1f s · q quits", n, d_k,
			 (double)(asked - started) / 1000.0);
		erase();
		mvaddnstr(0, 0, glyphs_text(line, drawn, sizeof drawn), COLS);
		refresh();
		got = read_key(&code, BUSY_TICK_MS);
		if (got == ERR) {
			if (terminal_gone(now_ms() - asked, BUSY_TICK_MS, &quick)) {
				status = EXIT_TERMINAL_GONE;
				break;
			}
			continue;
		}
		quick = 0;
		if (got == OK && (code == 'q' || code == 27 || code == 3 || code == 28)) {
			status = 0;
			break;
		}
	}
	timeout(TICK_MS);
	if (status >= 0) {
		job_abandon(job); /* the thread frees it, problem and all, when it ends */
		return status;
	}
	*p = job->problem;
	qkv_problem_init(&job->problem);
	if (job->result == 0) {
		qkv_trace_fini(trace);
		*trace = job->trace;
		qkv_trace_init(&job->trace);
		*computed = true;
	}
	job_abandon(job);
	return -1;
}

/* A recovery copy of path from an earlier session: offered with a question when
 * --recover asked for it; else only said, on the status line, where it is, so
 * nothing stands in front of the class. */
static void offer_recovery(struct app *app, const char *path, bool recover)
{
	char where[4096], err[600];
	struct qkv_problem recovered;

	if (path == NULL || !recovery_find(path, where, sizeof where))
		return;
	if (!recover) {
		app_recovery_kept(app, where);
		return;
	}
	qkv_problem_init(&recovered);
	if (load_file(where, &recovered, err, sizeof err) != 0) {
		app_recovery_unreadable(app, err);
		return;
	}
	if (app_offer_recovery(app, &recovered, where) != 0)
		qkv_problem_fini(&recovered);
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
		char *shown = quote_dup(term);

		fprintf(stderr, "qkv: the terminal type '%s' is unknown to terminfo; try TERM=xterm-256color "
				"or --print\n", shown != NULL ? shown : "?");
		free(shown);
		return 2;
	}
	del_curterm(cur_term);
	return 0;
}

/* "COLUMNS" or "LINES" when one is set to a number curses refuses, else NULL. */
static const char *size_variable_too_large(void)
{
	static const char *const names[] = { "COLUMNS", "LINES" };

	for (int i = 0; i < 2; i++) {
		const char *value = getenv(names[i]);

		if (value != NULL && strtol(value, NULL, 10) > 32767)
			return names[i];
	}
	return NULL;
}

/* A lesson being presented: its run, and the socket of the presenter screens. */
struct presenting {
	struct lesson_run run;
	struct notes_server notes;
	bool followed; /* a presenter screen showed the notes at the last frame */
	char shown[TEXT_NOTES_MAX]; /* the notes the screen shows (layout.notes points here) */
};

/* The recording (--record), or NULL. */
static struct record *recording;

/* One frame, the lesson's lines over it when a lesson is presented, and the
 * frame into the recording. */
static void render(const struct app *app, struct layout *l, int flags, struct presenting *lesson)
{
	if (lesson != NULL) {
		/* The notes shown here (none while a presenter screen shows them): when
		 * they come, go or change, the layout makes room for them again. */
		static char now[TEXT_NOTES_MAX];
		bool followed = notes_server_followed(&lesson->notes);
		const char *notes = draw_lesson_notes(&lesson->run, followed, now, sizeof now);

		if ((notes == NULL) != (l->notes == NULL) || (notes != NULL && strcmp(notes, lesson->shown) != 0)) {
			flags |= REDRAW_ALL | REDRAW_LAYOUT;
			if (notes != NULL)
				snprintf(lesson->shown, sizeof lesson->shown, "%s", notes);
		}
		l->notes = notes != NULL ? lesson->shown : NULL;
		lesson->followed = followed;
	}
	draw_render(app, l, flags);
	if (lesson != NULL && flags != REDRAW_NONE) {
		lesson_notes_pages(&lesson->run, l->notes_pages);
		draw_lesson(app, l, &lesson->run);
		flags |= REDRAW_STATUS;
	}
	if (recording != NULL && flags != REDRAW_NONE)
		record_frame(recording);
}

/* Ends the recording; its sentence (if it failed) goes after the terminal is back.
 * False when the recording is incomplete. */
static bool end_recording(char *said, size_t size)
{
	char err[600];
	bool whole = true;

	if (recording != NULL && record_close(recording, err, sizeof err) != 0) {
		snprintf(said + strlen(said), size - strlen(said), "%s\n", err);
		whole = false;
	}
	recording = NULL;
	return whole;
}

/* An event to the lesson (which hands what is not its own to app_update) or the
 * app, then what the app asked of the files done (app_perform). */
static int update(struct app *app, const struct event *event, struct presenting *lesson)
{
	int flags = lesson != NULL ? lesson_update(&lesson->run, app, event) : app_update(app, event);

	return flags | app_perform(app, event->now_ms);
}

static int run(struct qkv_problem *p, const char *path, const struct tui_options *o)
{
	struct presenting presenting, *lesson = NULL;
	struct app app;
	struct app_options options = { 0 };
	struct layout layout;
	SCREEN *screen;
	int status = check_terminal(), rc;
	int start_palette;
	int quick_reads = 0;
	bool gone = false, pasting = false, interrupted = false, computed, recorded;
	struct qkv_trace first;
	char said[16384] = "";

	if (status == 0 && o != NULL && o->palette != NULL && palette_find(o->palette) < 0) {
		fprintf(stderr, "qkv: --palette %s: unknown palette; expected viridis, projector, 8 or mono\n",
			o->palette);
		status = 2;
	}
	if (status == 0 && o != NULL && o->lesson != NULL) {
		char err[600];

		if (notes_server_open(&presenting.notes, o->lesson->path, o->lesson->step_count, err, sizeof err) != 0) {
			fprintf(stderr, "%s\n", err);
			status = 2;
		} else {
			lesson = &presenting;
		}
	}
	if (status == 0 && o != NULL && o->record != NULL) {
		struct winsize size = { .ws_col = 80, .ws_row = 24 };
		char err[600];

		struct record_files files = { .problem = path, .lesson = o->lesson != NULL ? o->lesson->path : NULL,
					      .force = o->record_force };

		ioctl(STDOUT_FILENO, TIOCGWINSZ, &size);
		recording = record_open(o->record, &files, size.ws_col, size.ws_row, err, sizeof err);
		if (recording == NULL) {
			fprintf(stderr, "%s\n", err);
			if (lesson != NULL)
				notes_server_close(&lesson->notes);
			status = 2;
		}
	}
	if (status != 0) {
		qkv_problem_fini(p);
		return status;
	}
	/* Characters only: numbers keep the C locale's decimal point everywhere. The
	 * glyph set follows: UTF-8 (or C.UTF-8 when the environment names none and the
	 * terminal shows UTF-8), else ASCII. */
	glyphs_start(glyphs_fallback_locales);
	if (tcgetattr(STDIN_FILENO, &shell_modes) == 0)
		have_shell_modes = 1;
	catch_signals();
	/* UTF-8 bytes on a terminal that is not in UTF-8 are not only wrong letters: some
	 * continuation bytes are C1 controls there (0x9A asks the terminal who it is, and
	 * its answer came back as keys: ?, digits, ;). */
	if (glyphs_set() == GLYPHS_UTF8 && glyphs_fell_back()) {
		bool answered = true; /* nothing is owed when nothing was asked */

		if (!terminal_shows_utf8(&answered))
			glyphs_use(GLYPHS_ASCII);
		probe_owed = !answered;
	}
	screen = newterm(NULL, stdout, stdin);
	if (screen == NULL) {
		if (lesson != NULL)
			notes_server_close(&lesson->notes);
		end_recording(said, sizeof said);
	}
	if (screen == NULL && size_variable_too_large() != NULL) {
		char *shown = quote_dup(getenv(size_variable_too_large()));

		have_shell_modes = 0;
		fprintf(stderr, "qkv: %s=%s is larger than a terminal can be (at most 32767); unset it "
			"to use the terminal's own size\n", size_variable_too_large(), shown != NULL ? shown : "?");
		free(shown);
		qkv_problem_fini(p);
		return 2;
	}
	if (screen == NULL) {
		/* check_terminal found TERM in terminfo: what failed is the terminal itself. */
		struct winsize size = { 0 };
		char *shown = quote_dup(getenv("TERM"));

		have_shell_modes = 0;
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && (size.ws_col > 32767 || size.ws_row > 32767))
			fprintf(stderr, "qkv: the terminal is %u columns by %u rows, larger than curses draws (at most "
				"32767 each way); make it smaller, or use --print\n", (unsigned)size.ws_col,
				(unsigned)size.ws_row);
		else
			fprintf(stderr, "qkv: curses cannot start on this terminal (TERM '%s', which terminfo knows); "
				"try TERM=xterm-256color or --print\n", shown != NULL ? shown : "?");
		free(shown);
		qkv_problem_fini(p);
		return 2;
	}
	set_term(screen);
	if (has_colors()) {
		start_color();
		use_default_colors();
	}
	palette_set_depth(o != NULL ? o->color : NULL);
	cbreak();
	noecho();
	nonl();
	quiet_terminal_keys();
	keypad(stdscr, TRUE);
	define_key("\033[200~", KEY_PASTE_BEGIN);
	define_key("\033[201~", KEY_PASTE_END);
	send(paste_on);
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
	qkv_trace_init(&first);
	status = first_trace(p, &first, &computed);
	if (status >= 0) {
		/* Ended while the first trace was computed: nothing was changed yet. */
		endwin();
		send(paste_off);
		delscreen(screen);
		have_shell_modes = 0;
		qkv_problem_fini(p);
		if (lesson != NULL)
			notes_server_close(&lesson->notes);
		end_recording(said, sizeof said);
		return status;
	}
	options.palette_count = palette_count();
	options.palette = start_palette >= 0 ? start_palette : palette_default();
	options.clock = clock_ms;
	options.message = palette_notice();
	if (o != NULL) {
		options.projector = o->projector;
		options.pace_s = o->pace;
		options.train = o->train;
	}
	rc = app_init_traced(&app, p, computed ? &first : NULL, path, &options);
	qkv_trace_fini(&first);
	if (rc != 0) {
		endwin();
		send(paste_off);
		delscreen(screen);
		have_shell_modes = 0;
		app_fini(&app);
		if (lesson != NULL)
			notes_server_close(&lesson->notes);
		end_recording(said, sizeof said);
		fprintf(stderr, "qkv: cannot start: out of memory\n");
		return 1;
	}
	app_perform(&app, now_ms()); /* the file as read: its time and size */
	offer_recovery(&app, path, o != NULL && o->recover);
	if (lesson != NULL) {
		/* The lesson's first step, replayed from the start (main checked that every step replays). */
		struct lesson_look look = { .width = COLS, .height = LINES, .palette = app.palette,
					    .palette_count = app.palette_count, .projector = app.projector,
					    .clock = app.cost.clock, .clock_context = app.cost.clock_context };
		char err[600];

		app_fini(&app);
		if (lesson_run_start(&lesson->run, o->lesson, &look, &app, err, sizeof err) != 0) {
			endwin();
			send(paste_off);
			delscreen(screen);
			have_shell_modes = 0;
			notes_server_close(&lesson->notes);
			end_recording(said, sizeof said);
			fprintf(stderr, "%s\n", err);
			return 2;
		}
		lesson->followed = false;
		lesson_run_background(&lesson->run);
		if (lesson->notes.said[0] != '\0')
			lesson_run_tell(&lesson->run, lesson->notes.said);
	}
	memset(&layout, 0, sizeof layout);
	layout.lesson = lesson != NULL;
	{
		struct event resize = { .type = EVENT_RESIZE, .width = COLS, .height = LINES, .now_ms = now_ms() };
		render(&app, &layout, update(&app, &resize, NULL), lesson);
	}
	while (!app.quit && stop_signal == 0 && !gone) {
		wint_t code;
		int got, wait_ms;
		int64_t asked = now_ms();
		struct event event;
		int flags;

		if (suspend_signal) {
			suspend_signal = 0;
			quick_reads = 0;
			suspend();
			render(&app, &layout, REDRAW_ALL | REDRAW_LAYOUT, lesson);
			continue;
		}
		if (continue_signal) {
			resume();
			render(&app, &layout, REDRAW_ALL | REDRAW_LAYOUT, lesson);
			continue;
		}
		if (interrupt_signal) {
			/* SIGINT from outside: what Ctrl-C does. */
			struct event key = { .type = EVENT_KEY, .key = APP_KEY_CTRL_C, .now_ms = now_ms() };

			interrupt_signal = 0;
			interrupted = true;
			quick_reads = 0; /* the read it cut short was no sign of a lost terminal */
			render(&app, &layout, update(&app, &key, NULL), lesson);
			continue;
		}
		/* While a job runs, ticks come often, to take it in soon after it ends. */
		wait_ms = app_busy(&app) || app.cost.running || (lesson != NULL && lesson_run_busy(&lesson->run))
			  ? BUSY_TICK_MS : TICK_MS;
		if (lesson != NULL)
			notes_server_poll(&lesson->notes, lesson->run.step);
		got = read_key(&code, wait_ms);
		if (got == ERR) {
			struct event tick = { .type = EVENT_TICK, .now_ms = now_ms() };

			if (terminal_gone(tick.now_ms - asked, wait_ms, &quick_reads)) {
				gone = true;
				break;
			}
			/* A paste arrives all at once: a pause means its end marker was lost. */
			pasting = false;
			render(&app, &layout, update(&app, &tick, lesson), lesson);
			continue;
		}
		quick_reads = 0;
		if (got == KEY_CODE_YES && (code == KEY_PASTE_BEGIN || code == KEY_PASTE_END)) {
			pasting = code == KEY_PASTE_BEGIN;
			continue;
		}
		if (!input_translate(got, (unsigned int)code, &layout, now_ms(), &event))
			continue;
		event.pasted = pasting && event.type == EVENT_KEY;
		flags = update(&app, &event, lesson);
		render(&app, &layout, flags, lesson);
	}
	if (stop_signal != 0 || gone)
		keep_changes(&app, said, sizeof said);
	endwin();
	send(paste_off);
	delscreen(screen);
	have_shell_modes = 0;
	if (lesson != NULL) {
		notes_server_close(&lesson->notes);
		lesson_run_fini(&lesson->run);
	}
	recorded = end_recording(said, sizeof said);
	if (said[0] != '\0')
		fputs(said, stderr);
	/* An incomplete recording is a runtime failure: status 1. */
	status = stop_signal != 0 ? 128 + (int)stop_signal : gone ? EXIT_TERMINAL_GONE
	       : interrupted ? 128 + SIGINT : recorded ? 0 : 1;
	app_fini(&app);
	return status;
}

/* The terminal is back (or gone): qkv leaves its session before it ends. A hang-up
 * goes on sending job-control signals to the terminal's process groups for a while
 * (SIGHUP, and SIGHUP with SIGCONT to a group it leaves orphaned with a member
 * stopped). A sanitizer build's leak check stops the process at exit and waits for
 * that stop; a SIGCONT arriving then cancels the stop, and the check waited for
 * ever, spinning, with SIGTERM caught. Out of the session no such signal reaches
 * qkv. (setsid fails, harmlessly, for a process group leader: a job of an
 * interactive shell, which the shell's own hang-up handling ends first.) */
int tui_run(struct qkv_problem *p, const char *path, const struct tui_options *o)
{
	int status = run(p, path, o);

	fflush(stderr);
	setsid();
	return status;
}
